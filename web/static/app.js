// Progressive enhancement only: the page works without this file.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    var box = document.getElementById("q");
    if (event.key === "/" && box && document.activeElement !== box &&
        !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });
  // Filters apply as soon as a box is ticked; the Apply button stays for keyboard users.
  document.querySelectorAll(".facet-form input[type=checkbox]").forEach(function (box) {
    box.addEventListener("change", function () { box.form.submit(); });
  });
})();
