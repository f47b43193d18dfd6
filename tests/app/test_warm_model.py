"""The warm model process behind ``folio ask``, run for real with the small model (Qwen2.5-Coder-0.5B):
started by the first question, found by the next, reachable only through a Unix socket in a private
folder, ended by a stop request or by its idle timeout. Each test stops what it started."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.paths import runtime_dir
from app.warm_model import IDLE_ENV, socket_path, stop, warm_chat_model
from core.errors import Cancelled
from models.errors import ModelUnavailable
from models.llm_embedded import EmbeddedChatModel
from models.llm_warm import WarmChatModel
from models.types import ChatMessage
from models.weights import SMALL, find_weights

pytestmark = pytest.mark.e2e

ASK_OK = [ChatMessage("user", "Reply with the single word OK.")]
N_CTX = 2048


def small_weights() -> Path:
    try:
        return find_weights(SMALL)
    except ModelUnavailable as error:
        pytest.skip(f"the 0.5B weights are not installed ({SMALL.install_command}): {error}")


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A short private folder for the socket (a socket path holds ~100 bytes; pytest's are long)."""
    folder = Path(tempfile.mkdtemp(prefix="folio-warm-"))
    monkeypatch.setenv("FOLIO_RUNTIME_DIR", str(folder))
    monkeypatch.setenv(IDLE_ENV, "60")
    yield folder
    for sock in folder.glob("*.sock"):
        stop(sock)
    shutil.rmtree(folder, ignore_errors=True)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state


def socket_inodes(pid: int) -> set[str]:
    links = (os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir())
    return {link[len("socket:["):-1] for link in links if link.startswith("socket:[")}


def inodes_in(table: str) -> set[str]:
    """The socket inodes listed in /proc/net/<table> (column 10 in tcp/udp, 7 in unix)."""
    path = Path("/proc/net") / table
    if not path.exists():
        return set()
    column = 6 if table == "unix" else 9
    return {line.split()[column] for line in path.read_text().splitlines()[1:] if len(line.split()) > column}


@pytest.mark.slow
def test_the_next_question_finds_the_model_loaded_over_a_unix_socket_only(runtime: Path) -> None:
    weights = small_weights()
    said: list[str] = []
    warm = warm_chat_model(EmbeddedChatModel(weights, n_ctx=N_CTX), said.append)
    assert isinstance(warm, WarmChatModel), said
    assert said[0].startswith("Starting a warm model process") and f"{IDLE_ENV}=0" in said[0]
    first = warm.chat(ASK_OK, max_tokens=4)
    assert first.text.strip() and first.usage.calls == 1 and first.usage.prompt_tokens > 5

    # A later `folio ask` (a new client) finds the same process: no second load.
    again = warm_chat_model(EmbeddedChatModel(weights, n_ctx=N_CTX), said.append)
    assert isinstance(again, WarmChatModel) and again.pid == warm.pid
    assert said[-1] == f"Using the warm model process (pid {warm.pid})"
    assert again.name == "qwen2.5-coder-0.5b (embedded)" and again.capabilities.supports_free_sql is False

    tokens: list[str] = []
    streamed = again.chat(ASK_OK, max_tokens=4, on_token=tokens.append)
    assert "".join(tokens) == streamed.text == first.text
    # The process kept its KV cache: the same prompt again is read from it, and the count crosses the socket.
    assert streamed.usage.reused_tokens == streamed.usage.prompt_tokens - 1
    schema = {"type": "object", "properties": {"word": {"type": "string", "enum": ["OK", "NO"]}},
              "required": ["word"]}
    assert json.loads(again.chat(ASK_OK, schema=schema, max_tokens=16).text)["word"] in ("OK", "NO")

    # No network: every socket the process holds is a Unix one, none is TCP or UDP (IPv4 or IPv6).
    # A connection the process is closing can leave /proc/net/unix between two reads, so only the sockets
    # open both before and after the tables were read are compared (they were open while they were read).
    held = socket_inodes(warm.pid)
    unix = inodes_in("unix")
    network = set().union(*(inodes_in(t) for t in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6")))
    held &= socket_inodes(warm.pid)
    assert held and held <= unix
    assert not held & network
    # Only this user can reach the socket.
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700 and stat.S_IMODE(warm.path.stat().st_mode) == 0o600

    assert stop(warm.path) == warm.pid
    deadline = time.monotonic() + 10
    while (warm.path.exists() or alive(warm.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not warm.path.exists() and not alive(warm.pid)


@pytest.mark.slow
def test_a_stopped_question_stops_generating_and_the_process_serves_on(runtime: Path) -> None:
    weights = small_weights()
    warm = warm_chat_model(EmbeddedChatModel(weights, n_ctx=N_CTX))
    assert isinstance(warm, WarmChatModel)
    seen: list[str] = []

    def stop_after_two(token: str) -> None:
        seen.append(token)
        if len(seen) == 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        warm.chat([ChatMessage("user", "Count from one to fifty in words.")], max_tokens=200, on_token=stop_after_two)
    assert len(seen) == 2
    assert warm.chat(ASK_OK, max_tokens=4).text.strip()


@pytest.mark.slow
def test_the_process_ends_itself_when_idle(runtime: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(IDLE_ENV, "1.5")
    warm = warm_chat_model(EmbeddedChatModel(small_weights(), n_ctx=N_CTX))
    assert isinstance(warm, WarmChatModel)
    warm.chat(ASK_OK, max_tokens=2)
    deadline = time.monotonic() + 15
    while (warm.path.exists() or alive(warm.pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not warm.path.exists() and not alive(warm.pid)
    assert "serving qwen2.5-coder-0.5b (embedded)" in (runtime / "warm-model.log").read_text()


def test_a_model_the_process_cannot_load_is_answered_in_process_at_once(runtime: Path, tmp_path: Path) -> None:
    weights = tmp_path / "damaged.gguf"
    weights.write_bytes(b"GGUF and then nothing")
    said: list[str] = []
    began = time.monotonic()
    assert warm_chat_model(EmbeddedChatModel(weights), said.append) is None
    assert time.monotonic() - began < 60  # it notices the process ended; it does not wait out START_TIMEOUT
    assert said[-1].startswith("Answering in this process (the warm model process did not come up:")
    assert "could not load" in said[-1] and not list(runtime.glob("*.sock"))


def test_switched_off_the_question_runs_in_its_own_process(runtime: Path, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    monkeypatch.setenv(IDLE_ENV, "0")
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF")
    assert warm_chat_model(EmbeddedChatModel(weights)) is None
    assert not list(runtime.iterdir())


def test_the_socket_name_follows_the_model_and_its_context(runtime: Path, tmp_path: Path) -> None:
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF")
    name = socket_path(weights, 2048)
    assert name.parent == runtime and name == socket_path(weights, 2048)
    assert socket_path(weights, 4096) != name
    weights.write_bytes(b"GGUF, another model")
    assert socket_path(weights, 2048) != name


def test_a_runtime_folder_others_can_enter_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("FOLIO_RUNTIME_DIR", str(shared))
    with pytest.raises(OSError, match="not a private folder"):
        runtime_dir()
    said: list[str] = []
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF")
    monkeypatch.setenv(IDLE_ENV, "60")
    assert warm_chat_model(EmbeddedChatModel(weights), said.append) is None
    assert said and said[0].startswith("Answering in this process (no warm model:")
