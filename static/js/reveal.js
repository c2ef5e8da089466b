// Conditional questions (GOV.UK "conditional reveal"): a block marked
// data-reveal-when="<radio name>" data-reveal-value="<value>" shows only while that radio is
// chosen. Without JavaScript every block shows, and the server ignores the answers that do not
// apply.
(function () {
  "use strict";
  var blocks = document.querySelectorAll("[data-reveal-when]");
  function update() {
    blocks.forEach(function (block) {
      var name = block.getAttribute("data-reveal-when");
      var chosen = document.querySelector("input[name='" + name + "']:checked");
      block.hidden = !chosen || chosen.value !== block.getAttribute("data-reveal-value");
    });
  }
  blocks.forEach(function (block) {
    var name = block.getAttribute("data-reveal-when");
    document.querySelectorAll("input[name='" + name + "']").forEach(function (radio) {
      radio.setAttribute("aria-controls", block.id);
      radio.addEventListener("change", update);
    });
  });
  update();
})();
