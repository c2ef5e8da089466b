// A photo is shrunk when it is taken (issue 22): at most 1280 px on its longer side, as a JPEG.
// Drawing it on a canvas and encoding it again drops its EXIF data (the place and the camera);
// the date and place the keeper needs are kept as fields of the photo's record instead.
(function (scope) {
  "use strict";
  const LONGEST_SIDE = 1280;
  const QUALITIES = [0.8, 0.7, 0.6, 0.5];
  const MOST_BYTES = 380 * 1024;

  function encode(canvas, quality) {
    return new Promise((done) => canvas.toBlob(done, "image/jpeg", quality));
  }

  async function shrink(file) {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, LONGEST_SIDE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    let blob = null;
    for (const quality of QUALITIES) {
      blob = await encode(canvas, quality);
      if (blob && blob.size <= MOST_BYTES) break;
    }
    return { blob, width: canvas.width, height: canvas.height };
  }

  // An ear tag's barcode read from a photo of it: by the browser's BarcodeDetector where it has
  // one (Chrome on Android), else by the vendored ZXing build (static/vendor/zxing), loaded the
  // first time it is needed and kept by the service worker for the days without signal. Where
  // neither can be had, the keeper types the tag. The number is the digits of what it reads.
  let fallback = null;

  function loadFallback(scanner) {
    if (!fallback) {
      fallback = new Promise((resolve, reject) => {
        if (scope.BarcodeDetectionAPI) return resolve(scope.BarcodeDetectionAPI);
        const script = document.createElement("script");
        script.src = scanner.script;
        script.onload = () => resolve(scope.BarcodeDetectionAPI);
        script.onerror = () => reject(new Error("the scanner could not be loaded"));
        document.head.appendChild(script);
      }).then((api) => {
        api.setZXingModuleOverrides({
          locateFile: (path, prefix) => (path.endsWith(".wasm") ? scanner.wasm : prefix + path),
        });
        return api;
      });
      fallback.catch(() => { fallback = null; });  // tried again on the next scan
    }
    return fallback;
  }

  function canScan(scanner = scope.FieldScanner) {
    return "BarcodeDetector" in scope || Boolean(scanner && scanner.script);
  }

  async function detector(scanner = scope.FieldScanner) {
    if ("BarcodeDetector" in scope) return new scope.BarcodeDetector();
    const api = await loadFallback(scanner);
    return new api.BarcodeDetector();
  }

  async function readTag(file, scanner = scope.FieldScanner) {
    const reader = await detector(scanner);
    const bitmap = await createImageBitmap(file);
    try {
      const found = await reader.detect(bitmap);
      const digits = found.map((code) => (code.rawValue || "").replace(/\D/g, "")).find(Boolean);
      return digits || null;
    } finally {
      bitmap.close();
    }
  }

  scope.FieldPhotos = { shrink, canScan, readTag, LONGEST_SIDE };
})(self);
