"""Fuzzing ingestion in the suite: damaged PDFs made from the sample PDFs (tests/support/pdf_fuzz.py), each
ingested by `folio ingest` in a process of its own with a time limit, into one library. No file may end
in a traceback, a signal or a hang; each is added with content or refused with a one-line reason; the
library passes PRAGMA integrity_check and holds no empty document.

The full set (FULL_SET files) runs in tests/bench/bench_fuzz.py. Here a different part of it runs each
day: PER_KIND files of every mutation, picked by the day's seed (FOLIO_FUZZ_SEED pins one).
"""

from __future__ import annotations

import datetime
import os
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.library.db import connect
from tests.conftest import REPO
from tests.support.pdf_fuzz import MUTATIONS, ingest_alone, make_fuzzed, sample_pdfs

pytestmark = [pytest.mark.unit, pytest.mark.slow]

FULL_SET = 180
PER_KIND = 2
TIMEOUT = 120.0
JOBS = 2


def todays_part(seed: int, samples: int) -> list[int]:
    """PER_KIND indices of the full set for each mutation (file i has mutation (i // samples) % kinds)."""
    rng = random.Random(seed)
    kinds = len(MUTATIONS)
    by_kind: dict[int, list[int]] = {}
    for i in range(FULL_SET):
        by_kind.setdefault((i // samples) % kinds, []).append(i)
    return sorted(i for indices in by_kind.values() for i in rng.sample(indices, min(PER_KIND, len(indices))))


def test_damaged_pdfs_are_added_or_refused_never_crash(samples: Path, tmp_path: Path) -> None:
    seed = int(os.environ.get("FOLIO_FUZZ_SEED", datetime.date.today().toordinal()))
    pdfs = sample_pdfs(samples)
    files = make_fuzzed(pdfs, tmp_path / "pdfs", FULL_SET, seed=0, only=todays_part(seed, len(pdfs)))
    assert len(files) == PER_KIND * len(MUTATIONS)
    library = tmp_path / "library"
    with ThreadPoolExecutor(JOBS) as pool:
        outcomes = list(pool.map(lambda pdf: ingest_alone(pdf, library, TIMEOUT, REPO), files))

    bad = [f"{o.verdict} {o.path.name}: {o.detail}" for o in outcomes if o.verdict not in ("added", "refused")]
    assert not bad, f"seed {seed} (FOLIO_FUZZ_SEED={seed} to repeat):\n" + "\n".join(bad)
    conn = connect(library / "library.sqlite3", read_only=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        documents = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        empty = conn.execute("SELECT file_name FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE "
                             "c.document_id = d.id) AND NOT EXISTS (SELECT 1 FROM extracted_tables t WHERE "
                             "t.document_id = d.id)").fetchall()
    finally:
        conn.close()
    assert not empty, f"seed {seed}: documents stored without content: {empty}"
    added = sum(o.verdict == "added" for o in outcomes)
    assert documents <= added  # a refused file left nothing behind (identical mutants are stored once)
