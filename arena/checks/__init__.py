"""``arena bot check``: a conformance kit for bot authors.

A bot is run as its own process, through the real transport and sandbox, and asked in scripted
situations that random play rarely reaches: every phase of its game, the largest observations,
a decision near its deadline, and playing on after a fault. Each situation passes or fails with
what was wrong.

- ``situations``: what a situation is (a test on the state; each game lists its own in its
  folder's ``checks``), and the seeded random playout that reaches it;
- ``pins``: where each situation is found (a seed and a decision), pinned as data;
- ``check``: running a bot through them (``run_checks``) and the report.
"""

from arena.checks.check import CheckReport, CheckResult, run_checks

__all__ = ["CheckReport", "CheckResult", "run_checks"]
