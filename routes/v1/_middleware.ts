// Every public read route resolves its site from the Host header alone (spec 3 part 4.1), reading
// in the same statement its languages, policy, browser origins, the sent token and the named model;
// then answers CORS for the site's browser origins and checks the optional site API token (part 5).
// A GET runs on a read replica when one is set and may answer it (core/public/replica_reads.ts).
import { readFromReplica } from "../../core/public/replica_reads.ts";
import {
  loadRequestContext,
  publicCors,
  readSiteToken,
} from "../../core/public/middleware.ts";

export const middleware = [
  readFromReplica,
  loadRequestContext,
  publicCors,
  readSiteToken,
];
