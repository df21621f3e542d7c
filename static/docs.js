// Starts the API docs page (/docs): Swagger UI with both OpenAPI documents of this service.
/* global SwaggerUIBundle, SwaggerUIStandalonePreset */
const primary = new URLSearchParams(location.search).get("api") === "manage"
  ? "Management API"
  : "Public read API";
SwaggerUIBundle({
  urls: [
    { url: "/docs/openapi-public-v1.json", name: "Public read API" },
    { url: "/docs/openapi-v1.json", name: "Management API" },
  ],
  "urls.primaryName": primary,
  dom_id: "#docs",
  deepLinking: true,
  // Never call the public validator service: the page works offline.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout",
});
