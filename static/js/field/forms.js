// The field app's forms: what they hold as an API body, filled again to correct a record, and the
// server's field errors shown beside the fields they name (api/common.py's problem JSON).
(function (scope) {
  "use strict";
  const ENTRY_FIELDS = [
    "seized_at", "arrived_at", "seizure_place", "seizure_village", "basis", "basis_other",
    "seizer_name", "seizer_residence", "seizer_capacity", "owner_name",
  ];
  // The ear tag's check-digit warning is the server's (impounding/tags.py): a tag that fails it
  // comes back to be fixed, or confirmed as it reads.
  const ANIMAL_FIELDS = ["species", "sex", "age_class", "colour", "marks", "ear_tag", "tag_confirmed"];

  // Dates are typed day first (ADR 0081), whatever the phone's locale: 03-12-2026, 3/12/2026,
  // 03.12.2026 or 03122026, with a time 03-12-2026 14:30; the API takes them as ISO
  // (2026-12-03, 2026-12-03T14:30). The ISO forms are taken too.
  const SEP = "[\\s\\-/.]+";
  const DMY = new RegExp("^(\\d{1,2})" + SEP + "(\\d{1,2})" + SEP + "(\\d{4})$");
  const DAY_TIME = new RegExp(
    "^(\\d{1,2}" + SEP + "\\d{1,2}" + SEP + "\\d{4}|\\d{8}|\\d{4}-\\d{2}-\\d{2})(?:" + SEP + "|,\\s*|T)(\\d{1,2})[:.]?(\\d{2})$",
  );
  const pad = (n) => String(n).padStart(2, "0");

  function isoDay(text) {
    text = (text || "").trim();
    let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    let d, mo, y;
    if (m) [y, mo, d] = [m[1], m[2], m[3]].map(Number);
    else if ((m = DMY.exec(text) || /^(\d{2})(\d{2})(\d{4})$/.exec(text))) [d, mo, y] = [m[1], m[2], m[3]].map(Number);
    else return null;
    const day = new Date(Date.UTC(y, mo - 1, d));
    if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
    return y + "-" + pad(mo) + "-" + pad(d);
  }

  function isoDayTime(text) {
    const m = DAY_TIME.exec((text || "").trim());
    const day = m && isoDay(m[1]);
    if (!day || Number(m[2]) > 23 || Number(m[3]) > 59) return null;
    return day + "T" + pad(m[2]) + ":" + m[3];
  }

  // 2026-12-03 or 2026-12-03T14:30 as the pages print them: 03-12-2026, 03-12-2026 14:30.
  function showDay(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}:\d{2}))?/.exec(iso || "");
    if (!m) return iso || "";
    return m[3] + "-" + m[2] + "-" + m[1] + (m[4] ? " " + m[4] : "");
  }

  function today() {
    const now = new Date();
    return pad(now.getDate()) + "-" + pad(now.getMonth() + 1) + "-" + now.getFullYear();
  }

  function field(form, name) {
    return form.querySelector('[name="' + name + '"]');
  }

  function animalBlocks(form) {
    return Array.from(form.querySelectorAll("[data-animal]"));
  }

  // A new animal's fieldset, from the template: its fields are named as the API names them
  // (animals.0.colour), so an error the server names lands beside its field.
  function addAnimal(form) {
    const box = form.querySelector("#animals");
    const index = animalBlocks(form).length;
    const block = form.querySelector("#animal-template").content.firstElementChild.cloneNode(true);
    block.querySelector("[data-animal-title]").textContent =
      interpolate(gettext("Animal %s"), [index + 1]);
    for (const input of block.querySelectorAll("[data-name]")) {
      const name = input.dataset.name;
      input.id = "f-animals-" + index + "-" + name;
      input.name = name === "photo" || name === "scan" ? "" : "animals." + index + "." + name;
      block.querySelector('[data-for="' + name + '"]').htmlFor = input.id;
    }
    block.querySelector("[data-scan]").hidden = !scope.FieldPhotos.canScan();
    box.appendChild(block);
    return block;
  }

  function value(form, name) {
    const input = field(form, name);
    if (!input) return "";
    if (input.dataset.date === "day") return isoDay(input.value) || input.value.trim();
    if (input.dataset.date === "daytime") return isoDayTime(input.value) || input.value.trim();
    return input.type === "checkbox" ? input.checked : input.value.trim();
  }

  function entryBody(form) {
    const body = {};
    for (const name of ENTRY_FIELDS) body[name] = value(form, name);
    body.seizure_village = body.seizure_village ? Number(body.seizure_village) : null;
    body.seizer_residence = body.seizer_residence || "";
    body.animals = animalBlocks(form).map((block, i) => {
      const animal = {};
      for (const name of ANIMAL_FIELDS) animal[name] = value(form, "animals." + i + "." + name);
      return animal;
    });
    return body;
  }

  function fillEntry(form, body) {
    form.reset();
    animalBlocks(form).forEach((block) => block.remove());
    for (const name of ENTRY_FIELDS) {
      const input = field(form, name);
      if (!input || !(name in body)) continue;
      const given = body[name] === null ? "" : body[name];
      input.value = input.dataset.date ? showDay(given) : given;
    }
    (body.animals || []).forEach((animal, i) => {
      addAnimal(form);
      for (const name of ANIMAL_FIELDS) {
        const input = field(form, "animals." + i + "." + name);
        if (input.type === "checkbox") input.checked = Boolean(animal[name]);
        else input.value = animal[name] === undefined ? "" : animal[name];
      }
    });
    if (!animalBlocks(form).length) addAnimal(form);
  }

  function clearErrors(form) {
    form.querySelectorAll(".field-error").forEach((e) => e.remove());
    form.querySelectorAll("[aria-invalid]").forEach((input) => {
      input.removeAttribute("aria-invalid");
      if (input.dataset.hint) input.setAttribute("aria-describedby", input.dataset.hint);
      else input.removeAttribute("aria-describedby");
      input.classList.remove("is-invalid");
    });
    form.querySelectorAll("[data-errors-for]").forEach((box) => {
      box.hidden = true;
      box.textContent = "";
    });
  }

  // Each error beside its field; one the form has no field for, at the top of the form.
  function showErrors(form, errors) {
    clearErrors(form);
    let first = null;
    errors.forEach((error, i) => {
      const input = field(form, error.field);
      if (!input) {
        const box = form.querySelector('[data-errors-for="' + error.field + '"]') ||
          form.querySelector('[data-errors-for="request"]');
        const line = document.createElement("p");
        line.className = "mb-0 field-error";
        line.textContent = error.message;
        box.appendChild(line);
        box.hidden = false;
        first = first || box;
        return;
      }
      const note = document.createElement("div");
      note.className = "invalid-feedback d-block field-error";
      note.id = input.id + "-error-" + i;
      note.textContent = error.message;
      input.insertAdjacentElement("afterend", note);
      input.classList.add("is-invalid");
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", note.id + (input.dataset.hint ? " " + input.dataset.hint : ""));
      first = first || input;
    });
    return first;
  }

  // The browser's own check of a required field, before anything is saved.
  function missing(form) {
    const errors = [];
    for (const input of form.querySelectorAll("[required]")) {
      if (input.name && !input.value.trim()) {
        errors.push({ field: input.name, message: gettext("This field is required.") });
      }
    }
    for (const input of form.querySelectorAll("[data-date]")) {
      const text = input.value.trim();
      if (!text) continue;
      const daytime = input.dataset.date === "daytime" && DAY_TIME.exec(text);
      const day = daytime ? daytime[1] : text;
      if ((daytime || DMY.test(text) || /^\d{8}$/.test(text)) && !isoDay(day)) {
        // The shape of a date, but no such day (29-02-2027, 31-04-2026).
        const said = gettext("There is no such date as %s. Check the day and the month.");
        errors.push({ field: input.name, message: interpolate(said, [day]) });
      } else if (input.dataset.date === "day" && !isoDay(text)) {
        errors.push({ field: input.name, message: gettext("Enter the date as day-month-year, for example 03-12-2026.") });
      } else if (input.dataset.date === "daytime" && !isoDayTime(text)) {
        errors.push({ field: input.name, message: gettext("Enter the date and the time as day-month-year hours:minutes, for example 03-12-2026 14:30.") });
      }
    }
    return errors;
  }

  scope.FieldForms = {
    addAnimal, entryBody, fillEntry, showErrors, clearErrors, missing, value, isoDay, isoDayTime, showDay, today,
  };
})(self);
