// What the field app's screens show: the outbox with each record's state, and the pound's
// reference data (villages, the staff who may seize, the animals in the pound) in the forms.
(function (scope) {
  "use strict";
  const STATES = {
    draft: () => gettext("Draft"),
    waiting: () => gettext("Waiting"),
    sending: () => gettext("Sending"),
    sent: () => gettext("Sent"),
    fixing: () => gettext("Needs fixing"),
  };
  const BADGES = {
    draft: "text-bg-secondary", waiting: "text-bg-warning", sending: "text-bg-info",
    sent: "text-bg-success", fixing: "text-bg-danger",
  };

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function describe(record) {
    const body = record.body || {};
    if (record.kind === "entry") {
      return interpolate(
        ngettext("Entry: %s animal, %s", "Entry: %s animals, %s", body.animals.length),
        [body.animals.length, body.seizure_place],
      );
    }
    if (record.kind === "photo") return interpolate(gettext("Photo of animal %s"), [record.animal]);
    if (record.kind === "feeding") return interpolate(gettext("Feeding round of %s"), [scope.FieldForms.showDay(body.date)]);
    return interpolate(gettext("Custody event: %s"), [record.kindLabel || body.kind]);
  }

  function row(record, onFix) {
    const item = element("li", "border rounded p-2 mb-2");
    item.dataset.record = record.id;
    item.dataset.state = record.state;
    item.dataset.kind = record.kind;
    const top = element("p", "mb-1 d-flex flex-wrap gap-2 align-items-center");
    top.append(element("span", "badge " + BADGES[record.state], STATES[record.state]()));
    top.append(element("span", "", describe(record)));
    item.append(top);
    if (record.state === "sent" && record.result && record.result.register_number) {
      const number = interpolate(gettext("Register number %s"), [record.result.register_number]);
      item.append(element("p", "mb-0 fw-bold", number));
    }
    if (record.state === "fixing" || record.state === "draft") {
      for (const error of record.errors || []) item.append(element("p", "mb-1 text-danger", error.message));
      if (onFix && record.kind !== "photo") {
        const label = record.state === "draft" ? gettext("Open") : gettext("Correct it");
        const fix = element("button", "btn btn-sm btn-outline-dark", label);
        fix.type = "button";
        fix.addEventListener("click", () => onFix(record));
        item.append(fix);
      }
    }
    if (record.state === "waiting" && record.tries) {
      const tries = ngettext("Tried %s time; trying again.", "Tried %s times; trying again.", record.tries);
      item.append(element("p", "mb-0 small", interpolate(tries, [record.tries])));
    }
    return item;
  }

  function renderOutbox(records, onFix) {
    const list = document.getElementById("outbox-list");
    list.replaceChildren(...records.slice().reverse().map((r) => row(r, onFix)));
    if (!records.length) list.append(element("li", "", gettext("Nothing recorded on this phone yet.")));
    const unsent = records.filter((r) => scope.FieldOutbox.UNSENT.has(r.state)).length;
    document.getElementById("outbox-count").textContent = unsent;
    return unsent;
  }

  function options(select, items, keepFirst) {
    const first = keepFirst ? [select.options[0]] : [];
    select.replaceChildren(...first, ...items.map((item) => new Option(item.label, item.value)));
  }

  function animalLabel(animal, entry) {
    const species = (scope.FieldSpecies || {})[animal.species] || animal.species;
    return interpolate(gettext("%s, animal %s (%s)"), [entry.register_number, animal.number, species]);
  }

  // The animals the pound holds now, from the register's latest page.
  function inPound(entries) {
    const animals = [];
    for (const entry of entries || []) {
      for (const animal of entry.animals || []) {
        if (animal.state === "impounded") animals.push({ value: animal.id, label: animalLabel(animal, entry) });
      }
    }
    return animals;
  }

  function feedingRows(animals) {
    const list = document.getElementById("feeding-animals");
    document.getElementById("feeding-none").hidden = animals.length > 0;
    list.replaceChildren(...animals.map((animal, i) => {
      const item = element("li", "field-feed-row mb-2");
      const tick = element("input", "form-check-input");
      Object.assign(tick, { type: "checkbox", id: "feed-" + i, checked: true });
      tick.dataset.animal = animal.value;
      const label = element("label", "form-check-label", animal.label);
      label.htmlFor = tick.id;
      const quantity = element("input", "form-control field-quantity");
      Object.assign(quantity, { id: "feed-qty-" + i, inputMode: "decimal" });
      quantity.setAttribute("aria-label", interpolate(gettext("Quantity in kg for %s"), [animal.label]));
      item.append(tick, label, quantity);
      return item;
    }));
  }

  function renderReference(reference, entries) {
    const villages = (reference && reference.villages) || [];
    options(document.getElementById("f-seizure_village"),
      villages.map((v) => ({ value: v.id, label: v.name })), true);
    const staff = (reference && reference.staff) || [];
    options(document.getElementById("seizers"), staff.map((s) => ({ value: s.name, label: s.name })), false);
    const animals = inPound(entries);
    options(document.getElementById("f-custody-animal"), animals, false);
    feedingRows(animals);
    // The past days with no feeding record, as the office knew them at the last connection.
    const gaps = (reference && reference.missing_feeding_days) || 0;
    const line = document.getElementById("feeding-gaps");
    line.hidden = !gaps;
    line.textContent = gaps ? interpolate(ngettext(
      "%s day without a feeding record in the last 30 days",
      "%s days without a feeding record in the last 30 days", gaps), [gaps]) : "";
  }

  scope.FieldScreens = { renderOutbox, renderReference, describe };
})(self);
