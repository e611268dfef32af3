"""Other hosts on this machine, for multi-host tests: a host is a network namespace joined to this
one by a veth pair on a private /30 of its own, with a mount namespace of its own in which given
folders of this machine are hidden under empty tmpfs mounts.

A command runs on the host through ``nsenter`` into both namespaces (not ``ip netns exec``: that
mounts a new /sys, and with it the cgroup hierarchies under /sys/fs/cgroup vanish, which the
bubblewrap sandbox's limits need). The host reaches this machine only at ``outside.ip``, the
veth's far end, and this machine reaches it at ``inside.ip``; its loopback is its own.

Names and subnets derive from this process's id and a counter (checked against the addresses in
use), so that test runs at the same time never collide. Leaving ``network_host``, failed or not,
kills every process of the host (and their descendants, such as sandboxed bots in namespaces of
their own), deletes the namespace and its veth, and fails if anything is left. A namespace that a
killed test run left behind is removed by the next run.

Root only: without it the tests fail with the reason (they are never skipped).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path
from typing import Any

import pytest

PREFIX = "arena-test-"
"""Of the namespaces made here: ``arena-test-PID-N``, PID being the test process's."""
SUBNETS = IPv4Network("10.192.0.0/10")
HIDDEN_SIZE = "256m"
_numbers = itertools.count()


def _ip(*args: str) -> str:
    """Run ``ip ARGS``; its output, or the test fails with ip's own words."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done.stdout


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip()]


def _links() -> set[str]:
    return {link["ifname"] for link in json.loads(_ip("-j", "link", "show"))}


def _networks_in_use() -> list[IPv4Network]:
    return [
        IPv4Interface(f"{address['local']}/{address['prefixlen']}").network
        for link in json.loads(_ip("-j", "-4", "address", "show"))
        for address in link.get("addr_info", [])
    ]


def _free_subnet(pid: int, number: int) -> IPv4Network:
    used = _networks_in_use()
    for attempt in range(64):
        index = (pid % (1 << 14)) << 6 | (number + attempt) % 64
        subnet = IPv4Network((int(SUBNETS.network_address) + 4 * index, 30))
        if not any(subnet.overlaps(network) for network in used):
            return subnet
    pytest.fail(f"no free /30 in {SUBNETS} for test process {pid}")


@dataclass(frozen=True)
class _Process:
    parent: int
    zombie: bool
    net: str
    mnt: str


def _processes() -> dict[int, _Process]:
    """Every process of the machine: parent, whether a zombie, and its network and mount namespaces."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        try:
            net, mnt = os.readlink(entry / "ns" / "net"), os.readlink(entry / "ns" / "mnt")
        except OSError:  # gone meanwhile, or a zombie (its namespaces are gone)
            net = mnt = ""
        table[int(entry.name)] = _Process(int(fields[1]), fields[0] == "Z", net, mnt)
    return table


@dataclass
class Host:
    """A host made of namespaces (see the module's docstring)."""

    name: str
    """The network namespace's, as ``ip netns`` knows it."""
    outside: IPv4Interface
    """This machine's end of the veth: the address the host reaches it at, with the /30."""
    inside: IPv4Interface
    """The host's end of the veth."""
    links: tuple[str, str]
    """The veth's two ends: this machine's, the host's."""
    holder: subprocess.Popen[bytes] | None = None
    """A process that keeps the host's mount namespace (with its tmpfs mounts) while the host lives."""
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _net: str = ""
    _mnt: str = ""
    """The namespaces, as /proc/PID/ns names them, while ``_pins`` keep them (and their numbers)."""
    _pins: list[int] = field(default_factory=list)

    def _pin(self, kind: str, path: str) -> str:
        pin = os.open(path, os.O_RDONLY)
        self._pins.append(pin)
        return f"{kind}:[{os.fstat(pin).st_ino}]"

    def command(self, argv: Sequence[str | Path], cwd: str | Path = "/") -> list[str]:
        """``argv`` as a command that runs on the host, in ``cwd`` (as the host sees it)."""
        assert self.holder is not None
        target = str(self.holder.pid)
        into = ["nsenter", "--target", target, "--net", "--mount", "--", "env", f"--chdir={cwd}"]
        return [*into, *map(str, argv)]

    def popen(
        self, argv: Sequence[str | Path], cwd: str | Path = "/", **options: Any
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` on the host (with ``subprocess.Popen``'s options); it ends with the host."""
        process = subprocess.Popen(self.command(argv, cwd), **options)
        self.started.append(process)
        return process

    def run(
        self, argv: Sequence[str | Path], cwd: str | Path = "/", **options: Any
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` on the host to its end, its output captured as text."""
        options = {"capture_output": True, "text": True, "timeout": 60, **options}
        return subprocess.run(self.command(argv, cwd), **options)

    def hide(self, *folders: Path) -> None:
        """Show each of ``folders`` (folders of this machine) on the host as an empty tmpfs of its
        own: what the host writes there stays on the host."""
        assert self.holder is not None
        for folder in folders:
            into = ["nsenter", "--target", str(self.holder.pid), "--mount", "--", "mount", "-t", "tmpfs"]
            options = ["-o", f"mode=0755,size={HIDDEN_SIZE}", "arena-test-host", str(folder)]
            done = subprocess.run([*into, *options], capture_output=True, text=True)
            if done.returncode != 0:
                pytest.fail(f"cannot hide {folder} from host {self.name}: {done.stderr.strip()}")

    def pids(self) -> set[int]:
        """Every live process of the host: those in its network or mount namespace, those it
        started, and all their descendants (sandboxed bots have namespaces of their own)."""
        table = _processes()
        ours = {self._net, self._mnt} - {""}
        roots = {pid for pid, process in table.items() if ours & {process.net, process.mnt}}
        roots |= {process.pid for process in self._ours() if process.poll() is None}
        children: dict[int, list[int]] = {}
        for pid, process in table.items():
            children.setdefault(process.parent, []).append(pid)
        found, todo = set(), list(roots)
        while todo:
            pid = todo.pop()
            if pid not in found:
                found.add(pid)
                todo += children.get(pid, [])
        return {pid for pid in found if not table[pid].zombie}

    def _ours(self) -> list[subprocess.Popen[bytes]]:
        return [*self.started, *([self.holder] if self.holder else [])]

    def process_names(self) -> set[str]:
        """The command names (``comm``) of the host's live processes."""
        names = set()
        for pid in self.pids():
            with contextlib.suppress(OSError):
                names.add(Path(f"/proc/{pid}/comm").read_text().strip())
        return names

    def stop_processes(self, patience: float = 10.0) -> None:
        """SIGKILL every process of the host until none is left; fails if some outlive ``patience``."""
        deadline = time.monotonic() + patience
        while True:
            for process in self._ours():
                process.poll()  # reap
            left = self.pids()
            if not left:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"host {self.name}: processes {sorted(left)} outlived SIGKILL")
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)

    def leftovers(self) -> list[str]:
        """What of the host still exists (after ``close``: nothing)."""
        found = []
        if self.name in _namespaces():
            found.append(f"network namespace {self.name}")
        found += [f"link {link}" for link in self.links if link in _links()]
        if self.outside.network in _networks_in_use():
            found.append(f"address {self.outside}")
        return found + [f"process {pid}" for pid in self.pids()]

    def close(self) -> None:
        try:
            self.stop_processes()
        finally:
            if self.holder is not None:
                for pipe in (self.holder.stdout, self.holder.stderr):
                    if pipe is not None:
                        pipe.close()
            # The pair at once: a namespace's devices go some time after the namespace does.
            subprocess.run(["ip", "link", "delete", self.links[0]], capture_output=True)
            subprocess.run(["ip", "netns", "delete", self.name], capture_output=True)
            for pin in self._pins:
                os.close(pin)
            self._pins, self._net, self._mnt = [], "", ""  # freed: their numbers may name others'
        left = self.leftovers()
        if left:
            raise AssertionError(f"host {self.name} left behind: {', '.join(left)}")


def _check_can() -> None:
    if os.geteuid() != 0:
        pytest.fail("multi-host tests make network and mount namespaces: run them as root (CI does)")
    missing = [tool for tool in ("ip", "nsenter", "unshare", "setpriv") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"multi-host tests need {', '.join(missing)}: apt-get install iproute2 util-linux")


def sweep_stale_hosts() -> list[str]:
    """Remove the hosts of test processes that are gone (killed before they could); their names."""
    swept = []
    for name in _namespaces():
        owner = name.removeprefix(PREFIX).split("-", 1)[0]
        if name.startswith(PREFIX) and owner.isdigit() and not Path(f"/proc/{owner}").exists():
            for pid in _ip("netns", "pids", name).split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "delete", name], capture_output=True)
            swept.append(name)
    return swept


@contextlib.contextmanager
def network_host() -> Iterator[Host]:
    """A new host, seeing this machine's folders until ``Host.hide`` hides some."""
    _check_can()
    sweep_stale_hosts()
    pid, number = os.getpid(), next(_numbers)
    subnet = _free_subnet(pid, number)
    outside, inside = (IPv4Interface(f"{address}/{subnet.prefixlen}") for address in list(subnet.hosts())[:2])
    host = Host(
        name=f"{PREFIX}{pid}-{number}",
        outside=outside,
        inside=inside,
        links=(f"ar{pid}o{number}", f"ar{pid}i{number}"),
    )
    assert all(len(link) <= 15 for link in host.links), host.links
    try:
        _ip("netns", "add", host.name)
        host._net = host._pin("net", f"/run/netns/{host.name}")
        out, into = host.links
        _ip("link", "add", out, "type", "veth", "peer", "name", into, "netns", host.name)
        _ip("address", "add", str(outside), "dev", out)
        _ip("link", "set", out, "up")
        for args in (["address", "add", str(inside), "dev", into], ["link", "set", into, "up"]):
            _ip("-n", host.name, *args)
        _ip("-n", host.name, "link", "set", "lo", "up")
        # A slave of this machine's mounts (as `ip netns exec` makes it), not a private copy: a
        # private copy would pin every other run's namespace (its /run/netns entry), and its veth,
        # until this host ends.
        enter = ["nsenter", f"--net=/run/netns/{host.name}", "--", "unshare", "--mount", "--propagation"]
        hold = ["slave", "--", "sh", "-c", "echo ready && exec setpriv --pdeathsig KILL -- sleep infinity"]
        host.holder = subprocess.Popen(
            [*enter, *hold],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert host.holder.stdout is not None
        if host.holder.stdout.readline() != b"ready\n":
            host.holder.wait()
            assert host.holder.stderr is not None
            pytest.fail(f"cannot start host {host.name}: {host.holder.stderr.read().decode().strip()}")
        host._mnt = host._pin("mnt", f"/proc/{host.holder.pid}/ns/mnt")
        yield host
    finally:
        host.close()
