"""Ingestion with the pages' tables found in worker processes (core.ingest.page_pool), run for real: the
library comes out exactly as without workers; cancelling, a dying worker and a killed caller leave no
half document and no stray process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.ingest.ingestor import Ingestor
from core.ingest.page_pool import PagePool
from core.jobs import CancelToken, JobContext
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.support.report_builder import build_generated_report

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[3]
PAGES = 12


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated annual report: prose, ruled and borderless tables, tables continued over pages."""
    path = tmp_path_factory.mktemp("pool") / "report.pdf"
    build_generated_report(path, pages=PAGES, seed=5)
    return path


@dataclass
class Started:
    pool: PagePool
    pids: list[int]  # its workers, kept after the pool lets them go


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[Started]:
    """Every PagePool started during the test, with its workers' process ids."""
    started: list[Started] = []
    original = PagePool.start

    def start(self: PagePool) -> None:
        original(self)
        if not any(s.pool is self for s in started):
            started.append(Started(self, list(self.pids)))

    monkeypatch.setattr(PagePool, "start", start)
    return started


def dump(library: Library) -> dict[str, list[tuple]]:
    """Everything stored, table by table, without what depends on the clock."""
    conn = library.conn
    out: dict[str, list[tuple]] = {
        "documents": conn.execute(
            "SELECT id, sha256, file_name, path, title, page_count, status, size_bytes, note FROM documents"
        ).fetchall(),
        "embedding_vectors": conn.execute("SELECT rowid, embedding FROM embedding_vectors ORDER BY rowid").fetchall(),
    }
    for name in ("pages", "text_blocks", "chunks", "embeddings", "extracted_tables", "table_columns", "table_cells"):
        out[name] = sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
    for (name,) in conn.execute("SELECT name FROM extracted_tables ORDER BY id").fetchall():
        out[name] = conn.execute(f'SELECT * FROM "{name}" ORDER BY _row').fetchall()
    return out


def ingest(library: Library, pdf: Path, workers: int, ctx: JobContext | None = None):  # type: ignore[no-untyped-def]
    ingestor = Ingestor(library, HashEmbedder(), pool_workers=workers, pool_min_pages=1)
    return ingestor.ingest_paths([pdf], ctx)


def gone(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            return True
        time.sleep(0.1)
    return False


def test_pooled_ingestion_gives_the_same_library_and_progress(tmp_path: Path, report: Path,
                                                              pools: list[Started]) -> None:
    with Library(tmp_path / "here.sqlite3") as here, Library(tmp_path / "pooled.sqlite3") as pooled:
        events_here: list = []
        events_pooled: list = []
        (alone,) = ingest(here, report, 0, JobContext(events_here.append))
        assert pools == []
        (shared,) = ingest(pooled, report, 2, JobContext(events_pooled.append))
        assert len(pools) == 1 and len(pools[0].pids) == 2  # the workers did the pages
        assert alone.status == shared.status == "added" and alone.tables >= 3
        assert (alone.pages, alone.chunks, alone.tables) == (shared.pages, shared.chunks, shared.tables)
        assert dump(here) == dump(pooled)
        # The same progress, page by page, in order.
        assert [(e.stage, e.message, e.done, e.total) for e in events_here] == \
               [(e.stage, e.message, e.done, e.total) for e in events_pooled]
    # The pool lives as long as the ingest_paths call.
    assert pools[0].pool.pids == [] and gone(pools[0].pids)


def test_cancel_during_pooled_ingestion_keeps_nothing_and_stops_the_workers(tmp_path: Path, report: Path,
                                                                            pools: list[Started]) -> None:
    token = CancelToken()
    cancelled_at: list[float] = []

    def on_progress(event) -> None:  # type: ignore[no-untyped-def]
        if event.stage == "pages" and event.done == 4:
            token.cancel()
            cancelled_at.append(time.monotonic())

    with Library(tmp_path / "lib.sqlite3") as library:
        (result,) = ingest(library, report, 2, JobContext(on_progress, token))
        returned = time.monotonic()
        assert result.status == "cancelled"
        assert library.counts()["documents"] == 0 and library.tables() == []
        assert library.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == 0
    assert returned - cancelled_at[0] < 5
    (started,) = pools
    assert started.pool.pids == []  # terminated and let go...
    assert gone(started.pids, seconds=1)  # ...and really gone


def test_a_worker_that_dies_is_replaced_by_the_main_process(tmp_path: Path, report: Path,
                                                            pools: list[Started]) -> None:
    def on_progress(event) -> None:  # type: ignore[no-untyped-def]
        if event.stage == "pages" and event.done == 3 and pools:
            os.kill(pools[0].pids[0], signal.SIGKILL)

    with Library(tmp_path / "here.sqlite3") as here, Library(tmp_path / "pooled.sqlite3") as pooled:
        ingest(here, report, 0)
        (shared,) = ingest(pooled, report, 2, JobContext(on_progress))
        assert shared.status == "added"
        assert pools[0].pool.broken
        assert dump(here) == dump(pooled)


KILL_SCRIPT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from core.ingest.ingestor import Ingestor
    from core.jobs import JobContext
    from core.library.store import Library
    from core.ingest.page_pool import PagePool
    from tests.conftest import HashEmbedder

    pools = []
    start = PagePool.start
    def remember(self):
        start(self)
        pools.append(self)
    PagePool.start = remember

    def slow(event):
        if event.stage == "pages" and event.done == 5:
            print("WORKERS", *pools[0].pids, flush=True)
            time.sleep(60)

    library = Library(Path({lib!r}))
    Ingestor(library, HashEmbedder(), pool_workers=2, pool_min_pages=1).ingest_paths([Path({pdf!r})], JobContext(slow))
    """
)


def test_killed_caller_leaves_no_document_and_no_worker(tmp_path: Path, report: Path) -> None:
    lib = tmp_path / "lib.sqlite3"
    Library(lib).close()
    script = KILL_SCRIPT.format(repo=str(REPO), lib=str(lib), pdf=str(report))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    line = ""
    while time.monotonic() < deadline and not line.startswith("WORKERS"):
        line = proc.stdout.readline()
    assert line.startswith("WORKERS"), line
    workers = [int(pid) for pid in line.split()[1:]]
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    assert gone(workers), "page workers outlived the process that started them"
    with Library(lib) as reopened:
        assert reopened.counts()["documents"] == 0
        assert reopened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_running_pool_serves_short_documents_and_outlives_a_failed_one(tmp_path: Path, report: Path,
                                                                         pools: list[Started],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    short = tmp_path / "short.pdf"
    build_generated_report(short, pages=3, seed=9)
    served: list[str] = []
    original = PagePool.document

    def document(self: PagePool, path: Path, password: str | None, page_count: int):  # type: ignore[no-untyped-def]
        served.append(Path(path).name)
        return original(self, path, password, page_count)

    monkeypatch.setattr(PagePool, "document", document)

    def on_progress(event) -> None:  # type: ignore[no-untyped-def]
        # The first document fails part-way, with pages still out with the workers.
        if event.stage == "pages" and event.document == "report.pdf" and event.done == 2:
            raise RuntimeError("disk on fire")

    with Library(tmp_path / "here.sqlite3") as here, Library(tmp_path / "pooled.sqlite3") as pooled:
        Ingestor(here, HashEmbedder(), pool_workers=0).ingest_paths([short])
        ingestor = Ingestor(pooled, HashEmbedder(), pool_workers=2, pool_min_pages=PAGES)
        failed, added = ingestor.ingest_paths([report, short], JobContext(on_progress))
        assert failed.status == "failed" and "disk on fire" in failed.message
        assert added.status == "added"
        assert served == ["report.pdf", "short.pdf"]  # the short one too, as the workers were running
        assert len(pools) == 1 and not pools[0].pool.broken
        assert dump(here) == dump(pooled)  # nothing of the failed document, nothing lost of the other
