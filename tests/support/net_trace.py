"""What a process sends over the network, seen from outside: a command is run under strace and its
``connect``, ``sendto``, ``sendmsg`` and ``sendmmsg`` calls are listed with their destination.

Used by tests/e2e/test_privacy.py (which fails on any destination that is not loopback) and by
tests/bench/bench_privacy.py (which prints the counts per command).
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

TRACED_CALLS = ("connect", "sendto", "sendmsg", "sendmmsg")
_CALL = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(" + "|".join(TRACED_CALLS) + r")\((\d+),")
_FAMILY = re.compile(r"sa_family=(AF_INET6?)\b")
_PORT = re.compile(r"sin6?_port=htons\((\d+)\)")
_ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6?, "([^"]+)"')


@dataclass(frozen=True)
class NetCall:
    """One system call that opened or used a route to an internet (IPv4/IPv6) address."""

    pid: int
    call: str
    family: str
    address: str
    port: int

    @property
    def loopback(self) -> bool:
        try:
            address = ipaddress.ip_address(self.address)
        except ValueError:
            return False
        mapped = getattr(address, "ipv4_mapped", None)
        return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))

    @property
    def dns(self) -> bool:
        return self.port == 53

    def __str__(self) -> str:
        return f"pid {self.pid} {self.call} to {self.address} port {self.port}"


def strace_problem() -> str | None:
    """Why strace cannot watch a process here (not installed, or tracing not permitted), or None."""
    strace = shutil.which("strace")
    if strace is None:
        return "strace is not installed (Debian: apt-get install strace; `make setup` installs it when run as root)"
    probe = subprocess.run([strace, "-f", "-qq", "-e", "trace=connect", "-o", "/dev/null", "true"],
                           capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"strace cannot trace processes here: {probe.stderr.strip() or probe.returncode}"
    return None


def traced(command: Sequence[str], trace_file: Path) -> list[str]:
    """``command`` run under strace, its children followed, the network calls written to ``trace_file``."""
    return ["strace", "-f", "-qq", "-s", "64", "-e", "trace=" + ",".join(TRACED_CALLS), "-o", str(trace_file),
            *command]


def net_calls(trace_file: Path) -> list[NetCall]:
    """The calls in a trace that name an IPv4 or IPv6 destination (local sockets and netlink are left out;
    a send without a destination goes where its socket's ``connect`` already said)."""
    calls: list[NetCall] = []
    for line in trace_file.read_text(encoding="utf-8", errors="replace").splitlines():
        call = _CALL.match(line)
        family = _FAMILY.search(line)
        if call is None or family is None:
            continue
        port = _PORT.search(line)
        address = _ADDRESS.search(line)
        calls.append(NetCall(int(call.group(1)), call.group(2), family.group(1),
                             (address.group(1) or address.group(2)) if address else "?",
                             int(port.group(1)) if port else -1))
    return calls


def outbound(calls: Sequence[NetCall]) -> list[NetCall]:
    """The calls that leave the machine: every destination that is not a loopback address."""
    return [c for c in calls if not c.loopback]


def counts(calls: Sequence[NetCall]) -> dict[str, int]:
    """DNS lookups, other outbound calls and loopback calls, for a printed summary."""
    out = outbound(calls)
    return {
        "dns": sum(1 for c in out if c.dns),
        "other_outbound": sum(1 for c in out if not c.dns),
        "loopback": len(calls) - len(out),
    }
