"""Fuzzing ingestion: damaged PDFs made from ../shared/samples (tests/support/pdf_fuzz.py), and hostile or
unlucky spreadsheets and CSV files (tests/support/sheet_fuzz.py: mutated, rewritten XML, prefixed, mixed
encodings, bombs), each ingested by `folio ingest` in a process of its own into one library; prints how many
were added (with content), refused (with a one-line reason), crashed or hung, and, for spreadsheets, stored wrong
(added, but not with the rows a correct reading stores, or with NUL bytes or unexplained replacement
characters); and whether the library passed PRAGMA integrity_check.

    .venv/bin/python tests/bench/bench_fuzz.py [--count 180] [--sheets 120] [--seed 0] [--jobs 2] [--timeout 120]

(``--count 0`` or ``--sheets 0`` leaves that half out; the samples are read from $FOLIO_SAMPLES when set)
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
from tests.support.pdf_fuzz import MUTATIONS, Outcome, ingest_alone, make_fuzzed, sample_pdfs
from tests.support.sheet_fuzz import make_sheet_cases, stored_wrong

SAMPLES = Path(os.environ.get("FOLIO_SAMPLES", REPO.parent / "shared" / "samples"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=180, help="damaged PDFs")
    parser.add_argument("--sheets", type=int, default=120, help="hostile spreadsheets and CSV files")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--keep", metavar="DIR", help="write the files and the library here and keep them")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="folio-fuzz-"))
    library = work / "library"
    failed = False
    if args.count:
        failed |= fuzz_pdfs(args, work, library)
    if args.sheets:
        failed |= fuzz_sheets(args, work, library)
    conn = connect(library / "library.sqlite3", read_only=True)
    integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    conn.close()
    print(f"integrity_check of the library: {integrity}")
    return 0 if not failed and integrity == "ok" else 1


def _run(files: list[Path], library: Path, args: argparse.Namespace) -> list[Outcome]:
    with ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(lambda p: ingest_alone(p, library, args.timeout, REPO), files))


def _reasons(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        if o.verdict in ("crashed", "hung"):
            print(f"  {o.verdict.upper()} {o.path.name}: {o.detail[-300:]}")
    reasons = Counter(o.detail.replace(o.path.name, "FILE").split(" (")[0][:80] for o in outcomes if o.verdict == "refused")
    print("refusal reasons:")
    for reason, number in reasons.most_common(10):
        print(f"  {number:>4}  {reason}")


def fuzz_pdfs(args: argparse.Namespace, work: Path, library: Path) -> bool:
    samples = sample_pdfs(SAMPLES)
    if not samples:
        print(f"The sample PDFs are not at {SAMPLES}; no PDFs to fuzz.")
        return False
    files = make_fuzzed(samples, work / "pdfs", args.count, args.seed)
    print(f"PDFs: {len(files)} files from {len(samples)} samples x {len(MUTATIONS)} mutations (seed {args.seed}), "
          f"{args.jobs} at a time, {args.timeout:g} s each at most", flush=True)
    started = time.monotonic()
    outcomes = _run(files, library, args)
    counts = Counter(o.verdict for o in outcomes)
    by_kind: dict[str, Counter[str]] = {}
    for o in outcomes:
        by_kind.setdefault(o.path.stem.split("-")[1], Counter())[o.verdict] += 1
    _reasons(outcomes)
    for kind, kind_counts in sorted(by_kind.items()):
        print(f"  {kind:<28} {dict(kind_counts)}")
    conn = connect(library / "library.sqlite3", read_only=True)
    empty = conn.execute("SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE "
                         "c.document_id = d.id) AND NOT EXISTS (SELECT 1 FROM extracted_tables t WHERE "
                         "t.document_id = d.id)").fetchone()[0]
    conn.close()
    print(f"PDFs: added {counts['added']}, refused {counts['refused']}, crashed {counts['crashed']}, hung "
          f"{counts['hung']}; documents with no content in the library: {empty}; "
          f"{time.monotonic() - started:.0f} s, slowest file {max(o.seconds for o in outcomes):.1f} s", flush=True)
    return bool(counts["crashed"] or counts["hung"] or empty)


def fuzz_sheets(args: argparse.Namespace, work: Path, library: Path) -> bool:
    cases = make_sheet_cases(work / "sheets", args.sheets, args.seed)
    print(f"Spreadsheets and CSV: {len(cases)} files (seed {args.seed}), {args.jobs} at a time", flush=True)
    started = time.monotonic()
    outcomes = _run([c.path for c in cases], library, args)
    conn = connect(library / "library.sqlite3", read_only=True)
    verdicts: list[str] = []
    for case, outcome in zip(cases, outcomes, strict=True):
        verdict = outcome.verdict
        if verdict == "added" and case.refused:
            verdict, why = "stored wrong", "added, but it must be refused"
        elif verdict == "added":
            why = stored_wrong(case, conn)
            verdict = "stored wrong" if why else verdict
        if verdict == "stored wrong":
            print(f"  STORED WRONG {case.path.name}: {why}")
        verdicts.append(verdict)
    conn.close()
    _reasons(outcomes)
    by_kind: dict[str, Counter[str]] = {}
    for case, verdict in zip(cases, verdicts, strict=True):
        by_kind.setdefault(case.kind, Counter())[verdict] += 1
    for kind, kind_counts in sorted(by_kind.items()):
        print(f"  {kind:<28} {dict(kind_counts)}")
    counts = Counter(verdicts)
    print(f"Spreadsheets and CSV: added {counts['added']}, refused with a message {counts['refused']}, crashed "
          f"{counts['crashed'] + counts['hung']} (hung {counts['hung']}), stored wrong {counts['stored wrong']}; "
          f"{time.monotonic() - started:.0f} s, slowest file {max(o.seconds for o in outcomes):.1f} s", flush=True)
    return bool(counts["crashed"] or counts["hung"] or counts["stored wrong"])


if __name__ == "__main__":
    sys.exit(main())
