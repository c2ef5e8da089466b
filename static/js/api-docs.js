// The API reference page (templates/api/docs.html): Swagger UI on the schema of this origin.
// validatorUrl null: the spec is never sent to an outside validator.
(function () {
  var root = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({
    url: root.dataset.schema,
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
  });
})();
