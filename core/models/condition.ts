// This module is browser compatible.
// The shape of a field's visibility condition. The grammar's checks and evaluation are in
// visibility.ts; the shape sits apart so that field definitions can name it without a circle.

/** Comparison operators a condition term may use. */
export type ConditionOp =
  | "eq"
  | "neq"
  | "gt"
  | "gte"
  | "lt"
  | "lte"
  | "in"
  | "not_in"
  | "contains"
  | "empty"
  | "not_empty";

/** One test of a sibling field's value. */
export interface ConditionTerm {
  field: string;
  op: ConditionOp;
  value?: boolean | number | string | string[];
}

/** A term, or an AND / OR group of conditions. */
export type Condition =
  | ConditionTerm
  | { and: Condition[] }
  | { or: Condition[] };
