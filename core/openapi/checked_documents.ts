// The two OpenAPI documents answers are checked against in test runs, with where each one's paths start.
import type { CheckedDocument } from "./answer_check.ts";
import managementDocument from "../../generated/openapi-v1.json" with {
  type: "json",
};
import publicDocument from "../../generated/openapi-public-v1.json" with {
  type: "json",
};

/** The public read API's and the Management API's documents, in the order their checks name them. */
export const CHECKED_DOCUMENTS: CheckedDocument[] = [
  { base: "/v1", document: publicDocument },
  { base: "/api/manage/v1", document: managementDocument },
];
