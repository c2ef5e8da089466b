// The pairing page (/field/pair/) gives the phone its device token in
// <script type="application/json" id="device-token">: kept in the field app's IndexedDB, where
// the outbox reads it (ADR 0073). Then the app opens.
(function () {
  "use strict";
  const source = document.getElementById("device-token");
  if (!source) return;
  const device = JSON.parse(source.textContent);
  self.FieldStore.setSetting("device", device).then(() => {
    const link = document.getElementById("open-field-app");
    if (link) link.hidden = false;
  });
})();
