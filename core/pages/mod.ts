// This module is browser compatible.
// The page-document contract (spec 3 part 2.2): one parser for every write path, delivery, the
// admin's page editor and the published JSON Schema.
export {
  isEmailAddress,
  isSupportedFileType,
  type PageDocument,
  type PageError,
  type PageErrorCode,
  type PageParseResult,
  type PageSection,
  parsePageDocument,
  type ParsePageOptions,
  pathOf,
} from "./parse.ts";
export {
  canonicalJson,
  type ComponentPin,
  type DefinitionProp,
  type RegisteredDefinition,
  sectionDefinitionDigest,
  type SectionRegistry,
  sectionRegistry,
} from "./custom.ts";
export { pageDocumentSchema, pageDocumentSchemaText } from "./schema.ts";
export type {
  ChromeAnswer,
  ChromeLink,
  RegionLink,
  RegionMenuItem,
  ServedBlock,
  ServedRegion,
} from "./chrome_shapes.ts";
export * from "./vocabulary.ts";
