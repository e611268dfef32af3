// A Card Arena bot in plain JavaScript (Node.js 18+), speaking the arena's gRPC protocol from
// proto/arena/wire/v1/arena.proto alone. It plays legal moves in all three games:
//   edible, kozel  a uniformly random choice among the request's legal_actions;
//   believe        placements built from the request's believe_place_rule (they are not
//                  listed), and a simple judgement of when to call believe or disbelieve.
//
// Copy this kit, put your own logic in the three choose* functions of "YOUR LOGIC" below, and
// leave "THE PROTOCOL" as it is. See README.md next to src/ for building and submitting.
//
// How a match goes (the .proto's comments say every field's meaning):
//   1. The arena starts this process with ARENA_ADDRESS and ARENA_TOKEN in the environment.
//   2. We call BotArena.Play (one bidirectional stream) and send Hello first.
//   3. The arena sends MatchStart, then for each game GameStart, DecisionRequests and GameEnd.
//   4. Every DecisionRequest gets exactly one Action carrying the same decision_id.
//   5. On MatchEnd we close our side of the stream and exit.
"use strict";

const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const protobuf = require("protobufjs");
const PROTO_TEXT = require("./arena-proto");

const AGENT = `card-arena node starter 0.1.0 (node ${process.version})`;
const PROTOCOL_VERSION = 1;

// ================================================================================================
// YOUR LOGIC
//
// Each choose* function gets the DecisionRequest as a plain object and returns the game's part
// of an Action: for edible `{place: "EDIBLE_CARD_SAUSAGE"}`, `{bid: 2}`, `{flip: {seat, position}}`
// ...; for believe `{place: {cards, claimed_kind}}`, `{believe: true}` or `{disbelieve: true}`;
// for kozel `{lead: {cards: ["7S"]}}`, `{decline: true}` ... The easiest legal answer is one of
// `request.legal_actions`, each already shaped like an Action (`legal.edible`, `legal.kozel`).
//
// How messages look here (the loader's options, in loadProtocol below):
//   - field names as in the .proto (snake_case): request.observation.edible.hand_sausages;
//   - enums as their names: "EDIBLE_PHASE_AUCTION", "KOZEL_PHASE_MOLODKA";
//   - 64-bit integers (decision_id, bot_seed) as decimal strings, so they are never rounded;
//   - every scalar and repeated field present, with its default (0, false, "", []) when unset;
//     a message field that is not set is null (e.g. believe_place_rule outside Believe);
//   - a oneof names its set member: action.game === "edible", action.edible.move === "place".
// ================================================================================================

/** Edible: any legal action, uniformly at random. */
function chooseEdible(request, rng) {
  return rng.pick(request.legal_actions).edible;
}

/**
 * Kozel: any legal action, uniformly at random. A molodka window is an ordinary decision: the
 * observation's phase is "KOZEL_PHASE_MOLODKA" and legal_actions hold decline, and the molodka
 * if the seat holds one.
 */
function chooseKozel(request, rng) {
  return rng.pick(request.legal_actions).kozel;
}

/**
 * Believe. Placements are too many to list, so legal_actions holds only the calls (believe,
 * disbelieve; empty when no pile is open) and request.believe_place_rule says which placements
 * are legal: 1..max_cards cards from hand (hand[k] = copies of kind k held), claimed as the open
 * pile's kind when kind_fixed, otherwise as any kind 0..hand.length-1.
 *
 * This strategy: start a pile truthfully with the kind held most; with a pile open, add true
 * cards when holding the pile's kind, call a claim that cannot be true, and otherwise call or
 * bluff one card at random, calling more often against bigger claims.
 */
function chooseBelieve(request, rng, match) {
  const obs = request.observation.believe;
  const rule = request.believe_place_rule;
  const hand = obs.hand.map(Number);
  const kinds = hand.length;
  // The open pile's kind, or null. Read it only while pile_open: pile_kind means nothing
  // otherwise. (In newer versions of the .proto it is an optional field, absent while no pile is
  // open; with the loader's options an absent field is undefined, and kind 0 counts as absent in
  // older versions, hence the ?? 0.)
  const pileKind = obs.pile_open ? Number(obs.pile_kind ?? 0) : null;
  const maxCards = rule ? Number(rule.max_cards) : 0;
  const claimKind = rule && rule.kind_fixed ? pileKind : null; // null: any kind may be claimed
  const callBelieve = request.legal_actions.find((action) => action.believe.believe);
  const callDisbelieve = request.legal_actions.find((action) => action.believe.disbelieve);

  // No pile open: we must start one. Truthfully, with as many as we may of our commonest kind.
  if (!callBelieve && !callDisbelieve) {
    const kind = argmax(hand);
    const count = Math.min(hand[kind], maxCards);
    return place(Array(count).fill(kind), claimKind ?? kind);
  }

  // A pile is open: its last placement claims `count` cards of pileKind.
  const last = obs.claims[obs.claims.length - 1];
  const count = last ? Number(last.count) : 1;
  const copies = Number(match.config?.believe?.copies) || 8; // copies of each kind in the deck
  const held = pileKind == null ? 0 : hand[pileKind];
  // Cards of the pile's kind that left the game face up (a believed true placement's pile is
  // discarded; its revealed cards are known).
  let gone = 0;
  for (const check of obs.checks) {
    if (Number(check.taker) === -1) {
      gone += check.revealed.filter((kind) => Number(kind) === pileKind).length;
    }
  }
  // Impossible: more of that kind than the deck holds outside our hand and the discards.
  if (callDisbelieve && held + gone + count > copies) return callDisbelieve.believe;

  // Add true cards when we have them (the claim must be the pile's kind).
  if (maxCards > 0 && held > 0) {
    return place(Array(Math.min(held, maxCards)).fill(pileKind), pileKind);
  }

  // Otherwise call, more suspicious of bigger claims and of kinds we hold much of, or bluff.
  const suspicion = Math.min(0.9, 0.25 + 0.12 * count + (0.5 * (held + gone)) / copies);
  const wantsToCall = maxCards === 0 || rng.next() < 0.7;
  if (wantsToCall) {
    const call = rng.next() < suspicion ? callDisbelieve : callBelieve;
    if (call) return call.believe;
  }
  // Bluff: one card of the kind we hold most, claimed as the pile's kind.
  const bluffKind = argmax(hand);
  return place([bluffKind], claimKind ?? rng.int(kinds));
}

/** A believe placement: `cards` are kind numbers, repeated for several copies. */
function place(cards, claimedKind) {
  return { place: { cards, claimed_kind: claimedKind } };
}

/** The index of the largest value (the first of equals). */
function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// ================================================================================================
// RANDOMNESS: a small seeded generator (SplitMix64), seeded from MatchStart.bot_seed so that a
// match played again with the same seed (arena play --seed) plays the same moves.
// ================================================================================================

class Rng {
  constructor(seed) {
    this.state = BigInt.asUintN(64, BigInt(seed));
  }

  /** The next 64 random bits, as a BigInt. */
  bits() {
    this.state = BigInt.asUintN(64, this.state + 0x9e3779b97f4a7c15n);
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }

  /** A float in [0, 1). */
  next() {
    return Number(this.bits() >> 11n) / 2 ** 53;
  }

  /** An integer in [0, n). */
  int(n) {
    return Number(this.bits() % BigInt(n));
  }

  /** One element of a non-empty array, uniformly. */
  pick(items) {
    return items[this.int(items.length)];
  }
}

// ================================================================================================
// THE PROTOCOL: connect, greet, answer every decision, exit at the match's end.
// ================================================================================================

/** Parses the embedded .proto and returns the BotArena client class. */
function loadProtocol() {
  const parsed = protobuf.parse(PROTO_TEXT, { keepCase: true });
  const definition = protoLoader.fromJSON(parsed.root.toJSON(), {
    keepCase: true, // field names as in the .proto
    longs: String, // uint64 as decimal strings: decision_id must be echoed exactly
    enums: String, // enum values by name
    defaults: true, // unset scalar and repeated fields get their defaults
    oneofs: true, // each oneof names its set member (action.game === "kozel")
  });
  return grpc.loadPackageDefinition(definition).arena.wire.v1.BotArena;
}

const CHOOSERS = { edible: chooseEdible, believe: chooseBelieve, kozel: chooseKozel };

function main() {
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address || !token) {
    console.error("bot: ARENA_ADDRESS and ARENA_TOKEN must be set (the arena starts this bot)");
    process.exit(2);
  }
  const BotArena = loadProtocol();
  const client = new BotArena(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let match = null; // the MatchStart
  let rng = null;
  let ended = false;

  call.write({ hello: { token, protocol_version: PROTOCOL_VERSION, agent: AGENT } });

  call.on("data", (message) => {
    switch (message.kind) {
      case "match_start":
        match = message.match_start;
        rng = new Rng(match.bot_seed);
        break;
      case "game_start":
        break; // message.game_start.seat: our seat in this game (seats may rotate)
      case "decision":
        answer(message.decision);
        break;
      case "fault":
        // The arena rejected an answer (timeout, illegal action, ...). Log it and play on.
        console.error(`bot: fault on decision ${message.fault.decision_id}: ${message.fault.status}: ${message.fault.detail}`);
        break;
      case "game_end":
        break; // message.game_end.result: ranks, scores and statuses per seat
      case "match_end":
        ended = true;
        call.end(); // close our side; the arena then ends the call
        break;
      default:
        console.error(`bot: unexpected message ${message.kind}`);
    }
  });

  function answer(request) {
    const decisionId = request.decision_id; // a string: echo it exactly
    try {
      const choose = CHOOSERS[match.game];
      if (!choose) throw new Error(`unknown game ${match.game}`);
      const move = choose(request, rng, match);
      call.write({ action: { decision_id: decisionId, [match.game]: move } });
    } catch (error) {
      // Our code failed: tell the arena (a crash for this decision) and keep playing.
      console.error(`bot: decision ${decisionId} failed: ${error.stack}`);
      call.write({ failure: { decision_id: decisionId, detail: String(error.stack).slice(-8000) } });
    }
  }

  call.on("error", (error) => {
    if (ended) return; // the arena may end the call abruptly once the match is over
    console.error(`bot: stream failed: ${error.code} ${error.details || error.message}`);
    process.exitCode = 1;
  });
  call.on("end", () => {
    client.close();
    if (!ended) {
      console.error("bot: the arena closed the stream before MatchEnd");
      process.exitCode = 1;
    }
  });
}

main();
