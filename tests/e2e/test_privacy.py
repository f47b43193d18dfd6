"""Nothing leaves the machine: real Folio processes, watched by strace, open no socket and send no
datagram to any address that is not loopback, DNS lookups included.

Three processes run the way a person runs them: ``folio ingest`` of the sample report, ``folio ask
--backend embedded`` over it (the embedded LLM and the ONNX embedder loaded for real), and the window
(offscreen) left open for WINDOW_SECONDS, the time onnxruntime's telemetry client needed to start its
lookups when it was active. Each runs with a fresh HOME, so onnxruntime's telemetry store
(~/.cache/Microsoft/DeveloperTools/.onnxruntime) would show up there too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from models.errors import ModelUnavailable
from models.weights import find_weights
from tests.conftest import REPO
from tests.support.net_trace import counts, net_calls, outbound, strace_problem, traced

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

WINDOW_SECONDS = 30
INGEST_TIMEOUT = 300
ASK_TIMEOUT = 420
QUESTION = "Which department's budget grew the most from 2023 to 2024?"


def _environment(tmp_path: Path, models: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("ORT_DISABLE_TELEMETRY", None)  # Folio must switch the telemetry off itself
    home = tmp_path / "home"
    home.mkdir()
    env.update(HOME=str(home), FOLIO_CONFIG_DIR=str(tmp_path / "config"), FOLIO_MODELS_DIR=str(models),
               QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    env.pop("XDG_CACHE_HOME", None)
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    return env


def _report(name: str, trace: Path) -> str:
    calls = net_calls(trace)
    leaving = outbound(calls)
    listed = "; ".join(str(c) for c in leaving[:8]) + (" ..." if len(leaving) > 8 else "")
    return f"{name}: {counts(calls)}" + (f" -- {listed}" if leaving else "")


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    # A session of its own, so the traced process can be ended with strace (killing strace alone leaves it running).
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _finish(process: subprocess.Popen[str], timeout: float) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    return process.returncode, out, err


def test_ingest_ask_and_window_talk_to_nothing_but_loopback(tmp_path: Path) -> None:
    reason = strace_problem()
    if reason:
        pytest.skip(reason)
    try:
        weights = find_weights()
    except ModelUnavailable as exc:
        pytest.skip(f"embedded model weights are not installed: {exc}")
    env = _environment(tmp_path, weights.parent)
    folio = [sys.executable, "-m", "app.main"]
    library = tmp_path / "library"
    traces = {name: tmp_path / f"{name}.strace" for name in ("ingest", "ask", "window")}

    ingest = _start(traced([*folio, "ingest", "--library", str(library),
                            str(REPO / "resources" / "sample_report.pdf")], traces["ingest"]), env)
    code, _, err = _finish(ingest, INGEST_TIMEOUT)
    assert code == 0, err[-2000:]

    # The window and the question run side by side: together they take about as long as the question.
    # Naive mode makes one model call: which hosts a process talks to does not depend on the mode, and
    # the TableRAG loop with the real model has its own test (tests/e2e/test_ask_real_model.py).
    ask = _start(traced([*folio, "ask", "--library", str(library), "--backend", "embedded", "--mode", "naive",
                         "--json", QUESTION], traces["ask"]), env)
    # `timeout` closes the window with SIGTERM when its time is up (and exits 124 if it was still open).
    window = _start(traced(["timeout", "--signal=TERM", str(WINDOW_SECONDS), *folio, "--library", str(library)],
                           traces["window"]), env)
    try:
        window_code, _, window_err = _finish(window, WINDOW_SECONDS + 60)
    finally:
        ask_code, out, err = _finish(ask, ASK_TIMEOUT)
    assert window_code == 124, f"the window closed before {WINDOW_SECONDS} s: {window_err[-2000:]}"
    assert ask_code == 0 and '"answer"' in out, err[-2000:]

    reports = [_report(name, trace) for name, trace in traces.items()]
    leaving = [c for trace in traces.values() for c in outbound(net_calls(trace))]
    assert not leaving, "Folio sent to addresses other than loopback:\n" + "\n".join(reports)
    telemetry_store = Path(env["HOME"]) / ".cache" / "Microsoft"
    assert not telemetry_store.exists(), f"onnxruntime's telemetry store was created: {sorted(telemetry_store.rglob('*'))}"


def test_the_trace_reader_sees_lookups_and_tells_loopback_apart(tmp_path: Path) -> None:
    """Lines as strace wrote them for onnxruntime 1.32's telemetry lookups (before the fix), an Ollama
    check on loopback, and local sockets."""
    trace = tmp_path / "lines.strace"
    trace.write_text(
        '11790 connect(16, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16'
        ' <unfinished ...>\n'
        '11790 <... connect resumed>)            = 0\n'
        '11791 sendto(17, "\\221c\\1\\0\\0\\1\\0\\0\\0\\0\\0\\0\\6mobile\\6events\\4data\\t"..., 50, MSG_NOSIGNAL, NULL, 0) = 50\n'
        '11800 sendto(5, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = 1\n'
        '11801 connect(3, {sa_family=AF_INET, sin_port=htons(11434), sin_addr=inet_addr("127.0.0.1")}, 16) = 0\n'
        '11802 connect(4, {sa_family=AF_INET6, sin6_port=htons(11434), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED\n'
        '11803 connect(5, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 110) = 0\n',
        encoding="utf-8")
    calls = net_calls(trace)
    assert [str(c) for c in outbound(calls)] == ["pid 11790 connect to 10.255.255.53 port 53",
                                                 "pid 11800 sendto to 2001:db8::1 port 443"]
    assert counts(calls) == {"dns": 1, "other_outbound": 1, "loopback": 2}
