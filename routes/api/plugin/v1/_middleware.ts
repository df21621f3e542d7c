// Every plugin API route: the installation token door, then the route (spec 1 parts 4.1 and 5).
import { pluginApiDoor } from "../../../../core/plugins/api_middleware.ts";

export const middleware = pluginApiDoor;
