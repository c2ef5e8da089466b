// The check-your-answers page: a signature pad (finger or mouse) and a confirm button that
// can be pressed once. The server is what makes a second press harmless; this only spares
// the claimant a confusing second page.
(function () {
  "use strict";
  var form = document.getElementById("confirm-form");
  var button = document.getElementById("confirm-button");
  if (form && button) {
    form.addEventListener("submit", function (event) {
      if (event.submitter === button) {
        window.setTimeout(function () { button.disabled = true; }, 0);
      }
    });
  }
  var canvas = document.getElementById("signature-pad");
  var field = document.getElementById("id_signature_data");
  if (!canvas || !field) { return; }
  var ctx = canvas.getContext("2d");
  var drawing = false, drawn = false;
  ctx.lineWidth = 2.5;
  ctx.lineCap = "round";
  ctx.strokeStyle = "#000";
  function point(event) {
    var rect = canvas.getBoundingClientRect();
    return {
      x: (event.clientX - rect.left) * (canvas.width / rect.width),
      y: (event.clientY - rect.top) * (canvas.height / rect.height)
    };
  }
  canvas.addEventListener("pointerdown", function (event) {
    drawing = true;
    canvas.setPointerCapture(event.pointerId);
    var p = point(event);
    ctx.beginPath();
    ctx.moveTo(p.x, p.y);
    event.preventDefault();
  });
  canvas.addEventListener("pointermove", function (event) {
    if (!drawing) { return; }
    var p = point(event);
    ctx.lineTo(p.x, p.y);
    ctx.stroke();
    drawn = true;
  });
  function stop() {
    if (drawing && drawn) { field.value = canvas.toDataURL("image/png"); }
    drawing = false;
  }
  canvas.addEventListener("pointerup", stop);
  canvas.addEventListener("pointercancel", stop);
  document.getElementById("signature-clear").addEventListener("click", function () {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    field.value = "";
    drawn = false;
  });
})();
