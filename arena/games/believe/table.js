// Believe on the card table: every seat's hand (its cards by kind, or face down), the open pile with
// its claimed kind and its claims, the last call with the cards it turned up, and the places; on the
// play page, the calls' words and the placement picker (cards by kind, and a claim).
"use strict";
(function () {
  const T = window.ArenaTable;
  const KINDS = ["mushroom", "berry", "leaf", "acorn", "flower", "apple", "pear", "cherry"];
  const green = "#15803d";
  const PICTURES = [
    [["rect", { x: 16, y: 19, width: 8, height: 14, rx: 3, fill: "#f3e3c3", stroke: "#a8896b" }],
      ["path", { d: "M5 21 Q20 0 35 21 Z", fill: "#dc2626" }],
      ["circle", { cx: 14, cy: 14, r: 2.2, fill: "#fff" }], ["circle", { cx: 23, cy: 10, r: 2, fill: "#fff" }], ["circle", { cx: 27, cy: 17, r: 1.8, fill: "#fff" }]],
    [["path", { d: "M20 12 Q22 4 28 4", stroke: green, "stroke-width": 2, fill: "none" }],
      ["circle", { cx: 14, cy: 20, r: 7, fill: "#4338ca" }], ["circle", { cx: 26, cy: 20, r: 7, fill: "#5b21b6" }], ["circle", { cx: 20, cy: 30, r: 7, fill: "#3730a3" }],
      ["circle", { cx: 12, cy: 18, r: 1.6, fill: "#c7d2fe" }], ["circle", { cx: 24, cy: 18, r: 1.6, fill: "#ddd6fe" }]],
    [["path", { d: "M7 33 Q5 8 33 6 Q35 31 7 33 Z", fill: "#22c55e", stroke: green }],
      ["path", { d: "M7 33 L30 9 M15 25 L14 16 M21 19 L26 21", stroke: green, "stroke-width": 1.6, fill: "none" }]],
    [["rect", { x: 19, y: 3, width: 2.5, height: 6, fill: "#57534e" }],
      ["path", { d: "M12 24 Q12 36 20 37 Q28 36 28 24 Z", fill: "#c2410c" }],
      ["path", { d: "M8 19 Q20 2 32 19 Q32 24 20 24 Q8 24 8 19 Z", fill: "#78350f" }]],
    [["circle", { cx: 20, cy: 9, r: 7, fill: "#ec4899" }], ["circle", { cx: 31, cy: 17, r: 7, fill: "#f472b6" }], ["circle", { cx: 27, cy: 30, r: 7, fill: "#ec4899" }],
      ["circle", { cx: 13, cy: 30, r: 7, fill: "#f472b6" }], ["circle", { cx: 9, cy: 17, r: 7, fill: "#ec4899" }], ["circle", { cx: 20, cy: 20, r: 5.5, fill: "#facc15" }]],
    [["path", { d: "M20 12 Q19 6 16 4", stroke: "#57534e", "stroke-width": 2.2, fill: "none" }],
      ["ellipse", { cx: 26, cy: 8, rx: 6, ry: 3, fill: "#22c55e", transform: "rotate(-25 26 8)" }],
      ["path", { d: "M20 13 Q8 7 6 21 Q7 36 20 36 Q33 36 34 21 Q32 7 20 13 Z", fill: "#ef4444" }],
      ["ellipse", { cx: 13, cy: 19, rx: 2.5, ry: 4, fill: "#fca5a5" }]],
    [["path", { d: "M20 9 Q21 4 24 2", stroke: "#57534e", "stroke-width": 2.2, fill: "none" }],
      ["path", { d: "M20 8 Q14 8 14 16 Q14 20 10 25 Q6 37 20 37 Q34 37 30 25 Q26 20 26 16 Q26 8 20 8 Z", fill: "#a3c936" }],
      ["ellipse", { cx: 15, cy: 27, rx: 2.5, ry: 4, fill: "#d9f99d" }]],
    [["path", { d: "M12 27 Q15 13 25 5 M28 26 Q26 14 25 5", stroke: green, "stroke-width": 2, fill: "none" }],
      ["circle", { cx: 12, cy: 29, r: 7, fill: "#b91c1c" }], ["circle", { cx: 28, cy: 28, r: 7, fill: "#dc2626" }],
      ["circle", { cx: 10, cy: 27, r: 1.8, fill: "#fecaca" }], ["circle", { cx: 26, cy: 26, r: 1.8, fill: "#fecaca" }]],
  ];

  function kindName(kind) { return KINDS[kind] || `kind ${kind}`; }

  /** A card of a kind (0..7): its drawing and its name. */
  function kindCard(kind, extra) {
    const picture = PICTURES[kind] ? T.svg("0 0 40 40", PICTURES[kind], "pic") : null;
    const node = T.face(kindName(kind), picture, `bcard kind-${kind}` + (extra ? " " + extra : ""));
    node.dataset.kind = String(kind);
    return node;
  }

  /** A kind as a small badge (icon and name), for claims. */
  function kindBadge(kind) {
    const box = T.el("span", `kind-badge kind-${kind}`);
    if (PICTURES[kind]) box.append(T.svg("0 0 40 40", PICTURES[kind], "pic"));
    box.append(T.el("span", "", kindName(kind)));
    return box;
  }

  /** Cards (kind numbers) face up, one fan per kind so that a big hand stays readable. */
  function byKind(kinds, extra) {
    const groups = new Map();
    for (const kind of [...kinds].sort((a, b) => a - b)) {
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(kindCard(kind, extra));
    }
    const box = T.el("span", "kind-groups");
    for (const cards of groups.values()) {
      const group = T.el("span", "kind-group");
      group.append(T.fan(cards, "tight"));
      if (cards.length > 1) group.append(T.el("span", "group-count", `×${cards.length}`));
      box.append(group);
    }
    return box;
  }

  function hand(model, seat) {
    if (model.full) return byKind(model.full.hands[seat]);
    if (model.obs && model.seat === seat) return byKind(model.obs.hand.flatMap((count, kind) => Array(count).fill(kind)));
    return T.backs(model.pub.hand_counts[seat], "a card in hand");
  }

  function seatPanel(model, seat) {
    const pub = model.pub;
    const badges = [];
    if (pub.dealer === seat) badges.push(T.badge("dealer", "dealer"));
    if (pub.to_act === seat) badges.push(T.badge("to act", "to-act"));
    if (pub.places[seat]) badges.push(T.badge(`place ${pub.places[seat]}`, pub.places[seat] === 1 ? "win" : "muted-badge"));
    const panel = T.seatPanel(model, seat, badges, [T.zone(`hand (${pub.hand_counts[seat]})`, "hand", hand(model, seat))]);
    if (pub.places[seat]) panel.classList.add("finished");
    return panel;
  }

  function pile(model) {
    const pub = model.pub;
    const size = pub.claims.reduce((sum, claim) => sum + claim.size, 0);
    const box = T.el("div", "pile");
    box.dataset.count = String(size);
    box.dataset.kind = String(pub.pile_kind);
    if (!pub.pile_open) {
      box.append(T.el("span", "muted empty-note", pub.to_act >= 0 ? `no pile open: ${T.seatName(model, pub.to_act)} starts one` : "no pile"));
      return T.zone("the pile", "pile-zone", box);
    }
    const claims = T.el("div", "claims");
    pub.claims.forEach((claim, index) => {
      const row = T.el("div", "claim");
      row.dataset.seat = String(claim.seat);
      row.append(T.el("span", "claim-who", T.seatName(model, claim.seat)), T.el("span", "claim-size", `${claim.size} ×`), kindBadge(pub.pile_kind));
      const real = model.full ? model.full.pile[index] : null;
      if (real) row.append(T.fan(real.cards.map((kind) => kindCard(kind, "small peek")), "tight"));
      else row.append(T.backs(claim.size, "face down on the pile"));
      claims.append(row);
    });
    box.append(claims);
    const label = T.el("div", "tzone-label pile-label");
    label.append(T.el("span", "", `the pile: ${size} card${size === 1 ? "" : "s"} claimed as`), kindBadge(pub.pile_kind));
    const zone = T.el("div", "tzone pile-zone");
    zone.append(label, box);
    return zone;
  }

  function lastCall(model) {
    const pub = model.pub;
    if (!pub.checks.length) return null;
    const check = pub.checks[pub.checks.length - 1];
    const truth = check.revealed.every((kind) => kind === check.claimed_kind);
    const box = T.el("div", "call");
    box.dataset.calls = String(pub.checks.length);
    const text = `${T.seatName(model, check.caller)} ${check.believed ? "believed" : "did not believe"} ${T.seatName(model, check.placer)}'s ` +
      `${check.revealed.length} × ${kindName(check.claimed_kind)}: ${truth ? "true" : "a lie"}; ` +
      (check.taker < 0 ? `the pile (${check.pile_size}) leaves the game.` : `${T.seatName(model, check.taker)} takes the pile (${check.pile_size}).`);
    box.append(T.el("div", "call-text", text), T.fan(check.revealed.map((kind) => kindCard(kind, "revealed")), "tight"));
    return T.zone(`call ${pub.checks.length}`, "call-zone", box);
  }

  function felt(model) {
    const pub = model.pub;
    const center = T.el("div", "believe-felt");
    const discarded = pub.checks.filter((c) => c.taker < 0).reduce((sum, c) => sum + c.pile_size, 0);
    const head = T.el("div", "felt-head");
    head.append(T.stat("calls", pub.checks.length), T.stat("out of the game", discarded), T.stat("set aside", pub.set_aside));
    center.append(head, pile(model));
    const call = lastCall(model);
    if (call) center.append(call);
    if (pub.places.some((p) => p)) {
      const places = T.el("div", "places");
      pub.places.forEach((place, seat) => { if (place) places.append(T.badge(`${place}. ${T.seatName(model, seat)}`, place === 1 ? "win" : "muted-badge")); });
      center.append(T.zone("places", "places-zone", places));
    }
    return center;
  }

  /** The play page's words for the calls (a placement goes through the picker). */
  const CALLS = { Believe: "I believe", Disbelieve: "I don't believe" };

  /** The play page's placement, when the turn allows one: how many cards of each kind held, and the
   * claim (fixed once a pile is open). */
  function placePicker(page) {
    const obs = page.view.observation;
    const rule = page.view.turn.unlisted;
    if (!(rule && rule.max_cards > 0)) return null;
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
      input.setAttribute("aria-label", `${kindName(kind)}: cards to place (you hold ${held})`);
      inputs.push(input);
      row.append(kindCard(kind, "small"), T.el("span", "place-held", `×${held}`), input);
      counts.append(row);
    });
    const claim = T.el("select", "place-claim");
    claim.setAttribute("aria-label", "the kind you claim");
    obs.hand.forEach((_, kind) => {
      const option = T.el("option", "", kindName(kind));
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
      if (cards.length >= 1 && cards.length <= rule.max_cards) page.send({ type: "Place", cards, claim: Number(claim.value) });
    });
    const claimRow = T.el("label", "place-claim-row", "Claim: ");
    claimRow.append(claim);
    box.append(counts, claimRow, go, note);
    update();
    return box;
  }

  T.register("believe", (model) => {
    const panels = model.names.map((_, seat) => seatPanel(model, seat));
    return T.layout(model, panels, felt(model));
  }, { label: (action) => CALLS[action.type], picker: placePicker });
})();
