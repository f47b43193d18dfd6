"""The warm model process behind ``folio ask``: started on the first question, reused by the next ones,
gone after ``FOLIO_WARM_MODEL_SECONDS`` (default 600) without a question.

Loading the embedded model costs seconds and its KV cache is lost with the process; a warm process keeps
both, so a later ``folio ask`` pays neither. It listens on a Unix socket (``models/llm_warm.py``) in a
folder only this user can enter (``app.paths.runtime_dir``): no network port at all. The socket's name
is derived from the model file, its size and time, the context size, the Python and this code, so a
changed model or a new Folio never talks to an old process. ``FOLIO_WARM_MODEL_SECONDS=0`` answers in
the ``folio ask`` process itself; so does any failure to start or reach the warm process (said in one line).

    python -m app.warm_model --socket PATH --model GGUF [--n-ctx N] [--idle SECONDS]   (the server)
    python -m app.warm_model --stop                                                     (end it now)
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from app.paths import runtime_dir
from models.errors import ModelUnavailable
from models.llm_embedded import EmbeddedChatModel
from models.llm_warm import WarmChatModel, WarmModelServer, WarmServerGone, request

IDLE_ENV = "FOLIO_WARM_MODEL_SECONDS"
DEFAULT_IDLE_SECONDS = 600.0
START_TIMEOUT = 180.0
"""How long a first question waits for the warm process to load the model (seconds; 4 on a quiet laptop)."""
LOG_NAME = "warm-model.log"
_SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes on Linux, 104 on macOS
_CODE = (Path(__file__), Path(sys.modules[WarmChatModel.__module__].__file__ or ""),
         Path(sys.modules[EmbeddedChatModel.__module__].__file__ or ""))
_PROJECT_ROOT = Path(__file__).resolve().parents[1]

Say = Callable[[str], None]


def idle_seconds() -> float:
    """``$FOLIO_WARM_MODEL_SECONDS``, else the default; 0 (or a negative number) turns the warm process off."""
    value = os.environ.get(IDLE_ENV, "").strip()
    if not value:
        return DEFAULT_IDLE_SECONDS
    try:
        return float(value)
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def socket_path(model_path: Path, n_ctx: int) -> Path:
    """Where the warm process for this model, context size, Python and Folio code listens."""
    model = Path(model_path).resolve()
    info = model.stat()
    digest = hashlib.sha256()
    for part in (str(model), str(info.st_size), str(info.st_mtime_ns), str(n_ctx), sys.executable):
        digest.update(part.encode() + b"\0")
    for source in _CODE:
        digest.update(source.read_bytes())
    return runtime_dir() / f"model-{digest.hexdigest()[:16]}.sock"


def _client(path: Path, hello: dict[str, object]) -> WarmChatModel:
    return WarmChatModel(path, str(hello["name"]), int(str(hello["n_ctx"])), pid=int(str(hello["pid"])))


def _hello(path: Path, timeout: float = 5.0) -> dict[str, object] | None:
    try:
        answer = request(path, {"op": "hello"}, timeout)
    except (WarmServerGone, ValueError):
        return None
    return answer if answer.get("protocol") == 1 else None


@contextlib.contextmanager
def _start_lock(directory: Path) -> Iterator[None]:
    """One process at a time decides whether to start a warm process, so two questions start one."""
    with open(directory / "warm-model.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


_LAUNCHER = """
import subprocess, sys
with open(sys.argv[1], "ab") as log:
    server = subprocess.Popen(sys.argv[2:], start_new_session=True, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
print(server.pid)
"""


def _start(path: Path, model: EmbeddedChatModel, idle: float) -> int:
    """Start the server detached from this process, and return its pid: a short-lived launcher starts it in
    a session of its own and exits at once, so the server outlives this process, is no child of it (nothing
    to reap here) and hears no Ctrl-C typed at this one."""
    server = [sys.executable, "-m", "app.warm_model", "--socket", str(path), "--model", str(model.model_path),
              "--n-ctx", str(model.n_ctx), "--idle", str(idle)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_PROJECT_ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, str(path.parent / LOG_NAME), *server],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=path.parent, env=env,
                          check=True, timeout=60)
    return int(done.stdout.strip())


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie waiting for a parent to reap it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # no /proc (macOS): kill() said it exists


def _log_tail(directory: Path, lines: int = 3) -> str:
    try:
        text = (directory / LOG_NAME).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return " ".join(" ".join(text.strip().splitlines()[-lines:]).split())


def warm_chat_model(model: EmbeddedChatModel, say: Say = lambda _message: None) -> WarmChatModel | None:
    """A client of the warm process serving ``model``'s weights, starting that process if none runs; None
    (after saying why through ``say``) when ``model`` is to run in this process instead."""
    idle = idle_seconds()
    if idle <= 0 or not hasattr(socket, "AF_UNIX"):
        return None
    try:
        path = socket_path(model.model_path, model.n_ctx)
    except (ModelUnavailable, OSError) as error:
        say(f"Answering in this process (no warm model: {error})")
        return None
    if len(os.fsencode(path)) > _SOCKET_PATH_MAX:
        say(f"Answering in this process (the warm model's socket path {path} is too long)")
        return None
    hello = _hello(path)
    if hello is not None:
        say(f"Using the warm model process (pid {hello['pid']})")
        return _client(path, hello)
    with _start_lock(path.parent):
        hello = _hello(path)  # another question may have started it while this one waited for the lock
        if hello is None:
            say(f"Starting a warm model process, kept for {idle:g} s after the last question "
                f"({IDLE_ENV}=0 turns it off)")
            try:
                pid = _start(path, model, idle)
            except (OSError, ValueError, subprocess.SubprocessError) as error:
                say(f"Answering in this process (the warm model process did not start: {error})")
                return None
            deadline = time.monotonic() + START_TIMEOUT
            while hello is None and time.monotonic() < deadline and _running(pid):
                time.sleep(0.2)
                hello = _hello(path) if path.exists() else None
    if hello is None:
        tail = _log_tail(path.parent)
        say("Answering in this process (the warm model process did not come up" + (f": {tail})" if tail else ")"))
        return None
    return _client(path, hello)


def stop(path: Path, timeout: float = 10.0) -> int | None:
    """Ask the warm process at ``path`` to end; its pid, or None when none was listening."""
    try:
        answer = request(path, {"op": "stop"}, timeout)
    except WarmServerGone:
        return None
    stopped = answer.get("stopped")
    return int(stopped) if isinstance(stopped, int) else None


def serve(path: Path, model_path: Path, n_ctx: int, idle: float) -> int:
    """Load the model, then answer on ``path`` until idle; the socket file is removed on the way out."""
    model = EmbeddedChatModel(model_path, n_ctx=n_ctx)
    try:
        model.warm_up()  # before listening, so a client that gets an answer to hello gets a loaded model
    except ModelUnavailable as error:
        sys.stderr.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} warm model pid {os.getpid()} not started: {error}\n")
        return 2
    if path.exists():
        if _hello(path, timeout=2.0) is not None:
            return 0  # another warm process serves this model already
        path.unlink()
    server = WarmModelServer(path, model)
    sys.stderr.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} warm model pid {os.getpid()} serving {model.name} "
                     f"at {path} (loaded in {model.load_seconds or 0:.1f} s)\n")
    sys.stderr.flush()
    try:
        server.serve_until_idle(idle)
    finally:
        server.server_close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.warm_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", type=Path, help="the Unix socket to listen on")
    parser.add_argument("--model", type=Path, help="the GGUF file")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE_SECONDS, help="seconds without a request")
    parser.add_argument("--stop", action="store_true", help="end the warm process of the installed model")
    args = parser.parse_args(argv)
    if args.stop:
        try:
            model = EmbeddedChatModel(args.model) if args.model else EmbeddedChatModel()
            pid = stop(args.socket or socket_path(model.model_path, args.n_ctx))
        except (ModelUnavailable, OSError) as error:
            sys.stderr.write(f"folio: {error}\n")
            return 2
        print(f"Stopped the warm model process (pid {pid})." if pid else "No warm model process was running.")
        return 0
    if args.socket is None or args.model is None:
        parser.error("--socket and --model are needed to serve")
    return serve(args.socket, args.model, args.n_ctx, args.idle)


if __name__ == "__main__":
    from models.embedding import switch_off_telemetry

    switch_off_telemetry()
    sys.exit(main())
