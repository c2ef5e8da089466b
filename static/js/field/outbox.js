// The outbox (issue 22, ADR 0073): every record is saved on the phone first and kept until the
// server confirms it. Runs in the page and in the service worker (Background Sync) alike.
//
// A record: {id, kind: entry|photo|feeding|custody, state: draft|waiting|sending|sent|fixing,
// key (its Idempotency-Key), body, created, tries, next (when to try again), errors, result}.
(function (scope) {
  "use strict";
  const store = scope.FieldStore;
  const FIRST_WAIT = 5 * 1000;
  const LONGEST_WAIT = 10 * 60 * 1000;
  // A record left "sending" this long was being sent by a page that has gone: send it again,
  // with the same key, so the server answers the first reply if it had the record.
  const STALE = 2 * 60 * 1000;
  const RETRIED = new Set([408, 425, 429]);
  const KEEP_SENT = 30 * 24 * 60 * 60 * 1000;
  const UNSENT = new Set(["draft", "waiting", "sending", "fixing"]);
  const channel = "BroadcastChannel" in scope ? new BroadcastChannel("poundadmin-field") : null;
  let running = null;
  let forcedNext = null;

  function changed() {
    if (channel) channel.postMessage("changed");
  }

  function waitAfter(tries) {
    return Math.min(FIRST_WAIT * 2 ** Math.max(0, tries - 1), LONGEST_WAIT);
  }

  // Saves a record made or corrected on the phone. Its key is made once, when it is first saved;
  // a record the server refused goes again, corrected, with a new key.
  async function save(fields) {
    const old = fields.id ? await store.record(fields.id) : null;
    if (!fields.id) delete fields.id;
    const record = Object.assign(
      { id: crypto.randomUUID(), created: Date.now(), state: "waiting" },
      old || {},
      fields,
    );
    if (!record.key || (old && old.state === "fixing")) record.key = crypto.randomUUID();
    Object.assign(record, { tries: 0, next: 0, errors: [] });
    await store.put(record);
    changed();
    return record;
  }

  function claim(id, force) {
    const now = Date.now();
    return store.update(id, (r) => {
      const stale = r.state === "sending" && now - r.claimed > STALE;
      if (r.state !== "waiting" && !stale) return false;
      if (!force && !stale && r.next > now) return false;
      r.state = "sending";
      r.claimed = now;
    });
  }

  function settle(id, change) {
    return store.update(id, (r) => {
      if (r.state !== "sending") return false;
      change(r);
    });
  }

  function sent(id, answer) {
    return settle(id, (r) => {
      Object.assign(r, { state: "sent", result: answer, errors: [], sentAt: Date.now() });
      if (r.kind === "photo") r.blob = null;  // the server has it; the phone's space is small
    });
  }

  function retry(id, seconds) {
    return settle(id, (r) => {
      r.tries = (r.tries || 0) + 1;
      r.state = "waiting";
      r.next = Date.now() + Math.max(waitAfter(r.tries), (seconds || 0) * 1000);
    });
  }

  function refused(id, problem) {
    return settle(id, (r) => {
      const errors = Array.isArray(problem.errors) ? problem.errors : [];
      const whole = [problem.title, problem.detail].filter(Boolean).join(" ");
      r.state = "fixing";
      r.errors = errors.length ? errors : [{ field: "request", message: whole }];
    });
  }

  function target(record, device, byId) {
    const api = device.api;
    if (record.kind === "entry") return api + "entries/";
    if (record.kind === "feeding") return api + "pounds/" + device.pound + "/feeding/";
    if (record.kind === "custody") return api + "animals/" + record.animal + "/custody-events/";
    return api + "entries/" + byId[record.parent].result.id + "/photos/";
  }

  function payload(record, byId) {
    if (record.kind !== "photo") return JSON.stringify(record.body);
    const form = new FormData();
    const entry = byId[record.parent].result;
    const animal = (entry.animals || [])[record.animal - 1];
    form.append("photo", record.blob, "animal-" + record.animal + ".jpg");
    form.append("animal", animal ? animal.id : "");
    form.append("taken_at", record.takenAt || "");
    form.append("place", record.place || "");
    return form;
  }

  async function sendOne(record, device, byId) {
    const headers = {
      Authorization: "Bearer " + device.token,
      "Idempotency-Key": record.key,
      "Accept-Language": record.lang || "en",
      Accept: "application/json",
      // The phone's clock now: the server flags a record whose phone's clock is off.
      "Device-Time": new Date().toISOString(),
    };
    if (record.kind !== "photo") headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(target(record, device, byId), {
        method: "POST", headers, body: payload(record, byId), credentials: "omit",
      });
    } catch (error) {
      return retry(record.id, 0);  // no network, or the reply was lost: the same key again
    }
    const answer = await response.json().catch(() => ({}));
    if (response.ok) return sent(record.id, answer);
    if (response.status === 401) {
      await settle(record.id, (r) => { r.state = "waiting"; });
      return "unpaired";
    }
    if (response.status >= 500 || RETRIED.has(response.status)) {
      return retry(record.id, Number(response.headers.get("Retry-After")) || 0);
    }
    return refused(record.id, answer);
  }

  function readyToGo(record, byId) {
    if (record.kind !== "photo") return true;
    const entry = byId[record.parent];
    return Boolean(entry && entry.state === "sent" && entry.result && entry.result.id);
  }

  // One pass over the outbox: the entries and other records first, in the order they were
  // made, then the photos of the entries the server has numbered. A record that fails never
  // stops the others.
  async function pass(force) {
    const device = await store.setting("device");
    if (!device || !device.token) return { unpaired: true };
    // Offline, nothing is tried: a try then would only push the next one further away.
    if (scope.navigator.onLine === false) return summary();
    for (const photos of [false, true]) {
      const all = await store.records();
      const byId = Object.fromEntries(all.map((r) => [r.id, r]));
      for (const record of all.filter((r) => (r.kind === "photo") === photos)) {
        if (!readyToGo(record, byId)) continue;
        const claimed = await claim(record.id, force);
        if (!claimed) continue;
        changed();
        const outcome = await sendOne(claimed, device, byId);
        changed();
        if (outcome === "unpaired") return { unpaired: true };
      }
    }
    return summary();
  }

  async function summary() {
    const all = await store.records();
    const waiting = all.filter((r) => r.state === "waiting" || r.state === "sending");
    const next = waiting.length ? Math.min(...waiting.map((r) => r.next || 0)) : null;
    return { unsent: all.filter((r) => UNSENT.has(r.state)).length, waiting: waiting.length, next };
  }

  // Sends what is due (everything waiting, when `force`: the "Send now" button). One pass at a
  // time in this page or worker; the records' own states keep the page and the worker apart.
  function run(force) {
    if (running) {
      // "Send now" during a pass that left out what was not due: one more pass, after it.
      if (force && !forcedNext) forcedNext = running.then(() => { forcedNext = null; return run(true); });
      return forcedNext || running;
    }
    running = pass(Boolean(force)).finally(() => { running = null; });
    return running;
  }

  // Sent records are shown for a while (the register number the server gave), then forgotten:
  // the server has them, and the phone's space is small.
  async function forgetOldSent() {
    const before = Date.now() - KEEP_SENT;
    for (const record of await store.records()) {
      if (record.state === "sent" && record.sentAt < before) await store.remove(record.id);
    }
  }

  scope.FieldOutbox = { save, run, summary, forgetOldSent, UNSENT };
})(self);
