"""The web app on the production store (a throwaway database on the shared PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from served import Client, start_server, wait_for_tournament
from services import shared_postgres_database


def test_bootstrap_an_admin_then_serve_and_run_a_tournament_on_postgresql(tmp_path: Path) -> None:
    arena = Path(sys.executable).with_name("arena")
    with shared_postgres_database() as url:
        env = {**os.environ, "ARENA_HOME": str(tmp_path), "ARENA_DATABASE_URL": url}

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([arena, *args], env=env, capture_output=True, text=True, timeout=120)

        assert run("db", "upgrade").returncode == 0
        first = run("user", "create", "root")
        assert first.returncode == 0 and first.stdout.startswith("admin user root created"), first.stderr
        token = first.stdout.strip().splitlines()[-1]
        second = run("user", "create", "eve")  # no token: refused now that an admin exists
        assert second.returncode == 2 and "API token is required" in second.stderr
        process, base = start_server(tmp_path, {"ARENA_DATABASE_URL": url})
        try:
            admin = Client(base, token)
            assert admin.get("/api/v1/me").json()["is_admin"] is True
            created = admin.post_json(
                "/api/v1/tournaments",
                {
                    "game": "believe",
                    "bots": ["builtin:caller", "builtin:random"],
                    "games_per_match": 3,
                    "rated": True,
                },
            )
            assert created.status == 200, created.text
            state = wait_for_tournament(admin, created.json()["id"])
            assert state["counts"] == {"done": state["total"]}
            ladder = Client(base).get("/api/v1/ladders/believe").json()
            assert {entry["bot"] for entry in ladder["entries"]} == {"builtin:caller", "builtin:random"}
            assert all(entry["games"] == 3 * state["total"] for entry in ladder["entries"])
        finally:
            process.terminate()
            process.wait(timeout=20)
