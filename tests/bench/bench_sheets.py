"""Benchmark: ingesting a large spreadsheet, and refusing the ones too large to read. Prints figures; asserts nothing.

    python tests/bench/bench_sheets.py [--rows 100000] [--columns 8] [--embedder real|hash] [--only csv|xlsx]
    python tests/bench/bench_sheets.py --bombs [--embedder real|hash]

Writes an xlsx of --rows data rows (a text column, a year column, numbers) and a CSV of the same rows,
then ingests each into a fresh library in a child process and prints the time and the peak memory of
that process (VmHWM: its own high-water mark), with the real MiniLM embedder by default (the first
``core.ingest.spreadsheets.MAX_INDEXED_ROWS`` rows of a table go into the full-text index, the first
``MAX_EMBEDDED_ROWS`` are embedded; every row goes into SQL).
With --bombs, each of tests/support/sheets.py's SHEET_BOMBS (small files that ask for gigabytes once loaded) is
ingested the same way: its size on disk, the message, the seconds and the peak memory of the process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def ingest_child(path: str, library_dir: str, embedder: str) -> None:
    """Runs in a child process so the peak memory is the ingestion's alone."""
    from app.wiring import make_ingestor, open_library
    from core.jobs import JobContext
    from tests.conftest import HashEmbedder

    with open_library(Path(library_dir)) as library:
        ingestor = make_ingestor(library, HashEmbedder() if embedder == "hash" else None)
        ingestor.embedder.embed(["warm up"])
        before = _peak_mb()
        start = time.perf_counter()
        (result,) = ingestor.ingest_paths([Path(path)], JobContext())
        seconds = time.perf_counter() - start
        table = library.tables()[0] if library.tables() else None
        rows = library.conn.execute(f'SELECT COUNT(*) FROM "{table.name}"').fetchone()[0] if table else 0
    print(json.dumps({"status": result.status, "message": result.message, "chunks": result.chunks,
                      "tables": result.tables, "rows": rows, "seconds": seconds, "peak_mb": _peak_mb(),
                      "before_mb": before}))


def _child(path: Path, library: Path, embedder: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(path), str(library), embedder],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(out.stderr[-2000:])
        raise SystemExit("ingestion failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def bombs(folder: Path, embedder: str) -> None:
    from tests.support.sheets import SHEET_BOMBS

    for case, (write, name, _words) in SHEET_BOMBS.items():
        path = write(folder / name)
        figures = _child(path, folder / f"lib-{len(case)}", embedder)
        print(f"{case:<36} {path.stat().st_size / 1e6:6.1f} MB on disk: {figures['status']} in {figures['seconds']:.1f} s, "
              f"peak memory {figures['peak_mb']:.0f} MB (process with the {embedder} embedder loaded: "
              f"{figures['before_mb']:.0f} MB)\n    {figures['message'][:200]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--columns", type=int, default=8)
    parser.add_argument("--embedder", choices=("real", "hash"), default="real")
    parser.add_argument("--only", choices=("csv", "xlsx"))
    parser.add_argument("--bombs", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        ingest_child(*args.child)
        return
    from python_calamine import CalamineWorkbook

    from tests.support.sheets import write_csv, write_long_xlsx

    with tempfile.TemporaryDirectory() as folder:
        if args.bombs:
            bombs(Path(folder), args.embedder)
            return
        xlsx = Path(folder) / "long.xlsx"
        start = time.perf_counter()
        write_long_xlsx(xlsx, args.rows, args.columns)
        print(f"wrote {args.rows:,} rows x {args.columns} columns as xlsx in {time.perf_counter() - start:.1f} s "
              f"({xlsx.stat().st_size / 1e6:.1f} MB)")
        rows = CalamineWorkbook.from_path(str(xlsx)).get_sheet_by_name("Data").to_python()
        csv_path = write_csv(Path(folder) / "long.csv", rows)
        del rows
        for path in (xlsx, csv_path):
            if args.only and path.suffix != f".{args.only}":
                continue
            figures = _child(path, Path(folder) / f"lib-{path.suffix[1:]}", args.embedder)
            print(f"{path.name}: {figures['rows']:,} rows in SQL, {figures['chunks']} chunks, {figures['tables']} table(s) "
                  f"in {figures['seconds']:.1f} s ({figures['rows'] / figures['seconds']:,.0f} rows/s); peak memory "
                  f"{figures['peak_mb']:.0f} MB (process with the {args.embedder} embedder loaded: "
                  f"{figures['before_mb']:.0f} MB) [{figures['status']}]", flush=True)


if __name__ == "__main__":
    main()
