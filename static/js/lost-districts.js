// The lost-cattle report's district list, filtered in place by the State chosen (ADR 0079).
// Without JavaScript the "Show its districts" button sends the form back with the State's
// districts; with it, the button goes and the list follows the State at once. The server
// checks the pair either way.
(function () {
  "use strict";
  var box = document.querySelector("[data-lost-districts]");
  var data = document.getElementById("lost-districts");
  var state = document.getElementById("id_state");
  var district = document.getElementById("id_district");
  if (!box || !data || !state || !district) { return; }
  var all = JSON.parse(data.textContent);
  var button = box.querySelector("[data-show-districts]");
  if (button) { button.remove(); }
  function fill() {
    var kept = district.value;
    var list = all[state.value] || [];
    var keep = false;
    district.replaceChildren(
      new Option(box.getAttribute(state.value ? "data-first" : "data-empty"), "")
    );
    list.forEach(function (pair) {
      district.add(new Option(pair[1], String(pair[0])));
      keep = keep || String(pair[0]) === kept;
    });
    district.value = keep ? kept : "";
  }
  state.addEventListener("change", fill);
})();
