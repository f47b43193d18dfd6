"""The same PDF added by two `folio ingest` processes at once: one adds it, the other says it is already
being added (or already present) and exits cleanly; the library holds it once and passes its integrity
check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.library.db import connect
from tests.conftest import REPO
from tests.ui.conftest import prose_pdf

pytestmark = pytest.mark.e2e

TIMEOUT = 300


def _ingest(library: Path, pdf: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "app.main", "ingest", "--library", str(library), str(pdf)],
                            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _check_library(library: Path) -> None:
    conn = connect(library / "library.sqlite3", read_only=True)
    try:
        assert conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 1
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_the_second_process_says_the_file_is_being_added_and_exits_cleanly(tmp_path: Path) -> None:
    # Long enough that the first is still at it when the second has started (Python and its imports take seconds):
    # 40 pages were read and embedded before that once the embedder ran in int8.
    pdf = prose_pdf(tmp_path / "minutes.pdf", pages=160)
    library = tmp_path / "library"
    first = _ingest(library, pdf)
    try:
        assert first.stderr is not None
        for line in first.stderr:  # the first holds the file once it reads pages
            if "Page 1 of 160" in line:
                break
        second = _ingest(library, pdf)
        out, err = second.communicate(timeout=TIMEOUT)
        first_out, _ = first.communicate(timeout=TIMEOUT)
    finally:
        first.kill()
    assert second.returncode == 0, err
    assert f"skipped {pdf}: minutes.pdf is already being added to the library by another Folio process." in err
    assert out.startswith("0 added") and "1 already present, 0 failed" in out
    assert first.returncode == 0 and first_out.startswith("1 added")
    _check_library(library)


def test_two_processes_started_together_add_the_file_once(tmp_path: Path) -> None:
    pdf = prose_pdf(tmp_path / "minutes.pdf", pages=3)
    library = tmp_path / "library"
    processes = [_ingest(library, pdf), _ingest(library, pdf)]
    results = [p.communicate(timeout=TIMEOUT) + (p.returncode,) for p in processes]
    assert [code for _, _, code in results] == [0, 0], [err for _, err, _ in results]
    summaries = sorted(out.split(" (")[0] for out, _, _ in results)
    assert summaries == ["0 added", "1 added"], results
    skipped = next(err for out, err, _ in results if out.startswith("0 added"))
    assert "already being added" in skipped or "already in the library" in skipped
    _check_library(library)
