// Any other path under /api/plugin/v1: answered in the outcome envelope after the token door.
import { outcomeResponse } from "../../../../core/plugins/protocol.ts";

function unknownRoute() {
  return outcomeResponse(
    "invalid_request",
    "No such plugin API route in protocol v1",
  );
}

export const handler = {
  GET: unknownRoute,
  POST: unknownRoute,
  PUT: unknownRoute,
  PATCH: unknownRoute,
  DELETE: unknownRoute,
};
