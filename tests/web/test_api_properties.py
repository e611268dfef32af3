"""Property-based tests of the JSON API (issue 18): schemathesis (pinned in the ``dev`` extra) makes
requests from the running server's own OpenAPI spec (``/api/openapi.json``), valid and invalid
ones, through all its phases (boundary cases of every parameter, then fuzzing, then stateful runs
that follow what one call returns into the next), and every response must conform to the spec: no
5xx, only documented status codes, and bodies, content types and headers as the spec says; invalid
input is refused. Signed in with a plain user's API token, so admin actions answer 403, as documented.

The budget is fixed (``EXAMPLES`` per operation, one worker) and the run deterministic
(``--generation-deterministic``, which keeps no example database): the same requests every run,
about ten seconds. The pytest plugin's lazy loading (``schemathesis.pytest.from_fixture``) needs a private
attribute pytest 9.2 no longer has, so the test runs the command line against the real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from served import Web, wait_for_tournament

EXAMPLES = 50
"""Generated examples per API operation and phase."""
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)


def test_every_response_conforms_to_the_spec(web: Web, tmp_path: Path) -> None:
    token = web.user("prop")
    # something to find: a played tournament (ids from 1, where the boundary cases look first)
    reply = web.client(token).post_json(
        "/api/v1/tournaments",
        {"game": "edible", "bots": ["builtin:random", "builtin:heuristic"], "games_per_match": 2},
    )
    assert reply.status == 200, reply.text
    wait_for_tournament(web.client(), reply.json()["id"])
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{web.base}/api/openapi.json",
        "--header",
        f"Authorization: Bearer {token}",
        "--checks",
        ",".join(CHECKS),
        "--max-examples",
        str(EXAMPLES),
        "--generation-deterministic",  # no example database either
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--no-color",
        "--report-dir",
        str(tmp_path),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    spec = web.client().get("/api/openapi.json").json()
    operations = sum(len(methods) for methods in spec["paths"].values())
    assert f"Operations:       {operations} selected / {operations} total" in run.stdout, run.stdout
