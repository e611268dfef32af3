"""The codec translates every observation and action of real games both ways without loss,
and rejects malformed messages with a clear error."""

from __future__ import annotations

import random
import threading
import time

import pytest

from arena.games.kozel import Play
from arena.games.kozel import codec as kozel_codec
from arena.games.registry import all_games, get_game
from arena.wire.codec import HistoryReader, HistoryWire, ProtocolError, WireMemo, codec_for
from arena.wire.v1 import arena_pb2 as pb


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.name)
def test_observations_actions_and_config_round_trip(game) -> None:  # type: ignore[no-untyped-def]
    codec = codec_for(game.name)
    config = game.config_type()
    assert codec.decode_config(codec.encode_config(config)) == config
    checked = 0
    for seed in range(30):
        rng = random.Random(seed)
        seats = game.min_seats + seed % (game.max_seats - game.min_seats + 1)
        state = game.new_state(config, seats, rng)
        while not state.is_terminal():
            for viewer in range(seats):
                observation = state.observation(viewer)
                wire = pb.Observation.FromString(codec.encode_observation(observation).SerializeToString())
                assert codec.decode_observation(wire) == observation
            for action in state.legal_actions():
                wire_action = pb.Action.FromString(codec.encode_action(action).SerializeToString())
                assert codec.decode_action(wire_action) == action
                checked += 1
            state.apply(state.random_action(rng), rng)
    assert checked > 1000


def test_malformed_messages_are_protocol_errors() -> None:
    codec = codec_for("edible")
    with pytest.raises(ProtocolError, match="got nothing"):
        codec.decode_action(pb.Action())
    with pytest.raises(ProtocolError, match="no move"):
        codec.decode_action(pb.Action(edible=pb.EdibleAction()))
    with pytest.raises(ProtocolError, match="not an edible card"):
        codec.decode_action(pb.Action(edible=pb.EdibleAction(place=7)))  # type: ignore[arg-type]  # on purpose
    with pytest.raises(ProtocolError, match="no codec"):
        codec_for("chess")


def test_the_wire_memo_decodes_each_distinct_message_once_and_never_keeps_a_failure() -> None:
    calls: list[int] = []

    def decode(message: pb.KozelPlay) -> tuple[int | str, ...]:
        calls.append(message.seat)
        if "XX" in message.cards:
            raise ProtocolError("'XX' is not a card")
        return (message.seat, *message.cards)

    memo = WireMemo(decode, limit=2)
    first, again = pb.KozelPlay(seat=1, cards=["7S"]), pb.KozelPlay(seat=1, cards=["7S"])
    assert memo(first) == memo(again) == (1, "7S") and calls == [1]
    assert memo(pb.KozelPlay(seat=2, cards=["7S"])) == (2, "7S") and calls == [1, 2]
    assert memo(pb.KozelPlay(seat=3)) == (3,) and calls == [1, 2, 3]  # full: emptied first
    assert memo(first) == (1, "7S") and calls == [1, 2, 3, 1]
    for _ in range(2):
        with pytest.raises(ProtocolError, match="not a card"):
            memo(pb.KozelPlay(seat=9, cards=["XX"]))
    assert calls[-2:] == [9, 9]


def test_kozel_decodes_each_play_once_however_many_observations_repeat_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A play stays in the trick being played, and then in the deal's finished tricks, for many
    observations of every seat: each distinct play is decoded once."""
    decoded: list[bytes] = []
    memo = kozel_codec._decode_play
    monkeypatch.setattr(memo, "_values", {})
    decode = kozel_codec._play_from_pb

    def noted(play: pb.KozelPlay) -> Play:
        decoded.append(play.SerializeToString())
        return decode(play)

    monkeypatch.setattr(memo, "decode", noted)
    game, codec = get_game("kozel"), codec_for("kozel")
    rng = random.Random(5)
    state = game.new_state(game.config_type(), 4, rng)
    seen = 0
    while not state.is_terminal():
        for seat in range(4):
            observation = state.observation(seat)
            wire = pb.Observation.FromString(codec.encode_observation(observation).SerializeToString())
            assert codec.decode_observation(wire) == observation
            seen += len(observation.trick) + sum(len(trick.plays) for trick in observation.tricks)
        state.apply(state.random_action(rng), rng)
    assert len(decoded) == len(set(decoded)) and seen > 10 * len(decoded)


def test_the_history_wire_is_the_history_encoded_whatever_came_before() -> None:
    """A history's bytes are its entries' bytes joined: built on the last history's when it
    begins with it, from scratch when it does not (another game's, one cut shorter)."""
    wire: HistoryWire[str] = HistoryWire(lambda entry: entry.encode())
    for history in [("a",), ("a", "b"), ("a", "b"), ("a", "b", "c", "d"), ("x", "b"), (), ("a",), ("a", "c")]:
        assert wire(history) == "".join(history).encode()


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.name)
def test_a_seats_reader_decodes_as_the_codec_does(game) -> None:  # type: ignore[no-untyped-def]
    """A seat's reader through a match (believe's decodes only the calls and piles new since the
    seat's last decision, kozel's only the deal's new tricks) gives what the codec gives, game
    after game, whether or not it is told each game's start (a history that did not grow from
    what it kept is decoded afresh)."""
    codec = codec_for(game.name)
    config = game.config_type()
    seats = min(game.max_seats, 4)
    for told in (True, False):
        readers = [codec.reader() for _ in range(seats)]
        decisions = 0
        for seed in range(12):
            rng = random.Random(seed)
            state = game.new_state(config, seats, rng)
            if told:
                for reader in readers:
                    reader.new_game()
            while not state.is_terminal():
                seat = state.to_act()
                assert seat is not None
                wire = pb.Observation.FromString(
                    codec.encode_observation(state.observation(seat)).SerializeToString()
                )
                assert readers[seat].decode(wire) == codec.decode_observation(wire) == state.observation(seat)
                decisions += 1
                state.apply(state.random_action(rng), rng)
        assert decisions > 300


def test_believe_reader_decodes_a_history_that_did_not_grow_from_its_own_afresh() -> None:
    """Told of no new game, a reader that kept one game's calls meets another game's longer
    history: it must not take the first calls for its own."""
    codec = codec_for("believe")
    game = get_game("believe")

    def observations(seed: int) -> list[pb.Observation]:
        rng = random.Random(seed)
        state = game.new_state(game.config_type(), 3, rng)
        seen = []
        while not state.is_terminal():
            seen.append(codec.encode_observation(state.observation(0)))
            state.apply(state.random_action(rng), rng)
        return seen

    first, second = observations(1), observations(2)
    early = next(message for message in first if len(message.believe.checks) == 2)
    later = next(message for message in second if len(message.believe.checks) > 4)
    assert early.believe.checks[:2] != later.believe.checks[:2]
    reader = codec.reader()
    assert reader.decode(early) == codec.decode_observation(early)
    assert reader.decode(later) == codec.decode_observation(later)


def test_a_history_reader_decodes_only_what_is_new_in_its_era() -> None:
    """Entries kept from the last decision are not decoded again; a new era (a new deal), a
    shorter history or one whose last kept entry differs is decoded whole."""
    decoded: list[str] = []

    def decode(entry: str) -> str:
        decoded.append(entry)
        return entry.upper()

    reader = HistoryReader(decode)
    assert reader(["a", "b"], era=1) == ("A", "B") and decoded == ["a", "b"]
    decoded.clear()
    # The last entry kept is checked against its message, not decoded again.
    assert reader(["a", "b", "c"], era=1) == ("A", "B", "C") and decoded == ["c"]
    decoded.clear()
    assert reader(["a", "b", "c"], era=2) == ("A", "B", "C") and decoded == ["a", "b", "c"]
    assert reader(["x", "y", "z", "d"], era=2) == ("X", "Y", "Z", "D")
    assert reader(["x"], era=2) == ("X",)
    reader.forget()
    assert reader(["q"], era=2) == ("Q",)


def test_the_history_wire_never_pairs_one_threads_history_with_anothers_bytes() -> None:
    """Two matches in threads of one process (the web app's validations) share a codec's history
    wire: each gets its own history's bytes, however their threads interleave (here a history
    gives the other thread its turn whenever its length is asked)."""
    wire: HistoryWire[str] = HistoryWire(lambda entry: entry.encode())
    wrong: list[tuple[str, ...]] = []

    class Yielding(tuple[str, ...]):
        def __len__(self) -> int:
            time.sleep(0)
            return super().__len__()

    def play(letter: str) -> None:
        for _ in range(50):
            history: tuple[str, ...] = ()
            for length in range(8):
                history = Yielding((*history, f"{letter}{length}"))
                if wire(history) != "".join(history).encode():
                    wrong.append(history)

    threads = [threading.Thread(target=play, args=(letter,)) for letter in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong
