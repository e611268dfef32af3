// Replay viewer: steps through one game of a match (GET /api/v1/matches/{id}/replay/{game}) on a card
// table (table.js): every card once the match is over; while it runs, the finished games in the
// public view, with new games added as they finish and a reload when the match ends.
// Keys: ← → step, space plays or pauses, Home / End. The URL hash (#game=0&step=12&seat=1) names a
// step, and is kept up to date for sharing.
"use strict";
(function () {
  const root = document.getElementById("replay");
  if (!root) return;
  const matchId = root.dataset.match;
  const gameName = root.dataset.game;
  const slider = document.getElementById("replay-slider");
  const gameSelect = document.getElementById("replay-game");
  const viewSelect = document.getElementById("replay-view");
  const playButton = document.getElementById("replay-play");
  const speedSelect = document.getElementById("replay-speed");
  const link = document.getElementById("replay-link");
  let replay = null;
  let timer = null;

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

  function describe(action) {
    const { type, ...fields } = action;
    const details = Object.entries(fields).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(" ") : v}`).join(", ");
    return `${type}(${details})`;
  }

  /** What the table shows: the public view, plus every hidden card (view "all" of a finished
   * match) or one seat's observation (its own cards only). */
  function model(step) {
    const view = viewSelect.value;
    const seat = replay.reveal && view !== "all" ? Number(view) : null;
    return {
      names: replay.names,
      pub: replay.reveal ? step.public || step.observation || step.state : step.state,
      full: replay.reveal && seat === null ? step.state : null,
      obs: seat === null ? null : step.observation,
      seat,
      actor: step.seat === undefined ? null : step.seat,
      action: step.action,
    };
  }

  function hash() {
    const parts = [`game=${gameSelect.value}`, `step=${slider.value}`];
    if (viewSelect.value !== "all") parts.push(`seat=${viewSelect.value}`);
    return "#" + parts.join("&");
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
      stepBox.append(text("p", `Decision ${step.number}: seat ${step.seat} (${step.bot}) played ${describe(step.action)} in ${step.ms} ms` + (step.fallback ? " [fallback]" : "")));
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
    window.ArenaTable.render(document.getElementById("replay-table"), gameName, model(step));
    document.getElementById("replay-position").textContent = `step ${index} of ${replay.steps.length - 1}`;
    const here = hash();
    link.href = here;
    if (window.location.hash !== here) history.replaceState(null, "", here);
  }

  async function load(game, step) {
    const seat = viewSelect.value === "all" ? "" : `?seat=${viewSelect.value}`;
    const response = await fetch(`/api/v1/matches/${matchId}/replay/${game}${seat}`, { credentials: "same-origin" });
    const body = await response.json();
    if (!response.ok) { document.getElementById("replay-step").replaceChildren(text("p", body.error, "error")); return; }
    replay = body;
    slider.max = String(replay.steps.length - 1);
    const chosen = viewSelect.value;
    if (replay.reveal) {
      viewSelect.replaceChildren(new Option("everything", "all"));
      replay.names.forEach((name, s) => viewSelect.append(new Option(`as seat ${s} (${name})`, String(s))));
    } else {
      viewSelect.replaceChildren(new Option("public", "all"));
    }
    viewSelect.value = [...viewSelect.options].some((o) => o.value === chosen) ? chosen : "all";
    slider.value = String(Math.max(0, Math.min(replay.steps.length - 1, step)));
    const places = replay.result.ranks.map((rank, s) => `${replay.names[s]}: place ${rank + 1} (${replay.statuses[s]})`);
    document.getElementById("replay-result").replaceChildren(text("p", "Result: " + places.join(" · ")));
    render();
  }

  function go(index) {
    if (!replay) return;
    slider.value = String(Math.max(0, Math.min(replay.steps.length - 1, index)));
    render();
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    root.dataset.playing = "no";
  }

  function play() {
    if (!replay) return;
    if (Number(slider.value) >= replay.steps.length - 1) go(0);
    pause();
    playButton.textContent = "⏸ Pause";
    root.dataset.playing = "yes";
    timer = setInterval(() => {
      if (Number(slider.value) >= replay.steps.length - 1) { pause(); return; }
      go(Number(slider.value) + 1);
    }, Number(speedSelect.value));
  }

  function toggle() { if (timer === null) play(); else pause(); }

  /** The step a URL hash names: {game, step, seat} (seat "all" when it names none). */
  function fromHash() {
    const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    const game = params.get("game");
    const seat = params.get("seat");
    return {
      game: game !== null && [...gameSelect.options].some((o) => o.value === game) ? game : gameSelect.value,
      step: Number(params.get("step")) || 0,
      seat: seat !== null && /^\d+$/.test(seat) && root.dataset.status === "done" ? seat : "all",
    };
  }

  function open(target) {
    pause();
    gameSelect.value = target.game;
    if (target.seat !== "all" && ![...viewSelect.options].some((o) => o.value === target.seat)) viewSelect.append(new Option(`as seat ${target.seat}`, target.seat));
    viewSelect.value = target.seat;
    return load(target.game, target.step);
  }

  slider.addEventListener("input", render);
  document.getElementById("replay-prev").addEventListener("click", () => go(Number(slider.value) - 1));
  document.getElementById("replay-next").addEventListener("click", () => go(Number(slider.value) + 1));
  document.getElementById("replay-first").addEventListener("click", () => go(0));
  document.getElementById("replay-last").addEventListener("click", () => go(1e9));
  playButton.addEventListener("click", toggle);
  speedSelect.addEventListener("change", () => { if (timer !== null) play(); });
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && e.target !== slider)) return;
    const keys = {
      ArrowRight: () => go(Number(slider.value) + 1),
      ArrowLeft: () => go(Number(slider.value) - 1),
      Home: () => go(0),
      End: () => go(1e9),
      " ": toggle,
    };
    if (!keys[e.key]) return;
    e.preventDefault();
    if (e.key !== " ") pause();
    keys[e.key]();
  });
  gameSelect.addEventListener("change", () => { pause(); viewSelect.value = "all"; load(gameSelect.value, 0); });
  viewSelect.addEventListener("change", () => load(gameSelect.value, Number(slider.value)));
  window.addEventListener("hashchange", () => { if (window.location.hash !== hash()) open(fromHash()); });
  open(fromHash());

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
