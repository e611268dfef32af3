"""A bot page's challenges, straight from the store on both databases: either side's, waiting and
done, each side's score (a kozel side's two seats count once), newest first; and whom the form offers."""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.store.db import Store
from arena.store.models import Match, MatchStatus, SeatResult, User, now
from arena.store.repo import bot_version, create_user, latest_version
from arena.tournament import challenges
from arena.web.views.bots import bot_page
from arena.web.views.challenges import opponents


def own_bot(session: Session, user: User, game: str, name: str) -> int:
    version = bot_version(session, game, name, f"artifact:{name}", user)
    version.validated = True
    return version.bot_id


def finish(session: Session, match: Match, scores: dict[int, float]) -> None:
    """Record ``match`` done, each seat scoring its version's score."""
    match.status, match.finished_at = MatchStatus.DONE, now()
    for agent, version in enumerate(match.entrants):
        score = scores[version]
        session.add(
            SeatResult(
                match_id=match.id,
                agent=agent,
                bot_version_id=version,
                games=4,
                wins=int(score),
                score=score,
                mean_rank=0.5,
                statuses={"ok": 4},
            )
        )
    session.flush()


def test_a_bot_page_lists_its_challenges_on_either_side(store: Store) -> None:
    with store.session() as session:
        gil, hal = create_user(session, "gil")[0], create_user(session, "hal")[0]
        gils, hals = own_bot(session, gil, "kozel", "gils"), own_bot(session, hal, "kozel", "hals")
        closed = own_bot(session, hal, "kozel", "shut")
        challenges.set_open(session, hal, hals, True)
        done = challenges.create_challenge(session, gil, gils, "hals", 4)
        waiting = challenges.create_challenge(session, gil, gils, "builtin:random", 4)
        other = challenges.create_challenge(session, hal, hals, "builtin:heuristic", 4)
        versions = {name: latest_version(session, "kozel", name).id for name in ("gils", "hals")}
        finish(session, done.matches[0], {versions["gils"]: 3.0, versions["hals"]: 1.0})
        page = bot_page(session, gils, None)
        assert [(c.opponent, c.status, c.score, c.opponent_score, c.games) for c in page.challenges] == [
            ("builtin:random", "pending", None, None, None),
            ("hals", "done", 3.0, 1.0, 4),
        ]
        assert page.challenges[1].match_id == done.matches[0].id and page.challenges[1].challenger == "gil"
        theirs = bot_page(session, hals, None).challenges
        assert [(c.opponent, c.status, c.score, c.opponent_score) for c in theirs] == [
            ("builtin:heuristic", "pending", None, None),
            ("gils", "done", 1.0, 3.0),
        ]
        assert other.id == theirs[0].tournament_id and waiting.id == page.challenges[0].tournament_id
        # the form: the built-ins, one's own bots and the open ones, never the bot itself
        assert opponents(session, gil, gils) == [
            "builtin:random",
            "builtin:heuristic",
            "builtin:search",
            "hals",
        ]
        assert opponents(session, hal, hals) == [
            "builtin:random",
            "builtin:heuristic",
            "builtin:search",
            "shut",
        ]
        assert opponents(session, gil, closed) == [] and opponents(session, None, gils) == []
