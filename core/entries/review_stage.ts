// This module is browser compatible.
// Review stages of an item's draft and the moves between them (non-publishing workflow steps).

/** Where the item's current draft stands in review. */
export type ReviewStage =
  | "draft"
  | "in_review"
  | "changes_requested"
  | "approved";

/** A non-publishing workflow move (`POST /entries/{id}/transition`, scope `workflow:move`). */
export type ReviewMove = "submit" | "approve" | "request_changes" | "withdraw";

/** One move: the stages it leaves from, where it goes, and what decides it. */
export interface ReviewMoveRule {
  from: readonly ReviewStage[];
  to: ReviewStage;
  /** The model permission of the step itself. */
  needs: "update" | "review";
  /** The access command deciding it; scope `workflow:move` for credentials (spec 2 part 5.1). */
  command: "entries.transition_update" | "entries.transition";
}

/** Every review move. */
export const REVIEW_MOVES: Record<ReviewMove, ReviewMoveRule> = {
  submit: {
    from: ["draft", "changes_requested"],
    to: "in_review",
    needs: "update",
    command: "entries.transition_update",
  },
  withdraw: {
    from: ["in_review"],
    to: "draft",
    needs: "update",
    command: "entries.transition_update",
  },
  approve: {
    from: ["in_review"],
    to: "approved",
    needs: "review",
    command: "entries.transition",
  },
  request_changes: {
    from: ["in_review"],
    to: "changes_requested",
    needs: "review",
    command: "entries.transition",
  },
};

/** True when `move` names a review move. */
export function isReviewMove(move: string): move is ReviewMove {
  return Object.hasOwn(REVIEW_MOVES, move);
}
