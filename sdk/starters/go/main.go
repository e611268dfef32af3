// A Card Arena bot in Go, written from the protocol alone (proto/arena/wire/v1/arena.proto).
//
// It plays all three games (edible, believe, kozel) with a random legal move. Copy this
// folder, put your own logic in decide() (or in the per-game functions it calls), and build
// with `bash build.sh`: that makes dist/bot (one static binary) and dist/arena-bot.toml.
//
// How a bot talks to the arena (see README.md, "The protocol"):
//
//  1. The arena starts this process once per seat for a whole match, with two environment
//     variables: ARENA_ADDRESS (e.g. "unix:///arena/arena.sock") and ARENA_TOKEN.
//  2. The bot dials ARENA_ADDRESS and calls BotArena.Play (a bidirectional stream).
//  3. It sends Hello{token, protocol_version: 1, agent}.
//  4. The arena sends MatchStart, then per game GameStart, DecisionRequests and GameEnd.
//  5. Every DecisionRequest gets one Action carrying the request's decision_id.
//  6. A Fault says an answer was not accepted (timeout, illegal action, ...): log it, play on.
//  7. On MatchEnd the bot closes its side of the stream and exits.
//
// Package wirepb is the code protoc generates from arena.proto (build.sh makes it); codec.go
// makes gRPC encode messages with the protobuf library that code was generated for.
package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"time"

	"google.golang.org/grpc"

	pb "arenabot/wirepb"
)

// agent is free text the arena stores in the bot's log: name your bot and its version.
const agent = "go-starter 0.1 (card arena go starter kit)"

// protocolVersion is the version of arena.proto this bot speaks; the arena accepts only 1.
const protocolVersion = 1

// bot holds what the bot keeps between decisions. Add your own memory here (cards seen,
// opponents' habits, ...); reset per-game memory in onGameStart.
type bot struct {
	rng   *rand.Rand
	game  string // "edible", "believe" or "kozel", from MatchStart
	seat  uint32 // this process's seat in the current game (seats may rotate between games)
	start *pb.MatchStart
}

func main() {
	// A sandboxed bot may run only a few threads (about 32 per bot, counted by the kernel);
	// the Go runtime starts threads per CPU, so keep it to two however many CPUs there are.
	if runtime.GOMAXPROCS(0) > 2 {
		runtime.GOMAXPROCS(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bot:", err)
		os.Exit(1)
	}
}

func run() error {
	address, token := os.Getenv("ARENA_ADDRESS"), os.Getenv("ARENA_TOKEN")
	if address == "" || token == "" {
		return fmt.Errorf("ARENA_ADDRESS and ARENA_TOKEN must be set (the arena starts bots with them)")
	}

	// The arena is the server, the bot the client. grpc-go dials "unix:///path" addresses
	// itself. There is no TLS: the socket is private to this bot.
	dialCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(dialCtx, address, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		return fmt.Errorf("cannot connect to %s: %w", address, err)
	}
	defer conn.Close()

	// One stream for the whole match. Its context must outlive the dial's timeout.
	stream, err := pb.NewBotArenaClient(conn).Play(context.Background())
	if err != nil {
		return fmt.Errorf("BotArena.Play: %w", err)
	}
	hello := &pb.Hello{Token: token, ProtocolVersion: protocolVersion, Agent: agent}
	if err := stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_Hello{Hello: hello}}); err != nil {
		return fmt.Errorf("sending Hello: %w", err)
	}

	b := &bot{rng: rand.New(rand.NewSource(1))}
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return fmt.Errorf("the arena closed the stream before MatchEnd")
		}
		if err != nil {
			// A wrong token or version ends the call here (PERMISSION_DENIED / FAILED_PRECONDITION).
			return fmt.Errorf("receiving: %w", err)
		}
		switch kind := message.Kind.(type) {
		case *pb.ArenaMessage_MatchStart:
			b.onMatchStart(kind.MatchStart)
		case *pb.ArenaMessage_GameStart:
			b.onGameStart(kind.GameStart)
		case *pb.ArenaMessage_Decision:
			if err := stream.Send(b.answer(kind.Decision)); err != nil {
				return fmt.Errorf("sending an action: %w", err)
			}
		case *pb.ArenaMessage_Fault:
			// The arena did not accept an answer (the seat forfeits that game); keep playing.
			f := kind.Fault
			fmt.Fprintf(os.Stderr, "bot: fault on decision %d: %s: %s\n", f.DecisionId, f.Status, f.Detail)
		case *pb.ArenaMessage_GameEnd:
			b.onGameEnd(kind.GameEnd)
		case *pb.ArenaMessage_MatchEnd:
			// The match is over: close our side of the stream and exit.
			return stream.CloseSend()
		}
	}
}

func (b *bot) onMatchStart(start *pb.MatchStart) {
	b.start, b.game, b.seat = start, start.Game, start.Seat
	// bot_seed is this bot's own random draw: seeding from it makes a local match with a
	// chosen --seed replay exactly.
	b.rng = rand.New(rand.NewSource(int64(start.BotSeed)))
	fmt.Fprintf(os.Stderr, "bot: match %s: %s v%d, seat %d of %d, %d game(s)\n",
		start.MatchId, start.Game, start.GameVersion, start.Seat, len(start.Seats), start.Games)
}

func (b *bot) onGameStart(start *pb.GameStart) {
	b.seat = start.Seat
	// Reset per-game memory here.
}

func (b *bot) onGameEnd(end *pb.GameEnd) {
	// end.Result.Ranks[seat] (0 is best), Scores, Statuses ("ok", "timeout", ...) per seat.
}

// answer turns a DecisionRequest into the BotMessage to send. If decide cannot find a move,
// the bot reports a failure (a crash for this decision) rather than leaving the arena waiting.
func (b *bot) answer(request *pb.DecisionRequest) *pb.BotMessage {
	action, err := b.decide(request)
	if err != nil {
		failure := &pb.BotFailure{DecisionId: request.DecisionId, Detail: err.Error()}
		return &pb.BotMessage{Kind: &pb.BotMessage_Failure{Failure: failure}}
	}
	action.DecisionId = request.DecisionId // the answer must carry the request's id
	return &pb.BotMessage{Kind: &pb.BotMessage_Action{Action: action}}
}

// decide is where your strategy goes. request.Observation holds everything this seat may
// know now (Edible/Believe/KozelObservation, see arena.proto and arena/games/<game>/RULES.md);
// request.LegalActions lists every legal action (for believe only the calls, see decideBelieve).
// Answer within request.DecisionMs milliseconds, or the excess is taken from the match's
// time bank (request.BankMs); past both the decision times out.
func (b *bot) decide(request *pb.DecisionRequest) (*pb.Action, error) {
	if request.BelievePlaceRule != nil {
		return b.decideBelieve(request)
	}
	// Edible and kozel list every legal action (kozel's molodka window too: there the choices
	// are "decline" and, if the seat holds one, "molodka"). Pick one at random.
	legal := request.LegalActions
	if len(legal) == 0 {
		return nil, fmt.Errorf("decision %d lists no legal action", request.DecisionId)
	}
	return chooseFrom(legal[b.rng.Intn(len(legal))]), nil
}

// decideBelieve plays believe. Its placements are too many to list, so legal_actions holds
// only the calls (believe, disbelieve: present while a pile is open) and believe_place_rule
// says which placements are legal: 1..max_cards cards from the hand (max_cards is 0 when the
// seat holds no cards and may only call), claiming pile_kind when kind_fixed, else any kind.
func (b *bot) decideBelieve(request *pb.DecisionRequest) (*pb.Action, error) {
	rule := request.BelievePlaceRule
	observation := request.Observation.GetBelieve()
	calls := request.LegalActions
	// Like the built-in random bot: each call and "place" equally likely.
	options := len(calls)
	canPlace := rule.MaxCards > 0 && observation != nil
	if canPlace {
		options++
	}
	if options == 0 {
		return nil, fmt.Errorf("decision %d: no call and no placement is legal", request.DecisionId)
	}
	if pick := b.rng.Intn(options); pick < len(calls) {
		return chooseFrom(calls[pick]), nil
	}

	// Place: hand[k] is how many cards of kind k this seat holds.
	var cards []uint32
	for kind, copies := range observation.Hand {
		for i := uint32(0); i < copies; i++ {
			cards = append(cards, uint32(kind))
		}
	}
	b.rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	count := 1 + b.rng.Intn(int(rule.MaxCards)) // max_cards never exceeds the hand
	if count > len(cards) {
		count = len(cards)
	}
	// The claim: the open pile's kind when it is fixed, else any kind of the deck (one entry
	// of hand per kind). Read pile_kind only while pile_open: it means nothing otherwise.
	var claim uint32
	if rule.KindFixed && observation.PileOpen {
		claim = observation.GetPileKind()
	} else {
		claim = uint32(b.rng.Intn(len(observation.Hand)))
	}
	place := &pb.BelievePlace{Cards: cards[:count], ClaimedKind: claim}
	move := &pb.BelieveAction{Move: &pb.BelieveAction_Place{Place: place}}
	return &pb.Action{Game: &pb.Action_Believe{Believe: move}}, nil
}

// chooseFrom answers with one of the listed legal actions: a new Action with the same move
// (answer sets the decision id; the listed actions are left as they were).
func chooseFrom(legal *pb.Action) *pb.Action {
	return &pb.Action{Game: legal.Game}
}
