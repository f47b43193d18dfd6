"""Fuzzing ingestion: damaged PDFs made from ../shared/samples (tests/support/pdf_fuzz.py), each ingested
by `folio ingest` in a process of its own into one library; prints how many were added (with content),
refused (with a one-line reason), crashed or hung, and whether the library passed PRAGMA integrity_check.

    .venv/bin/python tests/bench/bench_fuzz.py [--count 180] [--seed 0] [--jobs 2] [--timeout 120]

(the samples are read from $FOLIO_SAMPLES when set)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from core.library.db import connect
from tests.support.pdf_fuzz import MUTATIONS, ingest_alone, make_fuzzed, sample_pdfs

SAMPLES = Path(os.environ.get("FOLIO_SAMPLES", REPO.parent / "shared" / "samples"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=180)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--keep", metavar="DIR", help="write the files and the library here and keep them")
    args = parser.parse_args()
    samples = sample_pdfs(SAMPLES)
    if not samples:
        print(f"The sample PDFs are not at {SAMPLES}; nothing to fuzz.")
        return 0
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="folio-fuzz-"))
    files = make_fuzzed(samples, work / "pdfs", args.count, args.seed)
    library = work / "library"
    print(f"{len(files)} files from {len(samples)} samples x {len(MUTATIONS)} mutations (seed {args.seed}), "
          f"{args.jobs} at a time, {args.timeout:g} s each at most", flush=True)
    started = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(lambda p: ingest_alone(p, library, args.timeout, REPO), files))
    counts = Counter(o.verdict for o in outcomes)
    by_kind: dict[str, Counter[str]] = {}
    for o in outcomes:
        by_kind.setdefault(o.path.stem.split("-")[1], Counter())[o.verdict] += 1
    for o in outcomes:
        if o.verdict in ("crashed", "hung"):
            print(f"  {o.verdict.upper()} {o.path.name}: {o.detail[-300:]}")
    reasons = Counter(o.detail.replace(o.path.name, "FILE").split(" (")[0][:80] for o in outcomes if o.verdict == "refused")
    print("refusal reasons:")
    for reason, number in reasons.most_common(10):
        print(f"  {number:>4}  {reason}")
    for kind, kind_counts in sorted(by_kind.items()):
        print(f"  {kind:<28} {dict(kind_counts)}")
    conn = connect(library / "library.sqlite3", read_only=True)
    integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    empty = conn.execute("SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE "
                         "c.document_id = d.id) AND NOT EXISTS (SELECT 1 FROM extracted_tables t WHERE "
                         "t.document_id = d.id)").fetchone()[0]
    conn.close()
    print(f"added {counts['added']}, refused {counts['refused']}, crashed {counts['crashed']}, hung {counts['hung']}; "
          f"documents with no content in the library: {empty}; integrity_check: {integrity}; "
          f"{time.monotonic() - started:.0f} s, slowest file {max(o.seconds for o in outcomes):.1f} s")
    return 0 if counts["crashed"] == counts["hung"] == empty == 0 and integrity == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
