// Card table core: DOM helpers, cards and the seats laid out around a felt, shared by the games'
// renderers (the table.js in each game's folder, arena/games/<game>/table.js, served at
// /static/games/<game>/table.js: arena.web.tables), which register themselves here.
// Everything is built with createElement and textContent: no replay data ever goes through innerHTML.
//
// A game registers its drawing, and optionally its parts of the play page (play.js, a person's
// seat): T.register(game, draw, { label, picker, extra }). Each part is given `page`, the seat's page
// as it shows one message: page.view (the message: names, seat, observation, turn), page.name(seat)
// ("you" for the person, else the player's name) and page.send(action) (makes the move). Any part may
// be left out, and any may answer nothing (undefined or null): the play page does without.
//   label(action, page): the words on a move's button, or [words, ...nodes] (the cards it plays, say);
//     nothing gives the generic words, the move's type and its fields' values.
//   picker(page): on the person's turn, a control for the moves that are not listed one by one
//     (believe's placement: cards by kind and a claim) or nothing.
//   extra(page): a panel shown under the table (kozel's last trick) or nothing.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const renderers = {};
  const NO_PLAY = { label() {}, picker() {}, extra() {} };
  const plays = {};

  function el(tag, cls, content) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (content !== undefined && content !== null) node.textContent = String(content);
    return node;
  }

  /** An SVG drawing from a list of [tag, attributes] shapes, in a viewBox of the given size. */
  function svg(viewBox, shapes, cls) {
    const root = document.createElementNS(SVG, "svg");
    root.setAttribute("viewBox", viewBox);
    root.setAttribute("aria-hidden", "true");
    if (cls) root.setAttribute("class", cls);
    for (const [tag, attrs] of shapes) {
      const shape = document.createElementNS(SVG, tag);
      for (const [key, value] of Object.entries(attrs)) shape.setAttribute(key, String(value));
      root.append(shape);
    }
    return root;
  }

  /** A card face: a drawing (or a big symbol) with a small label; ``extra`` adds classes. */
  function face(label, picture, extra) {
    const card = el("span", "card face" + (extra ? " " + extra : ""));
    card.title = label;
    if (picture) card.append(picture);
    card.append(el("span", "card-label", label));
    return card;
  }

  /** The back of a card (a hidden card), with an optional tooltip. */
  function back(title, extra) {
    const card = el("span", "card back" + (extra ? " " + extra : ""));
    card.title = title || "a hidden card";
    return card;
  }

  /** ``count`` card backs, overlapped as a hand held face down. */
  function backs(count, title) {
    const fan = el("span", "fan");
    for (let i = 0; i < count; i++) fan.append(back(title));
    return fan;
  }

  /** Cards in an overlapping fan. */
  function fan(cards, cls) {
    const box = el("span", "fan" + (cls ? " " + cls : ""));
    box.append(...cards);
    return box;
  }

  /** A small coloured tag: "dealer", "to act", "passed"... */
  function badge(content, cls) {
    return el("span", "tbadge" + (cls ? " " + cls : ""), content);
  }

  /** A labelled value: "stock 12". */
  function stat(label, value, cls) {
    const box = el("span", "tstat" + (cls ? " " + cls : ""));
    box.append(el("span", "tstat-label", label), el("span", "tstat-value", value));
    return box;
  }

  /** A seat's panel: name line with badges, then its contents. The test hooks: data-seat, .hand. */
  function seatPanel(model, seat, badges, contents) {
    const panel = el("section", "tseat");
    panel.dataset.seat = String(seat);
    if (model.actor === seat) panel.classList.add("acted");
    if (model.seat === seat) panel.classList.add("viewer");
    const head = el("div", "tseat-head");
    head.append(el("span", "tseat-num", String(seat)), el("span", "tseat-name", model.names[seat] || `seat ${seat}`));
    for (const b of badges) if (b) head.append(b);
    panel.append(head, ...contents.filter(Boolean));
    return panel;
  }

  /** A labelled zone inside a panel or the felt (e.g. "hand", "mat", "trick"). */
  function zone(label, cls, ...children) {
    const box = el("div", "tzone " + cls);
    if (label) box.append(el("div", "tzone-label", label));
    const body = el("div", "tzone-body");
    body.append(...children.filter(Boolean));
    box.append(body);
    return box;
  }

  /** Seats placed around the felt: the viewer's seat (else seat 0) at the bottom, the others
   * clockwise from its left; on a narrow screen they stack (table.css). */
  function layout(model, panels, felt) {
    const count = panels.length;
    const bottom = model.seat === null || model.seat === undefined ? 0 : model.seat;
    const table = el("div", `ttable seats-${count}`);
    const places = count === 4 ? ["bottom", "left", "top", "right"] : count === 3 ? ["bottom", "left", "right"] : ["bottom", "top"];
    for (let k = 0; k < count; k++) {
      const seat = (bottom + k) % count;
      const panel = panels[seat];
      panel.classList.add("at-" + (places[k] || "top"));
      table.append(panel);
    }
    felt.classList.add("tfelt");
    table.append(felt);
    return table;
  }

  function render(container, game, model) {
    const draw = renderers[game];
    if (!draw) {
      container.replaceChildren(el("p", "muted", `No table drawing for ${game}: see the raw data below.`));
      return;
    }
    container.replaceChildren(draw(model));
  }

  function seatName(model, seat) {
    return seat >= 0 && seat < model.names.length ? model.names[seat] : `seat ${seat}`;
  }

  window.ArenaTable = {
    register(game, draw, play) { renderers[game] = draw; plays[game] = { ...NO_PLAY, ...play }; },
    /** A game's parts of the play page (the header); none for a game that gave none. */
    playParts(game) { return plays[game] || NO_PLAY; },
    render, el, svg, face, back, backs, fan, badge, stat, seatPanel, zone, layout, seatName,
  };
})();
