"""Scaling out across hosts, on one machine: a worker on a host of its own (``tests/netns.py``: a
network namespace joined by a veth, its own mount namespace) with its own empty data folder and
no folder of the coordinator's, playing against PostgreSQL and Redis reached over the veth; the
coordinator and the web app on this machine, each with its own data folder."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

import pytest
from netns import network_host

REACH = """
import socket, sys
for address, port in [(sys.argv[1], int(sys.argv[2])), ("127.0.0.1", int(sys.argv[3]))]:
    try:
        socket.create_connection((address, port), timeout=2).close()
        print("reached", address)
    except OSError as error:
        print("not", address, type(error).__name__)
"""


def test_a_host_reaches_this_machine_only_over_its_veth_sees_no_hidden_folder_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "secret").write_text("this machine's")
    with network_host() as host, socket.socket() as veth, socket.socket() as loopback:
        for listener, address in [(veth, str(host.outside.ip)), (loopback, "127.0.0.1")]:
            listener.bind((address, 0))
            listener.listen()
        ports = [str(listener.getsockname()[1]) for listener in (veth, loopback)]
        reach = host.run([sys.executable, "-c", REACH, str(host.outside.ip), *ports])
        assert reach.stdout.split("\n")[:2] == [
            f"reached {host.outside.ip}",
            "not 127.0.0.1 ConnectionRefusedError",  # the host's own loopback
        ], reach

        host.hide(tmp_path)
        assert host.run(["ls", "-A", tmp_path]).stdout == ""
        assert host.run(["sh", "-c", f"echo on the host > {tmp_path}/mine"]).returncode == 0
        assert host.run(["cat", tmp_path / "mine"]).stdout == "on the host\n"
        assert sorted(path.name for path in tmp_path.iterdir()) == ["secret"]

        # Processes left on the host: one it started, and an orphan (its parent gone).
        sleeper = host.popen(["sleep", "600"])
        assert host.run(["sh", "-c", "sleep 600 >/dev/null 2>&1 &"]).returncode == 0
        assert host.process_names() == {"sleep"} and len(host.pids()) == 3  # with the host's own

        with pytest.raises(RuntimeError), network_host() as failed:  # a test failing on its host
            failed.popen(["sleep", "600"])
            raise RuntimeError
        assert failed.leftovers() == []
    assert host.leftovers() == [] and sleeper.returncode == -signal.SIGKILL
