// Forms that go as soon as a choice changes (a <select data-submit-on-change>): the page's policy
// (Content-Security-Policy: script-src 'self') allows no inline event handler.
"use strict";
for (const field of document.querySelectorAll("[data-submit-on-change]")) {
  field.addEventListener("change", () => field.form.submit());
}
