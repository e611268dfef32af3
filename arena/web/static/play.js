// A person's seat at the card table (table.js): the seat's view comes over server-sent events
// (GET /play/{id}/events; an EventSource reconnects by itself), a move goes as a POST
// (/play/{id}/act) with the session's CSRF token. Only the legal moves are offered: a button per move
// in games that list them, and the game's own picker where it has one (believe's placement). The
// game's table.js gives its moves' words, its picker and its extra panels (table.js's header says
// how); a game that gives none gets generic words. Keys: Tab and Enter/Space, and 1-9 for the first
// nine moves. window.arenaPlay.messages keeps what the page was sent (the last 1000), to read in the
// browser's console.
"use strict";
(function () {
  const root = document.getElementById("play");
  if (!root) return;
  const T = window.ArenaTable;
  const matchId = root.dataset.match;
  const gameName = root.dataset.game;
  const game = T.playParts(gameName);
  const csrf = root.dataset.csrf;
  const statusBox = document.getElementById("play-status");
  const clockBox = document.getElementById("play-clock");
  const actionsBox = document.getElementById("play-actions");
  const errorBox = document.getElementById("play-error");
  const tableBox = document.getElementById("play-table");
  const resultBox = document.getElementById("play-result");
  const messages = [];
  window.arenaPlay = { messages };
  let deadline = null;
  let shownTurn = null;
  let current = null;

  function seatName(data, seat) {
    return seat === data.seat ? "you" : data.names[seat] || `seat ${seat}`;
  }

  function post(data, action) {
    for (const control of actionsBox.querySelectorAll("button, input, select")) control.disabled = true;
    errorBox.textContent = "";
    fetch(`/play/${matchId}/act`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ decision: data.turn.number, action }),
      credentials: "same-origin",
    }).then(async (response) => {
      if (response.ok) {
        if (current && current.turn && current.turn.number === data.turn.number) statusBox.textContent = "Move sent…";
        return;
      }
      if (response.status === 429) { setTimeout(() => post(data, action), 1000); return; } // too fast: once more
      let message = `the move was refused (${response.status})`;
      try { message = (await response.json()).error || message; } catch (error) { /* not JSON */ }
      errorBox.textContent = message;
      for (const control of actionsBox.querySelectorAll("button, input, select")) control.disabled = false;
    }).catch(() => {
      errorBox.textContent = "the move could not be sent: check the connection and try again";
      for (const control of actionsBox.querySelectorAll("button, input, select")) control.disabled = false;
    });
  }

  /** What the game's parts of the page are given (table.js's header): this message, the seats'
   * names as the person reads them, and the way to make a move. */
  function pageOf(data) {
    return { view: data, name: (seat) => seatName(data, seat), send: (action) => post(data, action) };
  }

  /** What a move's button shows: the game's words for it (and the cards it plays, where it shows
   * them), else the move's type and its fields' values. */
  function label(page, action) {
    const own = game.label(action, page);
    const [words, ...more] = own === undefined || own === null ? [generic(action)] : [].concat(own);
    const box = T.el("span", "act-label");
    box.append(T.el("span", "act-words", words), ...more);
    return box;
  }

  function generic(action) {
    const { type, ...fields } = action;
    return `${type} ${Object.values(fields).join(" ")}`;
  }

  function button(page, action, index) {
    const node = T.el("button", `act act-${action.type}`);
    node.type = "button";
    node.dataset.action = JSON.stringify(action);
    if (index < 9) node.append(T.el("kbd", "act-key", String(index + 1)));
    node.append(label(page, action));
    node.addEventListener("click", () => page.send(action));
    return node;
  }

  function renderActions(page) {
    const data = page.view;
    actionsBox.replaceChildren();
    if (!data.turn) return;
    actionsBox.append(T.el("h2", "play-title", "Your move"));
    const list = T.el("div", "act-list");
    data.turn.legal.forEach((action, index) => list.append(button(page, action, index)));
    actionsBox.append(list);
    const picker = game.picker(page);
    if (picker) actionsBox.append(picker);
    if (shownTurn !== data.turn.number) {
      shownTurn = data.turn.number;
      const first = actionsBox.querySelector("button:not(:disabled), input");
      if (first) first.focus({ preventScroll: true });
    }
  }

  function renderResult(data) {
    resultBox.replaceChildren();
    if (!data.result) return;
    const ranks = data.result.ranks;
    const best = ranks.indexOf(Math.min(...ranks));
    const box = T.el("section", "play-result");
    const mine = ranks[data.seat];
    const places = [...new Set(ranks)].sort((a, b) => a - b);
    box.append(T.el("h2", "", `Game over: you placed ${places.indexOf(mine) + 1} of ${ranks.length}` + (best === data.seat || mine === ranks[best] ? " (a win!)" : "")));
    const table = T.el("table", "play-scores");
    const head = T.el("tr");
    for (const title of ["seat", "player", "place", "score", "status"]) head.append(T.el("th", "", title));
    table.append(head);
    ranks.forEach((rank, seat) => {
      const row = T.el("tr", seat === data.seat ? "me" : "");
      row.append(T.el("td", "num", seat), T.el("td", "", seat === data.seat ? `${data.names[seat]} (you)` : data.names[seat]),
        T.el("td", "num", places.indexOf(rank) + 1), T.el("td", "num", data.result.scores[seat]), T.el("td", "", data.statuses[seat] || ""));
      table.append(row);
    });
    box.append(table);
    if (data.over) {
      const link = T.el("a", "replay-link", "See the replay of your game");
      link.href = `/matches/${matchId}`;
      box.append(link);
    }
    resultBox.append(box);
  }

  function renderStatus(data) {
    const obs = data.observation;
    if (data.over) statusBox.textContent = data.note ? `The game is over: ${data.note}` : "The game is over and recorded.";
    else if (data.turn) statusBox.textContent = "Your move.";
    else if (data.result) statusBox.textContent = "The game is over: recording it…";
    else if (obs && obs.to_act >= 0) statusBox.textContent = `Waiting for ${seatName(data, obs.to_act)}…`;
    else statusBox.textContent = "Dealing…";
    if (data.note && !data.over) errorBox.textContent = data.note;
  }

  function tick() {
    if (deadline === null) { clockBox.hidden = true; return; }
    const left = Math.max(0, deadline - performance.now());
    const seconds = Math.ceil(left / 1000);
    clockBox.hidden = false;
    clockBox.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    clockBox.classList.toggle("low", seconds <= 10);
  }

  function show(data) {
    if (current && current.seq === data.seq) { // the same view again, after a reconnection
      deadline = data.turn ? performance.now() + data.turn.left_ms : null;
      renderStatus(data);
      return;
    }
    current = data;
    messages.push(data);
    if (messages.length > 1000) messages.shift();
    root.dataset.seq = String(data.seq);
    root.dataset.over = data.over ? "true" : "false";
    deadline = data.turn ? performance.now() + data.turn.left_ms : null;
    tick();
    renderStatus(data);
    if (data.observation) {
      T.render(tableBox, gameName, { names: data.names.map((name, seat) => (seat === data.seat ? `${name} (you)` : name)),
        pub: data.observation, full: null, obs: data.observation, seat: data.seat, actor: null });
    }
    const page = pageOf(data);
    renderActions(page);
    const extra = game.extra(page);
    if (extra) tableBox.append(extra);
    renderResult(data);
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !current || !current.turn) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (!/^[1-9]$/.test(event.key)) return;
    const buttons = actionsBox.querySelectorAll(".act-list .act");
    const chosen = buttons[Number(event.key) - 1];
    if (chosen && !chosen.disabled) { event.preventDefault(); chosen.click(); }
  });

  let source = null;
  function connect() {
    source = new EventSource(`/play/${matchId}/events`);
    source.addEventListener("view", (event) => {
      const data = JSON.parse(event.data);
      show(data);
      if (data.over) source.close();
    });
    source.addEventListener("replaced", () => {
      source.close();
      statusBox.textContent = "This game is open in another tab or window.";
      const here = T.el("button", "act", "Play here");
      here.type = "button";
      here.addEventListener("click", () => { errorBox.textContent = ""; connect(); });
      actionsBox.replaceChildren(here);
      deadline = null;
      tick();
    });
    source.addEventListener("error", () => {
      if (current && current.over) return;
      if (source.readyState === EventSource.CLOSED) {
        statusBox.textContent = "This game is no longer in play here.";
        const link = T.el("a", "", "its match page");
        link.href = `/matches/${matchId}`;
        errorBox.replaceChildren("The connection is closed: see ", link, ".");
      } else { // a stream ends now and then, and the page connects again at once: say so if it takes long
        const lost = source;
        setTimeout(() => {
          if (lost === source && lost.readyState !== EventSource.OPEN && !(current && current.over)) {
            statusBox.textContent = "Connection lost: reconnecting…";
          }
        }, 3000);
      }
    });
  }
  setInterval(tick, 250);
  connect();
})();
