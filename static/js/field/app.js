// The field app's page (issue 22): its screens, the forms that save to the outbox, and when the
// outbox is sent: on start, when the connection returns, on "Send now", by Background Sync where
// the browser has it, and again after a wait when a try fails.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("field-config").textContent);
  self.FieldSpecies = config.species;  // the species' names in the page's language
  self.FieldScanner = config.scanner;  // the ear-tag scanner for browsers without BarcodeDetector
  const store = self.FieldStore;
  const outbox = self.FieldOutbox;
  const forms = self.FieldForms;
  const screens = self.FieldScreens;
  const SYNC_TAG = "field-outbox";
  const photosOf = new WeakMap();  // a photo input: its shrunk photo, ready to save
  let retryTimer = null;
  const correcting = {};  // per form: the id of the record being corrected

  function $(id) {
    return document.getElementById(id);
  }

  function say(text) {
    $("field-message").textContent = text;
  }

  // --- Screens -------------------------------------------------------------------------------

  function showScreen(moveFocus) {
    const name = (location.hash || "#entry").slice(1);
    const screen = document.querySelector('[data-screen="' + name + '"]') ? name : "entry";
    for (const section of document.querySelectorAll("[data-screen]")) {
      section.hidden = section.dataset.screen !== screen;
    }
    for (const link of document.querySelectorAll(".field-nav a")) {
      if (link.hash === "#" + screen) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    if (moveFocus) $(screen + "-title").focus();
  }

  function showNetwork() {
    $("network-state").textContent = navigator.onLine
      ? gettext("Online.")
      : gettext("Offline: what you save is kept on this phone and sent later.");
  }

  async function askPersistence() {
    const line = $("storage-state");
    if (!navigator.storage || !navigator.storage.persist) {
      line.textContent = gettext("This browser may clear unsent records: send them when you can.");
      return;
    }
    const kept = (await navigator.storage.persisted()) || (await navigator.storage.persist());
    line.dataset.persisted = kept ? "yes" : "no";
    line.textContent = kept
      ? gettext("Storage is kept: the browser will not clear unsent records.")
      : gettext("Storage is not promised: the browser may clear unsent records when the phone is short of space.");
  }

  // --- The outbox ----------------------------------------------------------------------------

  async function refresh() {
    return screens.renderOutbox(await store.records(), correct);
  }

  function schedule(result) {
    clearTimeout(retryTimer);
    if (result && result.next) {
      retryTimer = setTimeout(() => send(false), Math.max(1000, result.next - Date.now()));
    }
  }

  async function send(force) {
    const result = await outbox.run(force);
    $("not-paired").hidden = !result.unpaired;
    await refresh();
    schedule(result);
    return result;
  }

  // "Send now": everything waiting goes, and the keeper is told what is left.
  async function sendNow() {
    say(gettext("Sending…"));
    const result = await send(true);
    if (result.unpaired) return say("");
    say(result.unsent
      ? interpolate(ngettext("%s record is not sent yet.", "%s records are not sent yet.", result.unsent), [result.unsent])
      : gettext("Everything is sent."));
  }

  async function askSync() {
    if (!("serviceWorker" in navigator)) return;
    const registration = await navigator.serviceWorker.ready;
    if (registration.sync) await registration.sync.register(SYNC_TAG).catch(() => {});
  }

  async function queued(message) {
    say(message);
    await refresh();
    askSync();
    send(false);
  }

  // --- Saving the forms ----------------------------------------------------------------------

  async function firstCapture(form) {
    const old = correcting[form.id] ? await store.record(correcting[form.id]) : null;
    return (old && old.body.captured_at) || new Date().toISOString();
  }

  function refuse(form, errors) {
    const first = forms.showErrors(form, errors);
    if (first) first.focus();
  }

  async function saveRecord(form, fields) {
    const record = await outbox.save(Object.assign({ id: correcting[form.id], lang: config.lang }, fields));
    delete correcting[form.id];
    forms.clearErrors(form);
    return record;
  }

  async function savePhotos(form, entry) {
    const inputs = form.querySelectorAll('[data-name="photo"]');
    for (const [i, input] of Array.from(inputs).entries()) {
      const photo = photosOf.get(input);
      if (!photo) continue;
      await outbox.save({
        kind: "photo", parent: entry.id, animal: i + 1, blob: photo.blob, lang: config.lang,
        takenAt: photo.takenAt, place: entry.body.seizure_place,
      });
    }
  }

  async function saveEntry(form, draft) {
    const errors = draft ? [] : forms.missing(form);
    if (errors.length) return refuse(form, errors);
    const body = forms.entryBody(form);
    body.captured_at = await firstCapture(form);
    const entry = await saveRecord(form, { kind: "entry", body, state: draft ? "draft" : "waiting" });
    await savePhotos(form, entry);
    forms.fillEntry(form, {});
    queued(draft ? gettext("Kept as a draft on this phone.") : gettext("Saved on this phone. It is sent as soon as there is a connection."));
  }

  function feedingBody(form) {
    const ticked = Array.from(form.querySelectorAll("#feeding-animals li")).filter(
      (item) => item.querySelector("input[type=checkbox]").checked,
    );
    const cost = forms.value(form, "cost");
    return {
      date: forms.value(form, "date"),
      fodder: forms.value(form, "fodder"),
      watered: forms.value(form, "watered"),
      cost: cost || null,
      animals_fed: ticked.length,
      animals: ticked.map((item) => ({
        animal: Number(item.querySelector("input[type=checkbox]").dataset.animal),
        quantity: item.querySelector(".field-quantity").value.trim(),
      })),
    };
  }

  async function saveFeeding(form) {
    const errors = forms.missing(form);
    if (errors.length) return refuse(form, errors);
    const body = feedingBody(form);
    body.captured_at = await firstCapture(form);
    await saveRecord(form, { kind: "feeding", body, state: "waiting" });
    queued(gettext("Feeding round saved on this phone."));
  }

  async function saveCustody(form) {
    const errors = forms.missing(form);
    if (errors.length) return refuse(form, errors);
    const kind = form.querySelector("[name=kind]");
    const body = { kind: kind.value, occurred_at: forms.value(form, "occurred_at"), remarks: forms.value(form, "remarks") };
    // A birth enters the calf: the server needs its sex and colour (api/field.py).
    if (kind.value === "birth") Object.assign(body, { sex: forms.value(form, "sex"), colour: forms.value(form, "colour") });
    body.captured_at = await firstCapture(form);
    const animal = Number(forms.value(form, "animal"));
    const kindLabel = kind.options[kind.selectedIndex].text;
    await saveRecord(form, { kind: "custody", animal, kindLabel, body, state: "waiting" });
    form.reset();
    showBirthFields(form);
    queued(gettext("Saved on this phone. It is sent as soon as there is a connection."));
  }

  // The calf's sex and colour, shown and asked for only when the event is a birth.
  function showBirthFields(form) {
    const birth = form.querySelector("[name=kind]").value === "birth";
    $("birth-fields").hidden = !birth;
    form.querySelectorAll("[data-birth]").forEach((input) => { input.required = birth; });
  }

  // A record the server refused, or a draft, back in its form with the server's errors.
  function correct(record) {
    const form = $(record.kind + "-form");
    location.hash = "#" + record.kind;
    if (record.kind === "entry") forms.fillEntry(form, record.body);
    else for (const [name, v] of Object.entries(record.body)) {
      const input = form.querySelector('[name="' + name + '"]');
      if (input && input.type !== "checkbox" && typeof v !== "object") input.value = v === null ? "" : v;
    }
    if (record.kind === "custody") showBirthFields(form);
    correcting[form.id] = record.id;
    const first = forms.showErrors(form, record.errors || []);
    if (first) first.focus();
  }

  async function shrinkPhoto(input) {
    const note = input.parentElement.querySelector("[data-photo-note]");
    const file = input.files && input.files[0];
    photosOf.delete(input);
    if (!file) return;
    note.textContent = gettext("Making the photo smaller…");
    const photo = await self.FieldPhotos.shrink(file);
    photo.takenAt = new Date(file.lastModified || Date.now()).toISOString();
    photosOf.set(input, photo);
    input.dataset.photoBytes = photo.blob.size;
    note.textContent = interpolate(gettext("Photo ready: %s × %s px, %s KB."),
      [photo.width, photo.height, Math.ceil(photo.blob.size / 1024)]);
  }

  async function scanTag(input) {
    const block = input.closest("[data-animal]");
    const note = block.querySelector("[data-scan-note]");
    const file = input.files && input.files[0];
    if (!file) return;
    let tag = null;
    try {
      tag = await self.FieldPhotos.readTag(file);
    } catch (error) {
      input.value = "";
      note.textContent = gettext("The scanner needs a signal the first time it is used. Type the tag instead.");
      return;
    }
    input.value = "";
    if (!tag) {
      note.textContent = gettext("No tag barcode found in the photo. Type the tag instead.");
      return;
    }
    const field = block.querySelector('[data-name="ear_tag"]');
    field.value = tag;
    note.textContent = "";
    field.focus();
  }

  // --- The pound's reference data ------------------------------------------------------------

  async function readJson(url, device, name) {
    try {
      const response = await fetch(url, { headers: { Authorization: "Bearer " + device.token } });
      if (response.ok) {
        const data = await response.json();
        await store.setSetting(name, data);
        return data;
      }
    } catch (error) {
      // Offline and not in the worker's cache either: the copy the phone kept.
    }
    return store.setting(name);
  }

  async function loadReference() {
    const device = await store.setting("device");
    $("not-paired").hidden = Boolean(device);
    if (!device) return;
    const [reference, register] = await Promise.all([
      readJson(device.api + "field/reference/?pound=" + device.pound, device, "reference"),
      readJson(device.api + "entries/?pound=" + device.pound, device, "register"),
    ]);
    screens.renderReference(reference, register && register.results);
  }

  // --- Signing out ---------------------------------------------------------------------------

  async function signOut(anyway) {
    const unsent = await refresh();
    if (unsent && !anyway) {
      $("sign-out-unsent").textContent = interpolate(ngettext(
        "%s record has not reached the office. Signing out deletes it from this phone.",
        "%s records have not reached the office. Signing out deletes them from this phone.", unsent), [unsent]);
      $("sign-out-warning").hidden = false;
      $("sign-out-anyway").focus();
      return;
    }
    await store.clearAll();
    location.assign(config.pair);
  }

  // --- Start ---------------------------------------------------------------------------------

  function listen() {
    const entry = $("entry-form");
    entry.addEventListener("submit", (e) => { e.preventDefault(); saveEntry(entry, false); });
    entry.querySelector("[data-save-draft]").addEventListener("click", () => saveEntry(entry, true));
    $("add-animal").addEventListener("click", () => forms.addAnimal(entry).querySelector("select").focus());
    entry.addEventListener("change", (e) => {
      if (e.target.dataset.name === "photo") shrinkPhoto(e.target);
      if (e.target.dataset.name === "scan") scanTag(e.target);
    });
    $("feeding-form").addEventListener("submit", (e) => { e.preventDefault(); saveFeeding(e.target); });
    $("custody-form").addEventListener("submit", (e) => { e.preventDefault(); saveCustody(e.target); });
    $("f-kind").addEventListener("change", (e) => showBirthFields(e.target.form));
    $("send-now").addEventListener("click", sendNow);
    $("sign-out").addEventListener("click", () => signOut(false));
    $("sign-out-anyway").addEventListener("click", () => signOut(true));
    window.addEventListener("hashchange", () => showScreen(true));
    // The connection is back: what waited for it goes now, whatever its wait after failing.
    window.addEventListener("online", () => { showNetwork(); send(true); });
    window.addEventListener("offline", showNetwork);
    if ("BroadcastChannel" in self) new BroadcastChannel("poundadmin-field").onmessage = refresh;
  }

  function start() {
    forms.addAnimal($("entry-form"));
    $("f-feeding-date").value = forms.today();
    listen();
    showScreen(false);
    showNetwork();
    askPersistence();
    if ("serviceWorker" in navigator) navigator.serviceWorker.register(config.worker, { scope: config.scope });
    loadReference();
    outbox.forgetOldSent().then(() => send(false));
  }

  self.FieldApp = { send, refresh, loadReference };
  start();
})();
