// Behaviour every page shares, in one small file (docs/decisions/0037).

// The menu button shows and hides the menu on a narrow screen (data-bs-toggle="collapse"): the
// one Bootstrap behaviour the pages use, so Bootstrap's own 80 KB script is not loaded.
document.addEventListener("click", (event) => {
  const button = event.target.closest('[data-bs-toggle="collapse"]');
  if (!button) return;
  const target = document.querySelector(button.getAttribute("data-bs-target"));
  if (!target) return;
  const open = target.classList.toggle("show");
  button.setAttribute("aria-expanded", open ? "true" : "false");
});

// A photo is made smaller on the phone before it goes up: at most 1600 px on its longer side,
// as an 80% JPEG. A phone camera's 4-12 MB becomes about 200-400 KB on a slow connection. The
// server still checks what it receives (kernel/uploads.py); if the browser cannot shrink the
// photo, the original goes up unchanged.
const PHOTO_MAX_PX = 1600;
const PHOTO_QUALITY = 0.8;

async function shrinkPhoto(input) {
  const file = input.files && input.files[0];
  if (!file || !file.type.startsWith("image/") || !window.createImageBitmap) return;
  input.dataset.shrinking = "1";
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, PHOTO_MAX_PX / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", PHOTO_QUALITY));
    if (blob && (blob.size < file.size || scale < 1)) {
      const name = file.name.replace(/\.[^.]*$/, "") + ".jpg";
      const smaller = new DataTransfer();
      smaller.items.add(new File([blob], name, { type: "image/jpeg", lastModified: file.lastModified }));
      input.files = smaller.files;
    }
  } catch (error) {
    // Not an image this browser can decode: the server will say so.
  } finally {
    delete input.dataset.shrinking;
    input.dataset.shrunk = "1";
  }
}

document.addEventListener("change", (event) => {
  const input = event.target;
  if (input.matches && input.matches('input[type="file"][accept^="image"]')) shrinkPhoto(input);
});

// Folded sections (<details data-open-wide>): a phone shows their summaries, a wide screen opens
// them all, and a link to one (#overdue) opens it before the page goes there.
function openFold(hash) {
  const fold = hash.length > 1 && document.getElementById(decodeURIComponent(hash.slice(1)));
  if (fold && fold.tagName === "DETAILS") fold.open = true;
}
if (window.matchMedia("(min-width: 992px)").matches) {
  document.querySelectorAll("details[data-open-wide]").forEach((fold) => { fold.open = true; });
}
openFold(window.location.hash);
window.addEventListener("hashchange", () => openFold(window.location.hash));

// A long form's parts strip (nav[data-form-steps]): the part in view is marked as the current
// step, and the count of animals follows "Add another animal".
const steps = document.querySelector("[data-form-steps]");
if (steps) {
  const links = [...steps.querySelectorAll('a[href^="#"]')];
  const parts = links.map((link) => document.getElementById(link.hash.slice(1))).filter(Boolean);
  const mark = () => {
    const edge = steps.getBoundingClientRect().bottom + 8;
    let current = parts[0];
    for (const part of parts) if (part.getBoundingClientRect().top <= edge) current = part;
    links.forEach((link) => {
      if (current && link.hash === "#" + current.id) link.setAttribute("aria-current", "step");
      else link.removeAttribute("aria-current");
    });
  };
  mark();
  window.addEventListener("scroll", mark, { passive: true });
  const count = steps.querySelector("[data-animal-count]");
  const animals = document.getElementById("animal-forms");
  if (count && animals) {
    new MutationObserver(() => {
      count.textContent = animals.querySelectorAll(".animal-form").length;
    }).observe(animals, { childList: true });
  }
}
