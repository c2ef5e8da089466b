// The error summary (GOV.UK pattern): focused when the page opens, so a screen reader reads it
// and the keyboard starts there; each link moves focus to its field, with its label in view.
(function () {
  "use strict";
  var summary = document.querySelector("[data-error-summary]");
  if (!summary) { return; }
  summary.focus();
  summary.addEventListener("click", function (event) {
    var link = event.target.closest("a[href^='#']");
    if (!link) { return; }
    var input = document.getElementById(link.hash.slice(1));
    if (!input) { return; }
    event.preventDefault();
    var label = document.querySelector("label[for='" + input.id + "']");
    var group = input.closest("fieldset") || input;
    (label || group).scrollIntoView({ block: "start" });
    input.focus({ preventScroll: true });
  });
})();
