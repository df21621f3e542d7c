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

/** Each move: the stages it leaves from, where it goes, and the model permission it needs. */
export const REVIEW_MOVES: Record<
  ReviewMove,
  { from: readonly ReviewStage[]; to: ReviewStage; needs: "update" | "review" }
> = {
  submit: {
    from: ["draft", "changes_requested"],
    to: "in_review",
    needs: "update",
  },
  withdraw: { from: ["in_review"], to: "draft", needs: "update" },
  approve: { from: ["in_review"], to: "approved", needs: "review" },
  request_changes: {
    from: ["in_review"],
    to: "changes_requested",
    needs: "review",
  },
};

/** True when `move` names a review move. */
export function isReviewMove(move: string): move is ReviewMove {
  return Object.hasOwn(REVIEW_MOVES, move);
}
