"""Benchmark: OCR of scanned pages. Prints figures; asserts nothing.

    python tests/bench/bench_ocr.py [--pages 5]

1. ``../shared/samples/image.pdf`` (a real scanned report page): seconds to OCR the page (worker warm,
   best and median of 3), then how much of its DXA table comes out right against a hand transcription:
   numbers found exactly in the page text, characters of the table's text (difflib ratio), and table
   rows whose three figures land in one row of an SQL table after a full ingestion.
2. A generated scanned report (a born-digital page rendered at 150 dpi, --pages copies): ingestion
   seconds per page, with the hash embedder (OCR and tables only).
"""

from __future__ import annotations

import argparse
import difflib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SAMPLE = REPO.parent / "shared" / "samples" / "image.pdf"
TABLE_REGION = (295.0, 340.0, 592.0, 560.0)  # the DXA table on the sample page, in points


def bench_sample() -> None:
    from core.ingest.ingestor import Ingestor
    from core.ingest.ocr import OcrWorker
    from core.library.store import Library
    from tests.conftest import HashEmbedder
    from tests.core.ingest.test_ocr import IMAGE_PDF_TABLE

    if not SAMPLE.is_file():
        print(f"{SAMPLE} not found: skipping the sample page")
        return
    worker = OcrWorker()
    start = time.perf_counter()
    lines = worker.read(SAMPLE, 1).lines
    first = time.perf_counter() - start
    times, cpu = [], []
    for _ in range(3):
        start, busy = time.perf_counter(), _cpu_seconds(worker.pid)
        lines = worker.read(SAMPLE, 1).lines
        times.append(time.perf_counter() - start)
        cpu.append(_cpu_seconds(worker.pid) - busy)
    worker.close()
    print(f"image.pdf: OCR of the page {min(times):.2f} s best, {statistics.median(times):.2f} s median "
          f"(first call with engine start {first:.2f} s); CPU time of the OCR process {statistics.median(cpu):.2f} s "
          f"per page; {len(lines)} lines; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    with tempfile.TemporaryDirectory() as folder:
        library = Library(Path(folder) / "library.sqlite3")
        start = time.perf_counter()
        result = Ingestor(library, HashEmbedder()).ingest_file(SAMPLE)
        print(f"image.pdf: whole ingestion {time.perf_counter() - start:.2f} s: {result.message}")
        text = library.page_text(result.document_id or 0, 1)
        tokens = set(text.split())
        expected_numbers = [v for row in IMAGE_PDF_TABLE for v in row[1:]] + ["-0.5"]
        right = sum(1 for v in expected_numbers if v in tokens)
        print(f"image.pdf: numbers of the table found exactly in the page text: {right} of {len(expected_numbers)}")
        truth = " ".join(" ".join(row) for row in IMAGE_PDF_TABLE) + " -0.5"  # the Z-score of the Total row
        read = " ".join(_table_rows(lines))
        ratio = difflib.SequenceMatcher(None, truth, read, autojunk=False).ratio()
        print(f"image.pdf: the table's body as OCR read it, against the hand transcription: {ratio:.3f} "
              f"(difflib character ratio)\n  read: {read}")
        rows_right = 0
        sql_rows = []
        for table in library.tables():
            sql_rows += [tuple(str(v) for v in row[1:]) for row in library.conn.execute(f'SELECT * FROM "{table.name}"')]
        for label, *figures in IMAGE_PDF_TABLE:
            wanted = {str(float(f)) for f in figures}
            if any(wanted <= {str(float(v)) for v in row if _is_float(v)} for row in sql_rows):
                rows_right += 1
        print(f"image.pdf: table rows whose three figures are in one SQL row: {rows_right} of {len(IMAGE_PDF_TABLE)} "
              f"({len(library.tables())} table(s) found)")
        library.close()


def _table_rows(lines) -> list[str]:  # type: ignore[no-untyped-def]
    """The OCR lines of the table's body (below its header, above its footnote), row by row, left to right."""
    inside = [ln for ln in lines if ln.bbox[0] >= TABLE_REGION[0] and ln.bbox[2] <= TABLE_REGION[2]
              and 368 <= (ln.bbox[1] + ln.bbox[3]) / 2 <= 535]
    inside.sort(key=lambda ln: (ln.bbox[1] + ln.bbox[3]) / 2)
    rows: list[list] = []  # type: ignore[type-arg]
    for line in inside:
        middle = (line.bbox[1] + line.bbox[3]) / 2
        if rows and abs(middle - (rows[-1][0].bbox[1] + rows[-1][0].bbox[3]) / 2) < 6:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [" ".join(ln.text for ln in sorted(row, key=lambda ln: ln.bbox[0])) for row in rows]


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of a process so far (Linux), whatever else the machine is running."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def bench_generated(pages: int) -> None:
    from core.ingest.ingestor import Ingestor
    from core.library.store import Library
    from tests.conftest import HashEmbedder
    from tests.core.ingest.test_ocr import budget_report
    from tests.support.scans import scan_of

    with tempfile.TemporaryDirectory() as folder:
        scan = scan_of(budget_report(), Path(folder) / "scan.pdf", dpi=150, copies=pages)
        library = Library(Path(folder) / "library.sqlite3")
        start = time.perf_counter()
        result = Ingestor(library, HashEmbedder()).ingest_file(scan)
        seconds = time.perf_counter() - start
        print(f"generated scan, {pages} pages at 150 dpi: {seconds:.1f} s, {seconds / pages:.2f} s per page "
              f"(including the OCR worker's start); {result.tables} tables")
        library.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5)
    args = parser.parse_args()
    bench_sample()
    bench_generated(args.pages)


if __name__ == "__main__":
    main()
