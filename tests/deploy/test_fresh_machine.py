"""The tests on a fresh machine: no PostgreSQL running, its programs where Debian's package puts
them. The tests' services must still give them real servers, and leave nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

TWO_DATABASES = """
import json, sys
import sqlalchemy as sa
import services

made = []
for value in (1, 2):
    with services.shared_postgres_database() as url:
        engine = sa.create_engine(url)
        with engine.begin() as connection:
            connection.execute(sa.text("CREATE TABLE kept (value integer)"))
            connection.execute(sa.text("INSERT INTO kept VALUES (:value)"), {"value": value})
        with engine.connect() as connection:
            values = connection.execute(sa.text("SELECT value FROM kept")).scalars().all()
        engine.dispose()
        made.append({"url": url, "values": values})
print(json.dumps({"made": made, "folder": str(services._stand_in[0].folder)}))
"""


def test_with_no_postgresql_running_the_throwaway_databases_are_on_a_private_server_for_the_run() -> None:
    """In a network namespace of its own, nothing answers on 127.0.0.1:5432 (as on a machine with
    no PostgreSQL running), and with PATH left to the system's folders initdb and pg_ctl are found
    only where Debian's postgresql package puts them. Two throwaway databases are made there, on
    one private server started for the run, and the server is gone when the run ends."""
    if os.geteuid() != 0:
        pytest.fail("this test makes a network namespace: run it as root")
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        pytest.fail("Debian's postgresql package is not installed (apt-get install postgresql)")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:/usr/sbin:/usr/bin:/sbin:/bin",
        "PYTHONPATH": str(TESTS),
    }
    env.pop("ARENA_TEST_POSTGRES", None)
    assert shutil.which("initdb", path=env["PATH"]) is None
    script = f"ip link set lo up && exec {sys.executable} -c '{TWO_DATABASES}'"
    run = subprocess.run(
        ["unshare", "--net", "sh", "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    first, second = report["made"]
    assert [first["values"], second["values"]] == [[1], [2]]
    assert first["url"] != second["url"]
    assert first["url"].rsplit("/", 1)[0] == second["url"].rsplit("/", 1)[0]
    assert ":5432/" not in first["url"]
    assert not Path(report["folder"]).exists()
    postgres = subprocess.run(["pgrep", "-f", report["folder"]], capture_output=True, text=True)
    assert postgres.stdout == ""
