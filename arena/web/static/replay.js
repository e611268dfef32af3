// Replay viewer: steps through one game of a match (GET /api/v1/matches/{id}/replay/{game}): every card
// once the match is over; while it runs, the finished games in the public view, with new games added
// as they finish and a reload when the match ends.
"use strict";
(function () {
  const root = document.getElementById("replay");
  if (!root) return;
  const matchId = root.dataset.match;
  const slider = document.getElementById("replay-slider");
  const gameSelect = document.getElementById("replay-game");
  const viewSelect = document.getElementById("replay-view");
  let replay = null;

  function text(tag, content, cls) {
    const el = document.createElement(tag);
    el.textContent = content;
    if (cls) el.className = cls;
    return el;
  }

  function show(value) {
    if (Array.isArray(value)) {
      if (value.every((v) => v === null || typeof v !== "object")) return text("span", value.join(" ") || "—");
      const list = document.createElement("ol");
      list.start = 0;
      value.forEach((item) => { const li = document.createElement("li"); li.append(show(item)); list.append(li); });
      return list;
    }
    if (value !== null && typeof value === "object") {
      const dl = document.createElement("dl");
      dl.className = "kv";
      for (const [key, item] of Object.entries(value)) { dl.append(text("dt", key)); const dd = document.createElement("dd"); dd.append(show(item)); dl.append(dd); }
      return dl;
    }
    return text("span", String(value));
  }

  function render() {
    const index = Number(slider.value);
    const step = replay.steps[index];
    const stepBox = document.getElementById("replay-step");
    stepBox.replaceChildren();
    if (step.number < 0) {
      stepBox.append(text("p", "The deal, before the first decision."));
    } else if (!replay.reveal) {
      stepBox.append(text("p", `Public change ${step.number + 1}: what everyone at the table saw change.`));
    } else {
      const { type, ...fields } = step.action;
      const details = Object.entries(fields).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(" ") : v}`).join(", ");
      stepBox.append(text("p", `Decision ${step.number}: seat ${step.seat} (${step.bot}) played ${type}(${details}) in ${step.ms} ms` + (step.fallback ? " [fallback]" : "")));
      if (step.fault) stepBox.append(text("p", step.fault, "fault"));
    }
    const view = viewSelect.value;
    const title = document.getElementById("replay-state-title");
    if (!replay.reveal) {
      title.textContent = "Public view after this step (the match is running: no hidden cards)";
      document.getElementById("replay-state").replaceChildren(show(step.state));
    } else if (view === "all") {
      title.textContent = "State after this step (every card: the match is over)";
      document.getElementById("replay-state").replaceChildren(show(step.state));
    } else {
      title.textContent = `What seat ${view} (${replay.names[Number(view)]}) saw after this step`;
      document.getElementById("replay-state").replaceChildren(show(step.observation));
    }
    document.getElementById("replay-position").textContent = `step ${index} of ${replay.steps.length - 1}`;
  }

  async function load(game, keepStep) {
    const seat = viewSelect.value === "all" ? "" : `?seat=${viewSelect.value}`;
    const response = await fetch(`/api/v1/matches/${matchId}/replay/${game}${seat}`, { credentials: "same-origin" });
    const body = await response.json();
    if (!response.ok) { document.getElementById("replay-step").replaceChildren(text("p", body.error, "error")); return; }
    const step = keepStep ? Number(slider.value) : 0;
    replay = body;
    slider.max = String(replay.steps.length - 1);
    const chosen = viewSelect.value;
    if (replay.reveal) {
      viewSelect.replaceChildren(new Option("everything", "all"));
      replay.names.forEach((name, seat) => viewSelect.append(new Option(`as seat ${seat} (${name})`, String(seat))));
    } else {
      viewSelect.replaceChildren(new Option("public", "all"));
    }
    viewSelect.value = chosen;
    slider.value = String(step);
    const places = replay.result.ranks.map((rank, seat) => `${replay.names[seat]}: place ${rank + 1} (${replay.statuses[seat]})`);
    document.getElementById("replay-result").replaceChildren(text("p", places.join(" · ")));
    render();
  }

  function go(index) { if (!replay) return; slider.value = String(Math.max(0, Math.min(replay.steps.length - 1, index))); render(); }
  slider.addEventListener("input", render);
  document.getElementById("replay-prev").addEventListener("click", () => go(Number(slider.value) - 1));
  document.getElementById("replay-next").addEventListener("click", () => go(Number(slider.value) + 1));
  document.getElementById("replay-first").addEventListener("click", () => go(0));
  document.getElementById("replay-last").addEventListener("click", () => go(1e9));
  document.addEventListener("keydown", (e) => { if (e.key === "ArrowRight") go(Number(slider.value) + 1); if (e.key === "ArrowLeft") go(Number(slider.value) - 1); });
  gameSelect.addEventListener("change", () => { viewSelect.value = "all"; load(gameSelect.value, false); });
  viewSelect.addEventListener("change", () => load(gameSelect.value, true));
  load(gameSelect.value, false);

  async function follow() {
    const response = await fetch(`/api/v1/matches/${matchId}`, { credentials: "same-origin" });
    if (!response.ok) return;
    const match = await response.json();
    if (match.status !== "running") { window.location.reload(); return; }
    for (const game of match.games.slice(gameSelect.options.length)) {
      gameSelect.append(new Option(`${game.index} (${game.seats.join(", ")})`, String(game.index)));
    }
  }
  if (root.dataset.status === "running") setInterval(follow, 2000);
})();
