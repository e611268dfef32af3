"""Records written straight into a store for the pages to show: bots, tournaments and matches with
their results, and a set of bots with a known record against each other."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.store.models import Bot, BotVersion, GameOutcome, Match, MatchStatus, SeatResult, Tournament, now


def add_bot(session: Session, game: str, name: str, versions: int = 1) -> list[int]:
    """A bot (built-in by owner, so that nothing schedules it) with ``versions`` validated versions;
    their ids, oldest first."""
    bot = Bot(game=game, name=name, owner_id=None)
    session.add(bot)
    session.flush()
    made = [BotVersion(bot_id=bot.id, spec=f"artifact:{name}-{n}", validated=True) for n in range(versions)]
    session.add_all(made)
    session.flush()
    return [version.id for version in made]


def add_tournament(session: Session, game: str, kind: str = "round_robin", rated: bool = True) -> Tournament:
    """A tournament of ``game``: rated (as an admin's, so its matches move the ladder), or not."""
    tournament = Tournament(
        game=game,
        game_version=get_game(game).version,
        config={},
        kind=kind,
        games_per_match=1,
        seed=1,
        rated=rated,
    )
    session.add(tournament)
    session.flush()
    return tournament


def add_match(
    session: Session,
    tournament: Tournament,
    entrants: list[int],
    games: list[list[int]],
    status: MatchStatus = MatchStatus.DONE,
) -> int:
    """A recorded match of these bot versions (in seat order; a kozel team's bot in both of its
    side's seats) played in the same seats every game, with each game's ranks per seat (0 the best),
    and each seat's totals; its id."""
    index = len(tournament.matches)
    match = Match(
        tournament_id=tournament.id,
        index=index,
        seed=index,
        entrants=entrants,
        status=status,
        finished_at=now(),
    )
    session.add(match)
    session.flush()
    for game_index, ranks in enumerate(games):
        session.add(
            GameOutcome(
                match_id=match.id,
                game=tournament.game,
                game_index=game_index,
                deal=game_index,
                seats=entrants,
                ranks=ranks,
                statuses=["ok"] * len(entrants),
            )
        )
    for agent, version in enumerate(entrants):
        places = [ranks[agent] for ranks in games]
        session.add(
            SeatResult(
                match_id=match.id,
                agent=agent,
                bot_version_id=version,
                games=len(games),
                wins=places.count(0),
                score=float(places.count(0)),
                mean_rank=sum(places) / len(places) if places else 0.0,
                statuses={"ok": len(games)},
            )
        )
    session.flush()
    session.expire(tournament, ["matches"])
    return match.id


def head_to_head_games(session: Session) -> dict[str, int]:
    """Bots with a known record against each other; their ids by name.

    Edible: x, y (two versions, one bot), z, and w. Against y, x is ahead 2, behind 2, tied 1 (over
    y's two versions); against z, ahead 2, behind 1; w met x only in a voided match, which counts
    for nothing. Kozel (a bot holds both seats of its side): against b, a is ahead 1, behind 1,
    tied 1 (a drawn game); against c, ahead 1."""
    x, z, w = (add_bot(session, "edible", f"h2h-{name}")[0] for name in "xzw")
    y1, y2 = add_bot(session, "edible", "h2h-y", versions=2)
    edible = add_tournament(session, "edible")
    add_match(session, edible, [x, y1, z], [[0, 1, 1], [1, 0, 2], [2, 1, 0]])
    add_match(session, edible, [x, y2], [[0, 1], [0, 0]])
    add_match(session, edible, [x, w], [[0, 1]], MatchStatus.VOID)
    a, b, c = (add_bot(session, "kozel", f"h2h-{name}")[0] for name in "abc")
    kozel = add_tournament(session, "kozel", "team_round_robin")
    add_match(session, kozel, [a, b, a, b], [[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 0]])
    add_match(session, kozel, [a, c, a, c], [[0, 1, 0, 1]])
    names = session.execute(select(Bot.name, Bot.id).where(Bot.name.like("h2h-%"))).all()
    return {name.removeprefix("h2h-"): bot_id for name, bot_id in names}
