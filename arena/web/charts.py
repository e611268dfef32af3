"""Server-rendered SVG charts (no script, no external assets)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape

from arena.web.views.bots import HistoryPoint, VersionInfo

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 14, 44
DATE_LABELS = 5
"""Dates marked along the x axis at most (the first and last events', and between)."""
COLOURS = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777")


def rating_history(points: Sequence[HistoryPoint], versions: Sequence[VersionInfo]) -> str:
    """Elo over the bot's rating events (x: the n-th event, marked with its date (UTC) at a few
    points, as days or times as the span asks: ``_date_formats``), one colour per version:
    live Elo as a line, refits as dots with their 95% interval. Empty string when there is nothing
    to plot."""
    if not points:
        return ""
    lows = [p.elo - (p.halfwidth or 0.0) for p in points]
    highs = [p.elo + (p.halfwidth or 0.0) for p in points]
    low, high = min(lows), max(highs)
    pad = max(10.0, (high - low) * 0.08)
    low, high = low - pad, high + pad
    span = len(points) - 1 or 1

    def x(i: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * i / span

    def y(elo: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (high - elo) / (high - low)

    colour = {v.id: COLOURS[i % len(COLOURS)] for i, v in enumerate(versions)}
    parts = _frame(f"rating history: {len(points)} points, Elo {points[-1].elo:.0f} now")
    for tick in _ticks(low, high):
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#eee"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="11">{tick:.0f}</text>'
        )
    for version_id in dict.fromkeys(p.version_id for p in points):
        mine = [(i, p) for i, p in enumerate(points) if p.version_id == version_id]
        stroke = colour.get(version_id, COLOURS[0])
        path = " ".join(f"{x(i):.1f},{y(p.elo):.1f}" for i, p in mine)
        parts.append(f'<polyline fill="none" stroke="{stroke}" stroke-width="1.5" points="{path}"/>')
        for i, p in mine:
            if p.kind == "fit" and p.halfwidth is not None:
                label = escape(f"refit: {p.elo:.0f} ± {p.halfwidth:.0f} after {p.games} games")
                parts.append(
                    f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{y(p.elo - p.halfwidth):.1f}" '
                    f'y2="{y(p.elo + p.halfwidth):.1f}" stroke="{stroke}"/>'
                    f'<circle cx="{x(i):.1f}" cy="{y(p.elo):.1f}" r="3.5" fill="{stroke}">'
                    f"<title>{label}</title>"
                    "</circle>"
                )
    first, then = _date_formats(points[0].at, points[-1].at)
    previous = ""
    for k, i in enumerate(_date_marks(len(points))):
        at = points[i].at
        label = at.strftime(first if k == 0 else then)
        if label == previous:  # events close together: one label says it
            continue
        previous = label
        anchor = "start" if i == 0 and len(points) > 1 else "end" if i == len(points) - 1 else "middle"
        parts.append(
            f'<line x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{HEIGHT - BOTTOM}" y2="{HEIGHT - BOTTOM + 4}" '
            'stroke="#999"/>'
            f'<text class="date" x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 15}" font-size="11" '
            f'text-anchor="{anchor}"><title>{at:%Y-%m-%d %H:%M} UTC</title>{label}</text>'
        )
    parts.append(
        f'<text x="{(LEFT + WIDTH) / 2:.0f}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle" '
        'fill="#6b7280">'
        "line: live Elo after each match · dots: batch refits with 95% interval · dates in UTC</text></svg>"
    )
    return "".join(parts)


def _date_formats(start: datetime, end: datetime) -> tuple[str, str]:
    """How to write the dates on the x axis (the first label's, the others'): days over a long span,
    times (seconds too for less than an hour) over a short one, the first with its day."""
    span = end - start
    if span >= timedelta(days=2):
        return "%d %b", "%d %b"
    if start.date() != end.date():
        return "%d %b %H:%M", "%d %b %H:%M"
    if span >= timedelta(hours=1):
        return "%d %b %H:%M", "%H:%M"
    return "%d %b %H:%M:%S", "%H:%M:%S"


def _date_marks(count: int, most: int = DATE_LABELS) -> list[int]:
    """Indices of the points whose dates label the x axis: the first, the last and evenly between."""
    if count <= most:
        return list(range(count))
    return sorted({round(k * (count - 1) / (most - 1)) for k in range(most)})


def _ticks(low: float, high: float) -> list[float]:
    step = next(s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if (high - low) / s <= 6)
    first = -(-low // step) * step
    return [first + k * step for k in range(int((high - first) // step) + 1)]


def _frame(label: str) -> list[str]:
    """A chart's opening: the SVG element (its accessible ``label``) and the plot area."""
    return [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
        'fill="#fafafa" stroke="#ddd"/>',
    ]


def llr_history(points: Sequence[tuple[int, float]], lower: float, upper: float) -> str:
    """An A/B test's LLR after each landed match (x: games played), between its two bounds drawn
    as dashed lines: above the upper one NEW is better, below the lower one it is not. Empty string
    before the first match lands."""
    if not points:
        return ""
    low = min(lower, *(llr for _, llr in points))
    high = max(upper, *(llr for _, llr in points))
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    most = max(games for games, _ in points)

    def x(games: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * games / most

    def y(llr: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (high - llr) / (high - low)

    now = points[-1][1]
    parts = _frame(f"LLR after {len(points)} matches: {now:+.2f}, bounds {lower:+.2f} and {upper:+.2f}")
    for bound, colour, label in (
        (upper, COLOURS[2], "better"),
        (0.0, "#bbb", ""),
        (lower, COLOURS[1], "not better"),
    ):
        at = f"{y(bound):.1f}"
        dashes = "5,4" if label else "2,3"
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{at}" y2="{at}" stroke="{colour}" '
            f'stroke-dasharray="{dashes}"/><text x="{LEFT - 6}" y="{y(bound) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{bound:+.2f}</text>'
        )
        if label:
            parts.append(
                f'<text x="{WIDTH - RIGHT - 4}" y="{y(bound) - 4:.1f}" text-anchor="end" font-size="11" '
                f'fill="{colour}">{label}</text>'
            )
    path = " ".join(f"{x(games):.1f},{y(llr):.1f}" for games, llr in [(0, 0.0), *points])
    parts.append(f'<polyline fill="none" stroke="{COLOURS[0]}" stroke-width="1.5" points="{path}"/>')
    for games, llr in points:
        parts.append(
            f'<circle cx="{x(games):.1f}" cy="{y(llr):.1f}" r="2.5" fill="{COLOURS[0]}">'
            f"<title>{escape(f'LLR {llr:+.2f} after {games} games')}</title></circle>"
        )
    parts.append(
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - BOTTOM + 15}" font-size="11" text-anchor="end">'
        f'{most} games</text><text x="{(LEFT + WIDTH) / 2:.0f}" y="{HEIGHT - 6}" font-size="11" '
        'text-anchor="middle" fill="#6b7280">LLR after each match (x: games played) · dashed: the '
        "bounds where the test stops</text></svg>"
    )
    return "".join(parts)
