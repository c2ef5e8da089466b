// "Add a row" for the tariff forms (fine categories, rules, feeding rates). Each button names
// its formset prefix; a new row is a copy of the formset's empty form. Without JavaScript the
// button posts the form and the server sends it back with spare empty rows.
(function () {
  "use strict";
  document.querySelectorAll("[data-add-row]").forEach(function (button) {
    var prefix = button.getAttribute("data-add-row");
    var template = document.getElementById(prefix + "-template");
    var total = document.getElementById("id_" + prefix + "-TOTAL_FORMS");
    var list = document.getElementById(prefix + "-rows");
    if (!template || !total || !list) { return; }
    button.addEventListener("click", function (event) {
      event.preventDefault();
      var index = parseInt(total.value, 10);
      var html = template.innerHTML.replace(/__prefix__/g, String(index))
        .replace(/__num__/g, String(index + 1));
      var holder = document.createElement("div");
      holder.innerHTML = html;
      var row = holder.firstElementChild;
      list.appendChild(row);
      total.value = String(index + 1);
      var first = row.querySelector("select, input");
      if (first) { first.focus(); }
    });
  });
})();
