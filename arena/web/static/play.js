// A person's seat at the card table (table.js): the seat's view comes over server-sent events
// (GET /play/{id}/events; an EventSource reconnects by itself), a move goes as a POST
// (/play/{id}/act) with the session's CSRF token. Only the legal moves are offered: a button per move
// in games that list them, and believe's placement picker (cards by kind, a claim). Keys: Tab and
// Enter/Space, and 1-9 for the first nine moves. window.arenaPlay.messages keeps what the page was
// sent (the last 1000), to read in the browser's console.
"use strict";
(function () {
  const root = document.getElementById("play");
  if (!root) return;
  const T = window.ArenaTable;
  const matchId = root.dataset.match;
  const gameName = root.dataset.game;
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

  function kozelCards(cards) {
    return T.fan(cards.map((code) => T.kozelCard(code, "small")), "spread");
  }

  /** What a move's button shows: words, and the cards it plays where there are any. */
  function label(data, action) {
    const box = T.el("span", "act-label");
    const words = (text) => box.append(T.el("span", "act-words", text));
    const t = action.type;
    if (gameName === "kozel") {
      const verbs = { Lead: "Lead", Beat: "Beat with", Discard: "Discard face down", Molodka: "Declare a molodka:", Decline: "No molodka" };
      words(verbs[t] || t);
      if (action.cards && action.cards.length) box.append(kozelCards(action.cards));
    } else if (gameName === "edible") {
      if (t === "Place") words(`Place a ${action.card}`);
      else if (t === "Bid") words(`Bid ${action.count}`);
      else if (t === "Pass") words("Pass");
      else if (t === "Flip") words(`Turn over ${seatName(data, action.seat)}'s card ${action.position + 1}`);
      else if (t === "PickBlind") words(`Take hidden card ${action.position + 1}`);
      else if (t === "Discard") words(`Lose a ${action.card}`);
      else if (t === "NameFirst") words(`${seatName(data, action.seat)} starts the next round`);
      else words(t);
    } else if (t === "Believe") {
      words("I believe");
    } else if (t === "Disbelieve") {
      words("I don't believe");
    } else {
      const { type, ...fields } = action;
      words(`${type} ${Object.values(fields).join(" ")}`);
    }
    return box;
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

  function button(data, action, index) {
    const node = T.el("button", `act act-${action.type}`);
    node.type = "button";
    node.dataset.action = JSON.stringify(action);
    if (index < 9) node.append(T.el("kbd", "act-key", String(index + 1)));
    node.append(label(data, action));
    node.addEventListener("click", () => post(data, action));
    return node;
  }

  /** Believe's placement: how many cards of each kind held, and the claim (fixed once a pile is open). */
  function placePicker(data) {
    const obs = data.observation;
    const rule = data.turn.place;
    const box = T.el("fieldset", "place-picker");
    box.append(T.el("legend", "", `Place 1 to ${rule.max_cards} cards face down, and claim their kind`));
    const counts = T.el("div", "place-kinds");
    const inputs = [];
    obs.hand.forEach((held, kind) => {
      if (!held) return;
      const row = T.el("label", "place-kind");
      const input = T.el("input", "place-count");
      input.type = "number";
      input.min = "0";
      input.max = String(Math.min(held, rule.max_cards));
      input.value = "0";
      input.dataset.kind = String(kind);
      input.setAttribute("aria-label", `${T.believeKindName(kind)}: cards to place (you hold ${held})`);
      inputs.push(input);
      row.append(T.believeCard(kind, "small"), T.el("span", "place-held", `×${held}`), input);
      counts.append(row);
    });
    const claim = T.el("select", "place-claim");
    claim.setAttribute("aria-label", "the kind you claim");
    obs.hand.forEach((_, kind) => {
      const option = T.el("option", "", T.believeKindName(kind));
      option.value = String(kind);
      claim.append(option);
    });
    if (rule.kind_fixed) { claim.value = String(obs.pile_kind); claim.disabled = true; }
    const go = T.el("button", "act act-Place", "Place");
    go.type = "button";
    const note = T.el("span", "muted place-note");
    function chosen() {
      const cards = [];
      for (const input of inputs) {
        const n = Math.max(0, Math.min(Number(input.max), Math.floor(Number(input.value) || 0)));
        for (let i = 0; i < n; i++) cards.push(Number(input.dataset.kind));
      }
      return cards;
    }
    function update() {
      const n = chosen().length;
      go.disabled = n < 1 || n > rule.max_cards;
      go.textContent = n === 1 ? "Place 1 card" : `Place ${n} cards`;
      note.textContent = n > rule.max_cards ? `at most ${rule.max_cards}` : "";
    }
    for (const input of inputs) input.addEventListener("input", update);
    go.addEventListener("click", () => {
      const cards = chosen();
      if (cards.length >= 1 && cards.length <= rule.max_cards) post(data, { type: "Place", cards, claim: Number(claim.value) });
    });
    const claimRow = T.el("label", "place-claim-row", "Claim: ");
    claimRow.append(claim);
    box.append(counts, claimRow, go, note);
    update();
    return box;
  }

  function renderActions(data) {
    actionsBox.replaceChildren();
    if (!data.turn) return;
    actionsBox.append(T.el("h2", "play-title", "Your move"));
    const list = T.el("div", "act-list");
    data.turn.legal.forEach((action, index) => list.append(button(data, action, index)));
    actionsBox.append(list);
    if (data.turn.place && data.turn.place.max_cards > 0) actionsBox.append(placePicker(data));
    if (shownTurn !== data.turn.number) {
      shownTurn = data.turn.number;
      const first = actionsBox.querySelector("button:not(:disabled), input");
      if (first) first.focus({ preventScroll: true });
    }
  }

  /** Kozel: the last trick taken, as every seat saw it (its discards face down), since the bots'
   * plays that close a trick come all at once. */
  function lastTrick(data) {
    const obs = data.observation;
    if (gameName !== "kozel" || !obs || !obs.tricks || !obs.tricks.length) return null;
    const trick = obs.tricks[obs.tricks.length - 1];
    const box = T.el("section", "play-last-trick");
    box.append(T.el("h2", "play-title", `Last trick: ${seatName(data, trick.winner)} took it`));
    const plays = T.el("div", "act-list");
    for (const entry of trick.plays) {
      const play = T.el("div", "play-last");
      play.append(T.el("div", "play-last-who", seatName(data, entry.seat) + (entry.molodka ? " (molodka)" : "")));
      if (entry.discarded > 0) play.append(T.backs(entry.discarded, "discarded face down"));
      else play.append(kozelCards(entry.cards));
      plays.append(play);
    }
    box.append(plays);
    return box;
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
    renderActions(data);
    const trick = lastTrick(data);
    if (trick) tableBox.append(trick);
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
