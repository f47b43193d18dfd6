"""A real OpenAI-compatible server for tests: llama-cpp-python's own ``llama_cpp.server`` in a child process.

``python -m tests.support.llama_server --model PATH ...`` runs ``python -m llama_cpp.server`` with the same
arguments, loading the weights under the guard the embedded backend uses: where llama.cpp was built with
AMX, its extra CPU buffer types are turned off for the load (a VM that advertises AMX without enabling it
segfaults in ``llama_decode`` otherwise; see ``models.llm_embedded``). Everything else, the HTTP and the
wire format included, is llama-cpp-python's server unchanged.

``serve_llama_cpp(path)`` starts it on a free loopback port, waits until ``/v1/models`` answers, yields the
base URL, and stops the process (and checks it is gone) when the block ends.
"""

from __future__ import annotations

import os
import runpy
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

REPO = Path(__file__).resolve().parents[2]


def main() -> None:
    from models.llm_embedded import _built_with_amx, _without_extra_buffer_types

    if _built_with_amx():
        with _without_extra_buffer_types():
            runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
    else:
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve_llama_cpp(model_path: Path, *, alias: str, n_ctx: int = 2048, threads: int = 2,
                    start_timeout: float = 120.0) -> Iterator[str]:
    """Run llama-cpp-python's server on ``model_path`` at a loopback port; yield its base URL (``.../v1``)."""
    port = _free_port()
    command = [sys.executable, "-m", "tests.support.llama_server", "--model", str(model_path),
               "--model_alias", alias, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
               "--n_threads", str(threads), "--n_threads_batch", str(threads), "--verbose", "False"]
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    url = f"http://127.0.0.1:{port}/v1"
    # Its output goes to a file, not a pipe: a full pipe would stall the server.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        process = subprocess.Popen(command, cwd=REPO, env=environment, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_up(process, url, log, start_timeout)
            yield url
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)  # uvicorn shuts down cleanly on Ctrl+C
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=15)


def _wait_until_up(process: subprocess.Popen[bytes], url: str, log: IO[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}: {log.read()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"llama_cpp.server did not answer within {timeout:g} s")
        time.sleep(0.25)

if __name__ == "__main__":
    main()
