// Sessions end after SESSION_IDLE_SECONDS without a request (ADR 0031).
// - While someone types, the session is kept alive: a small request every few minutes.
// - Two minutes before it would end, a warning offers to stay signed in.
// - A form marked data-draft is not lost if the session ended anyway: on submit the script asks
//   the server first; signed out, it keeps what was typed in this tab (sessionStorage, never
//   sent anywhere), goes to the login page, and puts it back when the form opens again.
(function () {
  "use strict";
  var script = document.currentScript;
  var pingUrl = script.dataset.ping;
  var loginUrl = script.dataset.login;
  var idle = parseInt(script.dataset.idle, 10) * 1000;
  var WARN = 2 * 60 * 1000;
  var EVERY = Math.min(5 * 60 * 1000, idle / 3);
  var lastSeen = Date.now();
  var warning = document.getElementById("session-warning");
  var stay = document.getElementById("session-stay");
  var KEY = "draft:" + location.pathname;
  var SKIP = { file: 1, hidden: 1, submit: 1, button: 1, password: 1, reset: 1 };

  function ping() {
    return fetch(pingUrl, { credentials: "same-origin", cache: "no-store" }).then(
      function (response) {
        var alive = response.status === 204 && !response.redirected;
        if (alive) {
          lastSeen = Date.now();
          if (warning) { warning.hidden = true; }
        }
        return alive;
      },
      function () { return true; } // offline: let the form go, the server decides
    );
  }

  document.addEventListener("input", function () {
    if (Date.now() - lastSeen > EVERY) { ping(); }
  }, true);
  if (stay) { stay.addEventListener("click", ping); }
  window.setInterval(function () {
    var left = idle - (Date.now() - lastSeen);
    if (warning) { warning.hidden = !(left > 0 && left < WARN); }
  }, 5000);

  function fields(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && !SKIP[el.type] && el.name !== "csrfmiddlewaretoken";
    });
  }

  function save(form) {
    var values = [];
    fields(form).forEach(function (el) {
      if (el.type === "checkbox" || el.type === "radio") {
        if (el.checked) { values.push([el.name, el.value, true]); }
      } else if (el.type === "select-multiple") {
        Array.prototype.forEach.call(el.selectedOptions, function (o) {
          values.push([el.name, o.value, true]);
        });
      } else {
        values.push([el.name, el.value]);
      }
    });
    var total = form.querySelector("input[name$='-TOTAL_FORMS']");
    sessionStorage.setItem(KEY, JSON.stringify({ values: values, rows: total ? total.value : 0 }));
  }

  function restore(form) {
    var raw = sessionStorage.getItem(KEY);
    if (!raw) { return; }
    sessionStorage.removeItem(KEY);
    var draft = JSON.parse(raw);
    var total = form.querySelector("input[name$='-TOTAL_FORMS']");
    var add = document.getElementById("add-animal");
    while (total && add && parseInt(total.value, 10) < parseInt(draft.rows, 10)) {
      add.click();
    }
    draft.values.forEach(function (item) {
      var matches = form.querySelectorAll("[name='" + item[0] + "']");
      Array.prototype.forEach.call(matches, function (el) {
        if (el.type === "checkbox" || el.type === "radio") {
          if (el.value === item[1]) { el.checked = true; }
        } else if (el.type === "select-multiple") {
          Array.prototype.forEach.call(el.options, function (o) {
            if (o.value === item[1]) { o.selected = true; }
          });
        } else {
          el.value = item[1];
        }
        el.dispatchEvent(new Event("change", { bubbles: true }));
      });
    });
    var notice = document.createElement("div");
    notice.className = "alert alert-info";
    notice.setAttribute("role", "status");
    notice.id = "draft-restored";
    notice.tabIndex = -1;
    notice.textContent = form.dataset.draft;
    form.parentNode.insertBefore(notice, form);
    // Putting the animals' rows back focused the last one added, which scrolled the page
    // (smoothly, so it was still moving a moment later) down to it. The page opens at its top
    // instead, on the notice, as after any page load, and a screen reader reads the notice.
    notice.focus({ preventScroll: true });
    window.scrollTo({ top: 0, left: 0, behavior: "instant" });
  }

  document.querySelectorAll("form[data-draft]").forEach(function (form) {
    restore(form);
    form.addEventListener("submit", function (event) {
      if (form.dataset.checked) { return; }
      event.preventDefault();
      var submitter = event.submitter;
      ping().then(function (alive) {
        if (alive) {
          form.dataset.checked = "1";
          if (submitter) { form.requestSubmit(submitter); } else { form.requestSubmit(); }
          return;
        }
        save(form);
        var query = new URLSearchParams({ next: location.pathname, expired: "1" });
        location.assign(loginUrl + "?" + query.toString());
      });
    });
  });
})();
