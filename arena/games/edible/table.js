// Edible on the card table: each seat's hand (sausages and a boot) and its mat (face-down cards,
// bottom first, the turned ones face up), the auction, the attempt's turned cards, and how the
// previous round ended; on the play page, the moves' words.
"use strict";
(function () {
  const T = window.ArenaTable;
  const PHASES = {
    place: "everyone puts a card on their mat",
    add_or_bid: "add a card or open the auction",
    auction: "the auction: raise or pass",
    attempt: "the attempt: turning cards",
    blind_pick: "the attempt failed: a blind pick",
    choose_loss: "the attempt failed on the challenger's own boot: it chooses a card to lose",
    name_first: "the challenger names the next first player",
    over: "the game is over",
  };

  function sausage() {
    const r = "rotate(-35 20 20)";
    return T.svg("0 0 40 40", [
      ["rect", { x: 5, y: 13, width: 30, height: 14, rx: 7, fill: "#b4441f", transform: r }],
      ["rect", { x: 9, y: 15.5, width: 20, height: 3.5, rx: 1.75, fill: "#e2764f", transform: r }],
      ["line", { x1: 3, y1: 20, x2: 5.5, y2: 20, stroke: "#7c2d12", "stroke-width": 2, "stroke-linecap": "round", transform: r }],
      ["line", { x1: 34.5, y1: 20, x2: 37, y2: 20, stroke: "#7c2d12", "stroke-width": 2, "stroke-linecap": "round", transform: r }],
    ], "pic");
  }

  function boot() {
    return T.svg("0 0 40 40", [
      ["path", { d: "M11 5 h13 v17 l8 3.5 q4 1.8 4 5.5 v2 h-25 z", fill: "#4b5563" }],
      ["rect", { x: 10, y: 33, width: 27, height: 3.5, rx: 1.2, fill: "#1f2937" }],
      ["rect", { x: 10, y: 5, width: 15, height: 3.5, rx: 1, fill: "#6b7280" }],
    ], "pic");
  }

  function edibleCard(name, extra) {
    const node = T.face(name, name === "boot" ? boot() : sausage(), `ecard ${name}` + (extra ? " " + extra : ""));
    node.dataset.card = name;
    return node;
  }

  function handCards(sausages, boots) {
    const cards = [];
    for (let i = 0; i < sausages; i++) cards.push(edibleCard("sausage"));
    for (let i = 0; i < boots; i++) cards.push(edibleCard("boot"));
    return T.fan(cards, "spread");
  }

  function hand(model, seat) {
    const view = model.pub.seats[seat];
    if (model.full) return handCards(model.full.hands[seat].sausage, model.full.hands[seat].boot);
    if (model.obs && model.seat === seat) return handCards(model.obs.hand_sausages, model.obs.hand_boots);
    return T.backs(view.hand_count, "a card in hand");
  }

  /** The mat, bottom card first: turned cards face up; the others face down (shown dimmed to
   * whoever may know them: everyone once the match is over, the seat itself in its own view). */
  function mat(model, seat) {
    const count = model.pub.seats[seat].mat_count;
    const turned = new Map(model.pub.turned.filter((t) => t.seat === seat).map((t) => [t.position, t.card]));
    const known = model.full ? model.full.mats[seat] : model.obs && model.seat === seat ? model.obs.my_mat : null;
    const row = T.el("span", "mat-row");
    for (let position = 0; position < count; position++) {
      if (turned.has(position)) row.append(edibleCard(turned.get(position), "turned"));
      else if (known) row.append(edibleCard(known[position], "peek"));
      else row.append(T.back("face down on the mat"));
    }
    if (!count) row.append(T.el("span", "muted empty-note", "empty"));
    return row;
  }

  function lost(model, seat) {
    const cards = model.full ? model.full.lost[seat] : model.obs && model.seat === seat ? model.obs.my_lost : null;
    if (!cards || !cards.length) return null;
    return T.zone(`lost (${cards.length})`, "lost", T.fan(cards.map((c) => edibleCard(c, "small peek")), "spread"));
  }

  function seatPanel(model, seat) {
    const pub = model.pub;
    const view = pub.seats[seat];
    const badges = [T.badge(`mat side ${1 + view.successes}`, view.successes ? "win" : "muted-badge")];
    if (pub.first_player === seat) badges.push(T.badge("first", "dealer"));
    if (pub.to_act === seat) badges.push(T.badge("to act", "to-act"));
    if (pub.high_bidder === seat && pub.high_bid) badges.push(T.badge(`bid ${pub.high_bid}`, "warn"));
    if (view.passed) badges.push(T.badge("passed", "muted-badge"));
    if (!view.active) badges.push(T.badge(`out (${view.eliminated_order})`, "out"));
    const panel = T.seatPanel(model, seat, badges, [
      T.zone(`hand (${view.hand_count})`, "hand", hand(model, seat)),
      T.zone(`mat (${view.mat_count}, bottom first)`, "mat", mat(model, seat)),
      lost(model, seat),
    ]);
    if (!view.active) panel.classList.add("eliminated");
    return panel;
  }

  function summary(model, prev) {
    const who = T.seatName(model, prev.challenger);
    let text = `Last round: ${who} bid ${prev.bid} and `;
    if (prev.success) text += "turned only sausages: success.";
    else text += `hit ${prev.boot_owner === prev.challenger ? "its own" : T.seatName(model, prev.boot_owner) + "'s"} boot` +
      (prev.challenger_eliminated ? ", and is out." : ": a card lost.");
    return T.el("div", "muted summary", text);
  }

  function felt(model) {
    const pub = model.pub;
    const center = T.el("div", "edible-felt");
    const head = T.el("div", "felt-head");
    head.append(T.stat("round", pub.round_number), T.el("span", "phase", PHASES[pub.phase] || pub.phase));
    center.append(head);
    const auction = T.el("div", "auction");
    auction.dataset.bids = String(pub.auction.length);
    for (const [seat, bid] of pub.auction) {
      const chip = T.el("span", "bid" + (bid ? "" : " pass"));
      chip.append(T.el("span", "bid-who", T.seatName(model, seat)), T.el("span", "bid-what", bid ? String(bid) : "pass"));
      auction.append(chip);
    }
    if (!pub.auction.length) auction.append(T.el("span", "muted empty-note", "no bids yet"));
    center.append(T.zone(pub.high_bid ? `the auction: ${T.seatName(model, pub.high_bidder)} bids ${pub.high_bid}` : "the auction", "auction-zone", auction));
    if (pub.turned.length || pub.phase === "attempt") {
      const turned = T.el("div", "turned-row");
      turned.dataset.count = String(pub.turned.length);
      for (const t of pub.turned) {
        const box = T.el("div", "turned-one");
        box.append(edibleCard(t.card, "turned"), T.el("div", "play-note", T.seatName(model, t.seat)));
        turned.append(box);
      }
      center.append(T.zone(`the attempt: ${pub.turned.length} of ${pub.high_bid} turned`, "attempt-zone", turned));
    }
    if (pub.blind_choices) center.append(T.el("div", "summary", `Blind pick among the challenger's ${pub.blind_choices} cards.`));
    if (pub.previous_round) center.append(summary(model, pub.previous_round));
    return center;
  }

  /** The play page's words for a move. */
  function label(action, page) {
    switch (action.type) {
      case "Place": return `Place a ${action.card}`;
      case "Bid": return `Bid ${action.count}`;
      case "Flip": return `Turn over ${page.name(action.seat)}'s card ${action.position + 1}`;
      case "PickBlind": return `Take hidden card ${action.position + 1}`;
      case "Discard": return `Lose a ${action.card}`;
      case "NameFirst": return `${page.name(action.seat)} starts the next round`;
      default: return action.type;
    }
  }

  T.register("edible", (model) => {
    const panels = model.names.map((_, seat) => seatPanel(model, seat));
    return T.layout(model, panels, felt(model));
  }, { label });
})();
