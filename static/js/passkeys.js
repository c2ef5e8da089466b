// Passkeys (ADR 61), on the vendored @simplewebauthn/browser. A block marked data-passkey="add"
// or "sign-in" holds a form with a hidden "credential" field; data-options names the JSON the
// server drew (its challenge kept in the session). On sending, the browser's ceremony runs and
// its answer fills the field. Without WebAuthn the blocks stay hidden, and the authenticator
// app's code works as before.
(function () {
  "use strict";
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) {
    return;
  }
  document.querySelectorAll("[data-passkey-unsupported]").forEach(function (note) {
    note.hidden = true;
  });
  document.querySelectorAll("[data-passkey]").forEach(function (block) {
    var form = block.querySelector("form");
    var field = form.querySelector("input[name='credential']");
    var status = block.querySelector("[data-passkey-status]");
    var source = document.getElementById(block.getAttribute("data-options"));
    var options = JSON.parse(source.textContent);
    var adding = block.getAttribute("data-passkey") === "add";
    block.hidden = false;
    form.addEventListener("submit", function (event) {
      if (field.value) {
        return;
      }
      event.preventDefault();
      status.hidden = true;
      var ceremony = adding
        ? lib.startRegistration({ optionsJSON: options })
        : lib.startAuthentication({ optionsJSON: options });
      ceremony.then(function (answer) {
        field.value = JSON.stringify(answer);
        form.submit();
      }).catch(function () {
        status.hidden = false;
      });
    });
  });
})();
