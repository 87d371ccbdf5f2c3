// Starts Swagger UI on /docs. Kept out of index.html so that a Content
// Security Policy without 'unsafe-inline' scripts can serve the page.
(function () {
  "use strict";
  // The document sits next to /docs: /docs -> /openapi.json, and under a path
  // prefix /prefix/docs -> /prefix/openapi.json.
  var base = window.location.pathname.replace(/\/docs(\/(index\.html)?)?$/, "");
  window.ui = window.SwaggerUIBundle({
    url: base + "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 1,
    displayOperationId: false,
    displayRequestDuration: true,
    filter: true,
    showExtensions: false,
    // "Try it out" is offered on every operation; a click turns it on.
    supportedSubmitMethods: ["get", "post", "patch", "delete"],
    tryItOutEnabled: false,
    // No badge that would call an outside validator service.
    validatorUrl: null
  });
})();
