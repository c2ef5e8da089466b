// "Add another animal" without a round trip. Without JavaScript the button posts the form and
// the server adds the row instead.
(function () {
  "use strict";
  var button = document.getElementById("add-animal");
  var template = document.getElementById("animal-template");
  var total = document.getElementById("id_animals-TOTAL_FORMS");
  var list = document.getElementById("animal-forms");
  if (!button || !template || !total || !list) { return; }
  button.addEventListener("click", function (event) {
    event.preventDefault();
    var index = parseInt(total.value, 10);
    var html = template.innerHTML.replace(/__prefix__/g, String(index))
      .replace(/__num__/g, String(index + 1));
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var card = holder.firstElementChild;
    list.appendChild(card);
    total.value = String(index + 1);
    var first = card.querySelector("select, input");
    if (first) { first.focus(); }
  });
})();
