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
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="rating history: {len(points)} points, Elo {points[-1].elo:.0f} now">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
        'fill="#fafafa" stroke="#ddd"/>',
    ]
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
