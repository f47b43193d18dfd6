"""Finding the tables of a document's pages in worker processes, ahead of the page being stored.

Table extraction is most of the CPU time of ingestion and pure Python, so threads cannot share it out.
``PagePool`` keeps a few worker processes for one ``Ingestor.ingest_paths`` call; for each long
document the ingestor asks a ``PooledPages`` for page N's tables while the workers are already on the
next pages. The caller still goes through the pages in order, reports progress for each and does all
the SQLite writing itself, in the one transaction of the document.

- Workers are started with the "spawn" method (never a plain fork of a process that runs threads),
  which also works in a PyInstaller bundle because ``app/main.py`` calls ``freeze_support``.
- Each worker talks to the caller over its own pipe and holds at most ``DEPTH`` pages, so results
  never pile up: memory does not grow with the length of the document.
- Cancelling is checked while waiting; ``terminate`` stops the workers at once, mid-page.
- A worker that dies or fails makes the caller fall back to extracting in its own process: the
  document comes out the same, only slower.
- A worker whose caller disappears (killed) sees its pipe close and exits.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Self

from models.types import ExtractedTable

log = logging.getLogger(__name__)

START_METHOD = "spawn"
# Pages a worker is given at once: the one it works on and the next, so it never waits for the caller.
DEPTH = 2
# How often a caller waiting for a page looks at its cancellation token.
POLL_SECONDS = 0.05
# How long ``close`` lets workers finish before stopping them.
CLOSE_SECONDS = 5.0


class PoolFailed(Exception):
    """A worker died or could not do a page: the caller extracts in its own process instead."""


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    pages: deque[tuple[int, int]] = field(default_factory=deque)  # (document token, page) sent, unanswered


class PagePool:
    """Worker processes that find tables on pages. Started lazily; ``close`` (or ``terminate``) when done.

    Used by one thread at a time.
    """

    def __init__(self, workers: int = 2, start_method: str = START_METHOD) -> None:
        self.size = workers
        self.start_method = start_method
        self._workers: list[_Worker] = []
        self._token = 0
        self._results: dict[tuple[int, int], tuple[bool, Any]] = {}
        self.broken = False

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    @property
    def running(self) -> bool:
        """Started, and not stopped or broken since: a document can use it without paying the start."""
        return bool(self._workers) and not self.broken

    def start(self) -> None:
        if self._workers or self.broken:
            return
        context = multiprocessing.get_context(self.start_method)
        for _ in range(self.size):
            parent, child = context.Pipe()
            process = context.Process(  # type: ignore[attr-defined]
                target=_serve, args=(child,), name="folio-pages", daemon=True
            )
            process.start()
            child.close()  # the worker's end lives in the worker only, so it sees EOF when we are gone
            self._workers.append(_Worker(process, parent))

    def document(self, path: Path, password: str | None, page_count: int) -> PooledPages:
        """Start reading ``path``'s pages in the workers (results of any earlier document are dropped)."""
        self.start()
        self._token += 1
        self._results = {k: v for k, v in self._results.items() if k[0] == self._token}
        return PooledPages(self, self._token, str(Path(path).absolute()), password, page_count)

    # --------------------------------------------------------------------------------- plumbing
    def _free_slots(self) -> list[_Worker]:
        return sorted((w for w in self._workers if len(w.pages) < DEPTH), key=lambda w: len(w.pages))

    def _send(self, worker: _Worker, token: int, path: str, password: str | None, number: int) -> None:
        try:
            worker.conn.send((token, path, password, number))
        except (OSError, ValueError) as exc:
            self._fail(f"a page worker cannot be reached ({exc})")
        worker.pages.append((token, number))

    def _receive(self, timeout: float) -> None:
        """Collect whatever answers arrive within ``timeout`` seconds."""
        busy = [w for w in self._workers if w.pages]
        if not busy:
            return
        ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
        for worker in busy:
            if worker.conn in ready:
                try:
                    while worker.pages and worker.conn.poll():
                        token, number, ok, payload = worker.conn.recv()
                        with contextlib.suppress(ValueError):
                            worker.pages.remove((token, number))
                        if token == self._token:
                            self._results[(token, number)] = (ok, payload)
                except (EOFError, OSError) as exc:
                    self._fail(f"a page worker stopped ({exc})")
            if worker.pages and worker.process.sentinel in ready:
                self._fail(f"a page worker stopped (exit code {worker.process.exitcode})")

    def _fail(self, reason: str) -> None:
        log.warning("Page extraction falls back to the main process: %s", reason)
        self.broken = True
        self.terminate()
        raise PoolFailed(reason)

    # -------------------------------------------------------------------------------- shutdown
    def close(self) -> None:
        """Let the workers finish and exit; stop any that do not within ``CLOSE_SECONDS``."""
        for worker in self._workers:
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)
        for worker in self._workers:
            worker.process.join(CLOSE_SECONDS)
        self.terminate()

    def terminate(self) -> None:
        """Stop the workers now, wherever they are."""
        for worker in self._workers:
            if worker.process.is_alive():
                worker.process.terminate()
        for worker in self._workers:
            worker.process.join(CLOSE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(CLOSE_SECONDS)
            with contextlib.suppress(OSError):
                worker.conn.close()
            with contextlib.suppress(ValueError):
                worker.process.close()
        self._workers = []
        self._results = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.terminate()


class PooledPages:
    """One document's pages, extracted by the pool ahead of the caller. Ask for pages in order."""

    def __init__(self, pool: PagePool, token: int, path: str, password: str | None, page_count: int) -> None:
        self.pool = pool
        self.token = token
        self.path = path
        self.password = password
        self.page_count = page_count
        self._next = 1  # the first page not yet handed to a worker
        # Pages answered but not yet asked for are bounded by this, whatever the workers' speed.
        self.ahead = DEPTH * max(1, pool.size)

    def tables(self, number: int, check: Callable[[], None]) -> list[ExtractedTable]:
        """Page ``number``'s tables. Calls ``check`` while it waits (it raises to cancel).

        Raises ``PoolFailed`` when the pool cannot give them; the caller then extracts the page itself.
        """
        pool = self.pool
        if pool.broken:
            raise PoolFailed("the page workers have stopped")
        key = (self.token, number)
        while key not in pool._results:
            check()
            self._hand_out(number)
            if not any(worker.pages for worker in pool._workers):
                raise PoolFailed(f"page {number} was not handed to a worker")  # a bug: never wait for nothing
            pool._receive(POLL_SECONDS)
        ok, payload = pool._results.pop(key)
        if not ok:
            raise PoolFailed(f"page {number}: {payload}")
        return list(payload)

    def _hand_out(self, wanted: int) -> None:
        """Keep every worker busy with the pages after ``wanted``, at most ``ahead`` of it."""
        limit = min(self.page_count, wanted + self.ahead)
        for worker in self.pool._free_slots():
            while len(worker.pages) < DEPTH and self._next <= limit:
                self.pool._send(worker, self.token, self.path, self.password, self._next)
                self._next += 1


# ------------------------------------------------------------------------------------- the worker
def _serve(conn: Connection) -> None:
    """A worker's life: open the document a page belongs to (kept open for its next pages), find the
    page's tables, send them back; until told to stop or the caller is gone."""
    # Ctrl+C in a terminal reaches the whole process group; the caller decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from core.ingest.extraction import TableExtractor
    from core.ingest.pdf_reader import open_pdf

    current: tuple[str, str | None] | None = None
    doc: Any = None
    extractor: TableExtractor | None = None
    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                return  # the caller is gone
            if task is None:
                return
            token, path, password, number = task
            try:
                if current != (path, password) or extractor is None:
                    if extractor is not None:
                        extractor.close()
                        doc.close()
                    extractor = None
                    current = (path, password)
                    doc = open_pdf(Path(path), password)
                    extractor = TableExtractor(Path(path), doc, password)
                reply: tuple[int, int, bool, Any] = (token, number, True, extractor.page_tables(number))
            except Exception as exc:  # noqa: BLE001 - reported to the caller, which extracts the page itself
                reply = (token, number, False, f"{type(exc).__name__}: {exc}")
            try:
                conn.send(reply)
            except (OSError, ValueError):
                return
    finally:
        if extractor is not None:
            extractor.close()
            doc.close()
