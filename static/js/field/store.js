// The field app's IndexedDB (idb, ADR 0073), shared by the page and the service worker:
// "records", the outbox (each record by its local id), and "settings" (the device's pairing).
(function (scope) {
  "use strict";
  const NAME = "poundadmin-field";
  const VERSION = 1;
  let opened = null;

  function db() {
    opened = opened || scope.idb.openDB(NAME, VERSION, {
      upgrade(database) {
        const records = database.createObjectStore("records", { keyPath: "id" });
        records.createIndex("created", "created");
        database.createObjectStore("settings");
      },
    });
    return opened;
  }

  async function setting(name) {
    return (await db()).get("settings", name);
  }

  async function setSetting(name, value) {
    return (await db()).put("settings", value, name);
  }

  async function records() {
    return (await db()).getAllFromIndex("records", "created");
  }

  async function record(id) {
    return (await db()).get("records", id);
  }

  async function put(value) {
    await (await db()).put("records", value);
    return value;
  }

  // Changes one record inside one transaction, so that the page and the worker never both take
  // it: `change` returns false to leave it as it is.
  async function update(id, change) {
    const tx = (await db()).transaction("records", "readwrite");
    const found = await tx.store.get(id);
    const changed = found && change(found) !== false;
    if (changed) await tx.store.put(found);
    await tx.done;
    return changed ? found : null;
  }

  async function remove(id) {
    return (await db()).delete("records", id);
  }

  async function clearAll() {
    const database = await db();
    await database.clear("records");
    await database.clear("settings");
  }

  scope.FieldStore = { setting, setSetting, records, record, put, update, remove, clearAll };
})(self);
