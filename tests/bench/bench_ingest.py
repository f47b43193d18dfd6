"""Benchmark: ingestion speed and memory, and hybrid search latency. Prints figures; asserts nothing.

    python tests/bench/bench_ingest.py [--pages 200] [--chunks 50000]
    python tests/bench/bench_ingest.py --filings [N] [--only 3M,NIKE] [--stages]   # the FinanceBench dev filings
    python tests/bench/bench_ingest.py --together A.pdf B.pdf   # two processes adding two files at once

1. Generates a report of --pages pages with prose and tables (tests.support.report_builder), ingests it into a
   fresh library with the real MiniLM embedder, and prints pages/s and peak memory (RSS high-water mark
   of a child process that does only the ingestion).
2. Fills a library with --chunks chunks of real report prose (TAT-QA sentences recombined; FTS5 +
   sqlite-vec, vectors random but unit length) and times TAT-QA questions: BM25 alone, vector KNN
   alone (query embedded with the real model; exact search over the in-memory copy of the vectors,
   core.search.vector_index, whose one-off load is timed separately) and the hybrid search (both, fused).
3. --filings: each of the first N (all) FinanceBench dev filings (../shared/bench/financebench-dev) is ingested
   into one library by a child process of its own: per filing, pages, seconds, pages/s and peak memory, then
   the total pages/s; and the load average (`uptime`) before and after, since a busy machine slows it. CPU seconds
   count the child's worker processes (page analysis, OCR) too. With --stages, each filing's seconds a page by
   stage (page text, words, ledger reader, camelot, pymupdf tables, finishing tables, OCR, typing, chunking,
   embedding, SQLite write): the stages are timed where they run, so page analysis is kept in the child's own
   process for that run (no worker processes), and embedding, on threads beside it, overlaps the rest.
   --keep DIR ingests into the library in DIR and keeps it (bench_financebench.py --retrieval searches it).
4. --together: two `folio ingest`-like child processes add two different files into one library at the same
   moment: for each, whether it was added, its seconds, and the seconds it waited for the other's write.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

WORDS = ["revenue", "expenditure", "budget", "council", "department", "roads", "parks", "schools", "staff", "salaries", "capital", "grant", "income", "operating", "surplus", "deficit", "growth", "decline", "fiscal", "year", "quarter", "region", "north", "south", "east", "west", "health", "education", "transport", "housing", "water", "energy", "population", "survey", "district", "total", "average", "percent", "change"]


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


# What --stages times: (stage, module, owner (class or None), function name).
STAGES = (
    ("page text", "core.ingest.ingestor", None, "read_page"),
    ("words", "core.ingest.extraction.extractor", None, "open_view"),
    ("rulings", "core.ingest.extraction.page_view", None, "find_rulings"),
    ("ledger", "core.ingest.extraction.extractor", None, "read_ledgers"),
    ("camelot", "core.ingest.extraction.camelot_tables", "CamelotReader", "grids"),
    ("pymupdf tables", "core.ingest.extraction.extractor", None, "find_pymupdf_grids"),
    ("finishing tables", "core.ingest.extraction.extractor", "TableExtractor", "_finish"),
    ("all table finding", "core.ingest.extraction.extractor", "TableExtractor", "page_tables"),
    ("OCR", "core.ingest.ocr", "ScannedPageReader", "read"),
    ("typing tables", "core.ingest.staging", "StagedDocument", "add_table"),
    ("chunking text", "core.ingest.staging", "StagedDocument", "add_text"),
    ("embedding (threads)", "models.embedding", "MiniLMEmbedder", "embed"),
    ("SQLite write", "core.ingest.ingestor", None, "write_staged"),
)


def _time_stages() -> dict[str, list[float]]:
    """Wrap each stage's function so its calls add up their wall seconds (and calls); returns the tally."""
    import functools
    import importlib

    tally: dict[str, list[float]] = {}
    for stage, module_name, owner_name, function_name in STAGES:
        module = importlib.import_module(module_name)
        owner = getattr(module, owner_name) if owner_name else module
        original = getattr(owner, function_name)
        counts = tally.setdefault(stage, [0.0, 0])

        def timed(*args, _original=original, _counts=counts, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                _counts[0] += time.perf_counter() - start
                _counts[1] += 1

        setattr(owner, function_name, functools.wraps(original)(timed))
    return tally


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended (page workers, the OCR worker)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def ingest_child(pdf: str, library_dir: str, stages: bool = False, workers: int | None = None) -> None:
    """Runs in a child process so its peak memory is the ingestion's alone. Prints its figures as JSON: the
    seconds it waited for another process's write ("waiting" to "writing") and spent writing ("writing" to
    "done"), and with ``stages`` the seconds of each stage."""
    from pathlib import Path as _Path

    _Path("/proc/self/clear_refs").write_text("5")  # the high-water mark is kept across fork and exec
    from app.wiring import make_ingestor, open_library
    from core.jobs import JobContext
    from models.types import ProgressEvent

    tally = _time_stages() if stages else {}
    seen_at: dict[str, float] = {}

    def seen(event: ProgressEvent) -> None:
        seen_at.setdefault(event.stage, time.perf_counter())

    with open_library(Path(library_dir)) as library:
        ingestor = make_ingestor(library)
        if workers is not None:
            ingestor.pool_workers, ingestor.pool_min_pages = workers, 1
        if stages:
            ingestor.pool_workers = 0  # every stage in this process, where it is timed
        ingestor.embedder.embed(["warm up"])  # type: ignore[attr-defined]
        for counts in tally.values():
            counts[:] = [0.0, 0]
        start, cpu = time.perf_counter(), _cpu_seconds()
        (result,) = ingestor.ingest_paths([Path(pdf)], JobContext(seen))
        end, cpu = time.perf_counter(), _cpu_seconds() - cpu
    writing = seen_at.get("writing", end)
    print(json.dumps({"status": result.status, "message": result.message, "pages": result.pages,
                      "chunks": result.chunks, "tables": result.tables, "seconds": end - start, "peak_mb": _peak_mb(),
                      "cpu": cpu, "stages": tally,
                      "waited": writing - seen_at["waiting"] if "waiting" in seen_at else 0.0,
                      "writing": seen_at.get("done", end) - writing}))


def _child(path: Path, library: Path, stages: bool = False, workers: int | None = None) -> subprocess.Popen[str]:
    options = (["--stages"] if stages else []) + ([f"--workers={workers}"] if workers is not None else [])
    return subprocess.Popen([sys.executable, __file__, "--child", str(path), str(library), *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _figures(process: subprocess.Popen[str]) -> dict:
    out, err = process.communicate()
    if process.returncode != 0:
        print(err[-3000:])
        raise SystemExit("ingestion failed")
    return json.loads(out.strip().splitlines()[-1])


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


FILINGS = REPO.parent / "shared" / "bench" / "financebench-dev"


def bench_filings(limit: int | None, names: str = "", stages: bool = False, workers: int | None = None,
                  keep: Path | None = None) -> None:
    files = [f for f in sorted(FILINGS.glob("*.pdf")) if not names or any(n in f.name for n in names.split(","))][:limit]
    if not files:
        print(f"The FinanceBench dev filings are not at {FILINGS}; nothing to ingest.")
        return
    print(f"{len(files)} filings, one child process each, into one library; load average before: {_load()}", flush=True)
    pages = seconds = cpu = 0.0
    peaks = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            figures = _figures(_child(path, keep or Path(tmp) / "lib", stages, workers))
            pages += figures["pages"]
            seconds += figures["seconds"]
            cpu += figures["cpu"]
            peaks.append(figures["peak_mb"])
            print(f"  {path.name:<44} {figures['pages']:>4} pages {figures['seconds']:6.1f} s "
                  f"{figures['pages'] / max(figures['seconds'], 1e-9):5.1f} pages/s  CPU {figures['cpu']:6.1f} s  "
                  f"peak {figures['peak_mb']:4.0f} MB  {figures['chunks']:>5} chunks {figures['tables']:>3} tables "
                  f"[{figures['status']}]", flush=True)
            if stages:
                per_page = max(figures["pages"], 1)
                print("    ms a page: " + ", ".join(f"{stage} {1000 * seconds / per_page:.1f} ({calls})"
                                                    for stage, (seconds, calls) in figures["stages"].items() if calls),
                      flush=True)
    # What two cores kept busy would give: the CPU seconds a page costs, spent two at a time (the embedder's threads
    # and the page reading run side by side). On a busy machine the wall figure is lower, and the CPU one higher
    # than on a quiet one (cores shared with other processes run slower).
    print(f"overall: {pages:.0f} pages in {seconds:.0f} s = {pages / seconds:.2f} pages/s; {cpu / pages:.3f} CPU s a "
          f"page ({2 * pages / cpu:.1f} pages/s on two cores kept busy); peak memory at most {max(peaks):.0f} MB "
          f"(embedder and model included); load average after: {_load()}")


def bench_together(first: Path, second: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        library = Path(tmp) / "lib"
        from app.wiring import open_library

        open_library(library).close()  # created (and migrated) before the two start
        print(f"load average before: {_load()}", flush=True)
        processes = [_child(first, library), _child(second, library)]
        for path, process in zip((first, second), processes, strict=True):
            figures = _figures(process)
            print(f"  {path.name}: {figures['status']} ({figures['pages']} pages) in {figures['seconds']:.1f} s, "
                  f"waited {figures['waited']:.1f} s for the other's write, wrote for {figures['writing']:.1f} s"
                  f"{'' if figures['status'] == 'added' else ': ' + figures['message']}")


def bench_ingest(pages: int) -> None:
    from tests.support.report_builder import build_generated_report

    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "generated_report.pdf"
        t0 = time.perf_counter()
        build_generated_report(pdf, pages=pages, seed=7)
        print(f"generated a {pages}-page report in {time.perf_counter() - t0:.1f} s ({pdf.stat().st_size / 1e6:.1f} MB)")
        figures = _figures(_child(pdf, Path(tmp) / "lib"))
        print(
            f"ingestion: {figures['pages']} pages, {figures['chunks']} chunks, {figures['tables']} tables in "
            f"{figures['seconds']:.1f} s = {figures['pages'] / figures['seconds']:.1f} pages/s; "
            f"peak RSS {figures['peak_mb']:.0f} MB (embedder and model included) [{figures['status']}]"
        )


TATQA = REPO.parent / "shared" / "bench" / "tatqa" / "tatqa_dataset_dev.json"


def report_corpus(n_chunks: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """``n_chunks`` distinct chunks of real report prose, and real questions to search with.

    Sentences of the TAT-QA dev paragraphs (financial reports) are recombined into chunks of about
    80 words, so term frequencies are those of real reports; the questions are TAT-QA's own. Without
    the bench data, a Zipf-distributed synthetic vocabulary stands in (and the script says so).
    """
    if TATQA.is_file():
        data = json.loads(TATQA.read_text(encoding="utf-8"))
        sentences = [s.strip() for c in data for p in c["paragraphs"] for s in p["text"].split(". ") if len(s.split()) > 4]
        questions = [q["question"] for c in data for q in c["questions"]]
        chunks = []
        for i in range(n_chunks):
            words: list[str] = []
            while len(words) < 80:
                words.extend(rng.choice(sentences).split())
            chunks.append(" ".join(words) + f" (section {i})")
        return chunks, questions
    print(f"note: {TATQA} not found; searching a synthetic Zipf vocabulary instead of report prose")
    vocab = WORDS + [f"term{i}" for i in range(20000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    chunks = [" ".join(rng.choices(vocab, weights, k=80)) for _ in range(n_chunks)]
    return chunks, [" ".join(rng.choices(vocab, weights, k=8)) for _ in range(200)]


def bench_search(n_chunks: int, queries: int = 50) -> None:
    import numpy as np

    from app.wiring import make_retriever, shared_embedder
    from core.library.store import DocumentWriter, Library

    rng = random.Random(3)
    np_rng = np.random.default_rng(3)
    embedder = shared_embedder()
    texts, questions = report_corpus(n_chunks, rng)
    with tempfile.TemporaryDirectory() as tmp:
        library = Library(Path(tmp) / "lib.sqlite3")
        writer = DocumentWriter(library.conn, embedder)
        t0 = time.perf_counter()
        library.conn.execute("BEGIN")
        doc = writer.add_document("0" * 64, Path("synthetic.pdf"), "synthetic", n_chunks // 5, 0)
        for i, text in enumerate(texts):
            writer.add_chunk(doc, "text", 1 + i // 5, text, [(0, 0, 1, 1)])
        hashes = [h for h, _ in writer.missing_embeddings(doc)]
        # Random unit vectors: KNN cost does not depend on the values, and embedding 50k chunks for
        # real would take a quarter of an hour.
        vectors = np_rng.standard_normal((len(hashes), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        writer.add_embeddings(hashes, vectors)
        library.conn.execute("COMMIT")
        print(f"built a {n_chunks}-chunk library in {time.perf_counter() - t0:.1f} s")
        retriever = make_retriever(library, embedder)
        t0 = time.perf_counter()
        retriever.search("warm up budget")
        print(f"first search, loading {n_chunks} vectors into the in-memory index: {time.perf_counter() - t0:.2f} s")
        parts: dict[str, list[float]] = {"bm25": [], "vector (query embedding included)": [], "hybrid": []}
        for question in rng.sample(questions, min(queries, len(questions))):
            for name, run in (("bm25", lambda q: retriever.bm25(q, 30)),
                              ("vector (query embedding included)", lambda q: retriever.vector(q, 30)),
                              ("hybrid", lambda q: retriever.search(q, k=5, recall=30))):
                t = time.perf_counter()
                run(question)
                parts[name].append((time.perf_counter() - t) * 1000)
        retriever.close()
        for name, times in parts.items():
            times.sort()
            print(f"{name} over {n_chunks} chunks: median {statistics.median(times):.1f} ms, "
                  f"p95 {times[int(len(times) * 0.95) - 1]:.1f} ms")


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        options = sys.argv[4:]
        workers = next((int(o.split("=", 1)[1]) for o in options if o.startswith("--workers=")), None)
        ingest_child(sys.argv[2], sys.argv[3], stages="--stages" in options, workers=workers)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--filings", type=int, nargs="?", const=0, default=None, metavar="N")
    parser.add_argument("--only", default="", metavar="NAME,...", help="with --filings: the filings whose names hold one")
    parser.add_argument("--stages", action="store_true", help="with --filings: seconds a page by stage")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="with --filings: page workers for every filing (default: the ingestor's own choice)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="with --filings: ingest into the library in DIR and keep it (to search it afterwards)")
    parser.add_argument("--together", nargs=2, type=Path, metavar="PDF")
    args = parser.parse_args()
    if args.filings is not None:
        bench_filings(args.filings or None, args.only, args.stages, args.workers, args.keep)
        return
    if args.together:
        bench_together(*args.together)
        return
    bench_ingest(args.pages)
    bench_search(args.chunks)


if __name__ == "__main__":
    main()
