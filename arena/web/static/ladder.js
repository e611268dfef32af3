// Ladder page: follows the ladder as matches land. Every few seconds it asks for the game's revision
// (GET /api/v1/ladders/{game}/revision); when it has moved, it fetches this page's table
// (/ladder/{game}/table?page=N, and &q= for a search), puts it in place of the old one in one step (a link that had the
// keyboard's focus keeps it), and says so in the status line (a polite live region of a fixed height).
"use strict";
(function () {
  const body = document.getElementById("ladder-body");
  if (!body) return;
  const status = document.getElementById("ladder-status");
  const game = encodeURIComponent(body.dataset.game);
  const page = encodeURIComponent(body.dataset.page);
  const search = body.dataset.q ? `&q=${encodeURIComponent(body.dataset.q)}` : "";
  let revision = Number(body.dataset.revision);
  let checking = false;

  async function check() {
    if (checking || document.hidden) return;
    checking = true;
    try {
      const reply = await fetch(`/api/v1/ladders/${game}/revision`, { cache: "no-store" });
      if (!reply.ok) return;
      const latest = (await reply.json()).revision;
      if (latest === revision) return;
      const table = await fetch(`/ladder/${game}/table?page=${page}${search}`, { cache: "no-store" });
      if (!table.ok) {
        status.textContent = "The ladder has changed, but this page of it could not be read: reload the page.";
        return;
      }
      const focused = body.contains(document.activeElement) ? document.activeElement.getAttribute("href") : null;
      body.innerHTML = await table.text();
      if (focused) body.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus(); // keep the keyboard's place
      revision = latest;
      status.textContent = `Updated at ${new Date().toLocaleTimeString()}.`;
    } catch (error) {
      // the server is out of reach for now: the next check tries again
    } finally {
      checking = false;
    }
  }

  setInterval(check, 2500);
})();
