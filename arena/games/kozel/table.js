// Kozel on the card table: four seats in two teams (0+2, 1+3), the trick, the trump card and the
// stock, the teams' tricks and points, and the series score (defeat points); on the play page, the
// moves' words with the cards they play, and the last trick taken.
"use strict";
(function () {
  const T = window.ArenaTable;
  const SUITS = { S: ["♠", "spades", false], H: ["♥", "hearts", true], D: ["♦", "diamonds", true], C: ["♣", "clubs", false] };
  const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
  const TEAMS = ["A", "B"];

  /** A playing card ("7S", "TH") drawn with its rank and suit symbol, red or black. */
  function card(code, extra) {
    const rank = RANKS[code[0]] || code[0];
    const [symbol, suitName, red] = SUITS[code[1]] || ["?", "unknown suit", false];
    const node = T.el("span", `card face pcard ${red ? "red" : "black"}` + (extra ? " " + extra : ""));
    node.title = `${rank} of ${suitName}`;
    node.dataset.card = code;
    const corner = T.el("span", "pcard-corner");
    corner.append(T.el("span", "pcard-rank", rank), T.el("span", "pcard-suit", symbol));
    node.append(corner, T.el("span", "pcard-pip", symbol));
    return node;
  }

  function teamBadge(seat) {
    return T.badge(`team ${TEAMS[seat % 2]}`, `team team-${seat % 2}`);
  }

  function hand(model, seat) {
    const pub = model.pub;
    if (model.full) return T.fan(model.full.hands[seat].map((c) => card(c)), "spread");
    if (model.obs && model.seat === seat) return T.fan(model.obs.hand.map((c) => card(c)), "spread");
    return T.backs(pub.hand_counts[seat], "a card in hand");
  }

  function discards(model, seat) {
    let cards = null;
    if (model.full) cards = model.full.discards[seat];
    else if (model.obs && model.seat === seat) cards = model.obs.my_discards;
    if (!cards || !cards.length) return null;
    return T.zone(`discarded face down (${cards.length})`, "discards", T.fan(cards.map((c) => card(c, "small peek"))));
  }

  function seatPanel(model, seat) {
    const pub = model.pub;
    const badges = [teamBadge(seat)];
    if (pub.dealer === seat) badges.push(T.badge("dealer", "dealer"));
    if (pub.turn === seat) badges.push(T.badge(pub.leader === seat && !pub.trick.length ? "to lead" : "to play", "to-act"));
    if (pub.trump_holder === seat) badges.push(T.badge("drew the trump", "muted-badge"));
    if (model.full && model.full.molodka_asking === seat) badges.push(T.badge("asked: molodka?", "warn"));
    return T.seatPanel(model, seat, badges, [
      T.zone(`hand (${pub.hand_counts[seat]})`, "hand", hand(model, seat)),
      discards(model, seat),
    ]);
  }

  /** One play of the trick: its seat, then its cards (face up) or its face-down discard. */
  function play(model, entry, index, cls) {
    const box = T.el("div", "play" + (cls ? " " + cls : ""));
    box.dataset.seat = String(entry.seat);
    const head = T.el("div", "play-head", T.seatName(model, entry.seat));
    if (index === 0 && !cls) head.append(T.badge("lead", "muted-badge"));
    if (entry.molodka) head.append(T.badge("molodka", "warn"));
    if (!cls && model.pub.winning_seat === entry.seat) { head.append(T.badge("winning", "win")); box.classList.add("winning"); }
    box.append(head);
    let real = model.full && !cls ? model.full.trick[index] : null;
    if (!real && !cls && model.obs && model.seat === entry.seat && entry.discarded > 0) {
      real = { cards: model.obs.my_discards.slice(-entry.discarded) }; // its own discard, known to itself
    }
    if (entry.discarded > 0) {
      if (real) box.append(T.fan(real.cards.map((c) => card(c, "peek")), "spread"), T.el("div", "play-note", "discarded face down"));
      else box.append(T.backs(entry.discarded, "discarded face down"), T.el("div", "play-note", "discarded face down"));
    } else {
      box.append(T.fan(entry.cards.map((c) => card(c)), "spread"));
    }
    return box;
  }

  function score(model) {
    const pub = model.pub;
    const box = T.el("div", "score");
    const series = T.el("div", "series");
    series.append(
      T.el("span", "score-title", "Series (defeat points)"),
      T.badge(`team A ${pub.defeat_points[0]}`, "team team-0"),
      T.badge(`team B ${pub.defeat_points[1]}`, "team team-1"),
    );
    const deal = T.el("div", "deal-score");
    deal.append(T.el("span", "score-title", `Deal ${pub.deal_number + 1}`),
      T.stat("tricks A", pub.team_tricks[0]), T.stat("tricks B", pub.team_tricks[1]));
    if (model.full) deal.append(T.stat("points A", model.full.pile_points[0]), T.stat("points B", model.full.pile_points[1]));
    box.append(series, deal);
    const prev = pub.previous_deal;
    if (prev) {
      const given = prev.defeat_awarded.map((n, team) => (n ? `team ${TEAMS[team]} +${n}` : "")).filter(Boolean).join(", ");
      box.append(T.el("div", "muted summary",
        `Deal ${prev.deal_number + 1}: points A ${prev.points[0]} – ${prev.points[1]} B, tricks ${prev.team_tricks[0]} – ${prev.team_tricks[1]}` +
        (given ? `; defeat points: ${given}` : "; no defeat points")));
    }
    return box;
  }

  function felt(model) {
    const pub = model.pub;
    const center = T.el("div", "kozel-felt");
    const deck = T.el("div", "deck");
    const trump = T.el("div", "trump");
    trump.append(card(pub.trump_card, pub.trump_in_stock ? "trump-card" : "trump-card gone"),
      T.el("div", "tzone-label", pub.trump_in_stock ? "trump (bottom of the stock)" : `trump (drawn by ${T.seatName(model, pub.trump_holder)})`));
    const stock = T.el("div", "stock");
    stock.append(pub.stock_count ? T.back("the stock", "stock-card") : T.el("span", "card empty"),
      T.el("div", "tzone-label", `stock ${pub.stock_count}`));
    stock.dataset.count = String(pub.stock_count);
    deck.append(stock, trump);
    const trick = T.el("div", "trick");
    trick.dataset.plays = String(pub.trick.length);
    pub.trick.forEach((entry, index) => trick.append(play(model, entry, index)));
    if (!pub.trick.length) trick.append(T.el("div", "muted empty-note", pub.turn >= 0 ? `${T.seatName(model, pub.turn)} to lead` : "the series is over"));
    const parts = [deck, T.zone("the trick", "trick-zone", trick)];
    if (pub.returned && pub.returned.length) {
      const back = T.el("div", "returned");
      pub.returned.forEach((entry, index) => back.append(play(model, entry, index, "returned-play")));
      parts.push(T.zone("taken back by the molodka", "returned-zone", back));
    }
    const last = pub.tricks && pub.tricks.length ? pub.tricks[pub.tricks.length - 1] : null;
    if (last && !pub.trick.length) parts.push(T.el("div", "muted summary", `last trick: ${T.seatName(model, last.winner)} took it`));
    parts.push(score(model));
    center.append(...parts);
    return center;
  }

  const VERBS = { Lead: "Lead", Beat: "Beat with", Discard: "Discard face down", Molodka: "Declare a molodka:", Decline: "No molodka" };

  function smallCards(cards) {
    return T.fan(cards.map((code) => card(code, "small")), "spread");
  }

  /** The play page's words for a move, and the cards it plays where there are any. */
  function label(action) {
    const words = VERBS[action.type] || action.type;
    return action.cards && action.cards.length ? [words, smallCards(action.cards)] : words;
  }

  /** The play page's last trick taken, as every seat saw it (its discards face down), since the
   * bots' plays that close a trick come all at once. */
  function lastTrick(page) {
    const obs = page.view.observation;
    if (!obs || !obs.tricks || !obs.tricks.length) return null;
    const trick = obs.tricks[obs.tricks.length - 1];
    const box = T.el("section", "play-last-trick");
    box.append(T.el("h2", "play-title", `Last trick: ${page.name(trick.winner)} took it`));
    const plays = T.el("div", "act-list");
    for (const entry of trick.plays) {
      const play = T.el("div", "play-last");
      play.append(T.el("div", "play-last-who", page.name(entry.seat) + (entry.molodka ? " (molodka)" : "")));
      if (entry.discarded > 0) play.append(T.backs(entry.discarded, "discarded face down"));
      else play.append(smallCards(entry.cards));
      plays.append(play);
    }
    box.append(plays);
    return box;
  }

  T.register("kozel", (model) => {
    const panels = model.names.map((_, seat) => seatPanel(model, seat));
    return T.layout(model, panels, felt(model));
  }, { label, extra: lastTrick });
})();
