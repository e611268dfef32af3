// High card on the card table: each seat's one card (face up to whoever may know it: everyone once
// the match is over, the seat itself in its own view), who folded and who bids next; the bid on the felt;
// on the play page, the moves' words.
"use strict";
(function () {
  const T = window.ArenaTable;

  function card(model, seat) {
    const known = model.full ? model.full.hands[seat] : model.obs && model.seat === seat ? model.obs.card : null;
    return known === null ? T.back("a hidden card") : T.face(String(known));
  }

  /** The play page's words for a move. */
  function label(action) {
    return action.type === "Raise" ? `Raise to ${action.to}` : action.type;
  }

  T.register("highcard", (model) => {
    const pub = model.pub;
    const panels = model.names.map((_, seat) => T.seatPanel(model, seat, [
      pub.to_act === seat ? T.badge("to act", "to-act") : null,
      pub.folded[seat] ? T.badge("folded", "muted-badge") : null,
    ], [T.zone("card", "hand", card(model, seat))]));
    const felt = T.el("div", "felt-head");
    felt.append(T.stat("bid", pub.bid));
    return T.layout(model, panels, felt);
  }, { label });
})();
