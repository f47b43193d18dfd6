"""Benchmark: a library of many reports (LakeQA scale): ingestion, routing, search latency, the window.

    python tests/bench/bench_scale.py --workdir DIR [--documents 1000] [--pages 2] [--embedder minilm|hash]
                                      [--chunks 100000,500000] [--queries 40] [--no-window]
                                      [--recall-on LIBRARY] [--skip-ingest] [--vectors-from LIBRARY]

1. Builds ``--documents`` reports with the project's report builder (tests/support/report_builder.py):
   many issuers (companies, councils, charities, statistics offices), years and document types (annual
   report, budget, statistics release, interim report), each with a title page line, prose and a
   statement table. Files already built are kept (deterministic), so a rerun resumes.
2. Ingests them in batches with progress; documents already in the library are skipped, so an
   interrupted run resumes where it stopped. Prints pages/s, peak memory (this process and its page
   workers) and the library's size on disk.
3. Routing on the generated library: for a sample of documents, a question naming the issuer and the
   period ("What were Northfield City Council's total expenses in 2019-20?") must route to that document
   first; prints the share and the time per question.
4. Search latency: a copy of the library is grown with synthetic chunks (report-like text; vectors mixed
   from the library's own chunk vectors, inserted directly) to each size in ``--chunks``; prints the vector
   index's load (out of sqlite-vec, then from its cache file), hybrid search latency (median, p95) over the
   whole library with BM25 and the vector side alone, inside one routed document, the recall@10 of the
   vector search against exact search, and the next search after a document is added (the index appends).
   ``--recall-on LIBRARY`` prints that recall on an existing library of real embeddings as well;
   ``--vectors-from LIBRARY`` makes the synthetic vectors from that library's (real filings) instead.
5. The window: time to open the main window on the ingested library (offscreen) until the library
   list is filled, and to filter it by a search word.

Figures are printed, never asserted (STYLE.md).
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from core.ingest.ingestor import Ingestor
from core.library.migrations import EMBEDDING_DIMENSION
from core.library.store import Library, content_hash
from core.search.retrieval import Retriever
from core.search.routing import route_question
from core.search.vector_index import VectorIndex
from tests.support.report_builder import Section, TableSpec, build_report

PLACES = ["Northfield", "Ashby", "Brookmere", "Calder", "Dunmore", "Eastwick", "Fairhaven", "Glenrock", "Harwood",
          "Ivybridge", "Kingsley", "Lowther", "Marston", "Newholm", "Oakridge", "Pembury", "Queensway", "Redcliffe",
          "Stanmore", "Thornbury"]
COMPANIES = ["Acme Industries Inc.", "Borealis Foods plc", "Cobalt Mining Corp", "Delta Freight Ltd", "Evergreen Power Co",
             "Fulcrum Software Inc.", "Granite Cement plc", "Harbor Retail Corp", "Ionic Pharma Ltd", "Juniper Textiles Inc.",
             "Keystone Bank plc", "Lumen Optics Corp", "Meridian Airlines Ltd", "Nimbus Telecom Inc.", "Orchid Hotels plc"]
CHARITIES = ["Riverside Food Bank Trust", "Hope Shelter Foundation", "Clearwater Rivers Trust", "Open Library Society",
             "Bright Futures Foundation"]
KINDS = ("annual report", "budget", "statistics release", "interim report")
WORDS = ["revenue", "expenses", "capital", "expenditure", "grants", "staff", "services", "roads", "parks", "libraries", "housing", "schools", "water", "waste", "transport", "health", "pensions", "reserves", "borrowing", "interest", "depreciation", "assets", "liabilities", "equity", "cash", "operating", "investing", "financing", "dividends", "inventories", "receivables", "payables", "margin", "growth", "outlook"]


def issuers() -> list[tuple[str, str]]:
    """(issuer, sector) pairs: companies, councils, charities, statistics offices."""
    out = [(name, "company") for name in COMPANIES]
    out += [(f"{place} City Council", "council") for place in PLACES]
    out += [(name, "charity") for name in CHARITIES]
    out += [(f"{place} Statistics Office", "statistics") for place in PLACES[:8]]
    return out


def plan(count: int) -> list[tuple[str, str, str, int]]:
    """(file stem, issuer, kind, year) for ``count`` documents, spread over issuers, kinds and years."""
    everyone = issuers()
    rows = []
    for i in range(count):
        issuer, sector = everyone[i % len(everyone)]
        round_ = i // len(everyone)
        year = 2024 - round_ % 15
        kind = {"company": ("annual report", "interim report"), "council": ("budget", "annual report"),
                "charity": ("annual report",), "statistics": ("statistics release",)}[sector]
        chosen = kind[(round_ // 15) % len(kind)]
        stem = f"{issuer.split()[0]}_{sector}_{year}_{chosen.replace(' ', '-')}_{i:05d}"
        rows.append((stem, issuer, chosen, year))
    return rows


def period_words(kind: str, year: int) -> str:
    return f"{year - 1}-{str(year)[2:]}" if kind == "budget" else f"{year}"


def build(path: Path, issuer: str, kind: str, year: int, pages: int, seed: int) -> None:
    rng = random.Random(seed)
    title = {"annual report": f"{issuer} Annual Report {year}", "budget": f"{issuer} Budget {period_words(kind, year)}",
             "statistics release": f"{issuer} Statistical Bulletin {year}",
             "interim report": f"{issuer} Interim Report, second quarter of {year}"}[kind]
    labels = rng.sample(WORDS, 6)
    table = TableSpec(f"Summary of {labels[0]} and {labels[1]} ($ thousands)",
                      [["Item", str(year), str(year - 1)]],
                      [[label.capitalize(), f"{rng.randint(100, 99999):,}", f"{rng.randint(100, 99999):,}"]
                       for label in labels] + [["Total", f"{rng.randint(100000, 999999):,}",
                                                f"{rng.randint(100000, 999999):,}"]])
    paragraphs = [" ".join(rng.choice(WORDS) for _ in range(60)).capitalize() + "." for _ in range(3 * pages)]
    sections = [Section("Overview", [f"This {kind} of {issuer} covers {period_words(kind, year)}.", *paragraphs[:3]],
                        [table])]
    sections += [Section(f"Part {n}", paragraphs[3 * n: 3 * n + 3]) for n in range(1, pages)]
    build_report(path, title, sections)


def peak_memory_mb() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest finished child (page workers), in MB."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def make_embedder(kind: str):  # type: ignore[no-untyped-def]
    if kind == "hash":
        from tests.conftest import HashEmbedder

        return HashEmbedder()
    from models.embedding import MiniLMEmbedder

    return MiniLMEmbedder()


def ingest(workdir: Path, documents: int, pages: int, embedder) -> Path:  # type: ignore[no-untyped-def]
    pdfs = workdir / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    rows = plan(documents)
    began = time.perf_counter()
    built = 0
    for n, (stem, issuer, kind, year) in enumerate(rows):
        path = pdfs / f"{stem}.pdf"
        if not path.exists():
            build(path, issuer, kind, year, pages, seed=n)
            built += 1
    print(f"built {built} PDFs ({documents - built} already there) in {time.perf_counter() - began:.1f} s", flush=True)
    library_path = workdir / "library" / "library.sqlite3"
    library = Library(library_path)
    present = {d.file_name for d in library.documents()}
    todo = [pdfs / f"{stem}.pdf" for stem, *_ in rows if f"{stem}.pdf" not in present]
    print(f"ingesting {len(todo)} documents ({len(present)} already in the library)", flush=True)
    ingestor = Ingestor(library, embedder)
    pages_done, seconds = 0, 0.0
    batch = 25
    for start in range(0, len(todo), batch):
        began = time.perf_counter()
        results = ingestor.ingest_paths(todo[start:start + batch])
        seconds += time.perf_counter() - began
        pages_done += sum(r.pages or 0 for r in results if r.status == "added")
        failed = [r for r in results if r.status not in ("added", "skipped")]
        rss, children = peak_memory_mb()
        print(f"  {len(present) + start + len(results):5}/{documents} documents, {pages_done} pages in {seconds:.0f} s "
              f"({pages_done / max(seconds, 1e-9):.1f} pages/s), peak memory {rss:.0f} MB (page workers {children:.0f} MB)"
              + (f", {len(failed)} failed: {failed[0].message}" if failed else ""), flush=True)
    counts = library.counts()
    library.close()
    size = sum(p.stat().st_size for p in library_path.parent.glob("library.sqlite3*"))
    rss, children = peak_memory_mb()
    if pages_done:
        print(f"ingestion: {pages_done} pages in {seconds:.1f} s = {pages_done / seconds:.2f} pages/s")
    print(f"library: {counts['documents']} documents, {counts['pages']} pages, {counts['chunks']} chunks, "
          f"{counts['tables']} tables; {size / 1e6:.1f} MB on disk ({size / max(counts['documents'], 1) / 1e3:.0f} KB "
          f"per document); peak memory {rss:.0f} MB, page workers {children:.0f} MB")
    return library_path


def routing(library_path: Path, documents: int, sample: int) -> None:
    library = Library(library_path)
    rows = plan(documents)
    names = {d.file_name: d.id for d in library.documents()}
    rng = random.Random(3)
    picked = rng.sample(rows, min(sample, len(rows)))
    right, spent = 0, []
    for stem, issuer, kind, year in picked:
        question = f"What were {issuer}'s total {rng.choice(WORDS)} in the {kind} for {period_words(kind, year)}?"
        began = time.perf_counter()
        routed = route_question(question, library).document_ids
        spent.append(time.perf_counter() - began)
        right += bool(routed) and routed[0] == names.get(f"{stem}.pdf")  # type: ignore[index]
    print(f"routing over {len(names)} documents: {right}/{len(picked)} = {right / len(picked):.3f} routed to the "
          f"document asked; {statistics.median(spent) * 1000:.1f} ms per question (median)")
    library.close()


def real_vectors(library: Library) -> np.ndarray:
    """The unit vectors of the library's own (ingested) chunks: the material synthetic vectors are made from."""
    rows = library.conn.execute("SELECT rowid, embedding FROM embedding_vectors ORDER BY rowid").fetchall()
    if not rows:
        raise SystemExit("the library has no embeddings to grow from")
    vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), EMBEDDING_DIMENSION)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _embedder_of(library: Library) -> str:
    """The embedder that made a library's vectors: synthetic vectors mixed from them are in its space (search refuses
    vectors of two embedders, core.library.reembedding)."""
    return str(library.conn.execute("SELECT model FROM embeddings ORDER BY id LIMIT 1").fetchone()[0])


def grow(library: Library, target: int, rng: np.random.Generator, vectors_from: Path | None = None) -> float:
    """Add synthetic chunks (with vectors) under one synthetic document until the library holds ``target``;
    their vectors are made from the chunk vectors of ``vectors_from`` (another library), else of this one."""
    conn = library.conn
    have = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    if have >= target:
        return 0.0
    began = time.perf_counter()
    if vectors_from is not None:
        source = Library(vectors_from)
        real, model = real_vectors(source), _embedder_of(source)
        source.close()
    else:
        real, model = real_vectors(library), _embedder_of(library)
    conn.execute("BEGIN IMMEDIATE")
    row = conn.execute("SELECT id FROM documents WHERE sha256 = 'synthetic'").fetchone()
    if row is None:
        conn.execute("INSERT INTO documents (sha256, file_name, path, title, page_count, status, size_bytes, added_at) "
                     "VALUES ('synthetic', 'synthetic.pdf', '/dev/null', 'Synthetic chunks', 1, 'ready', 0, '')")
        row = conn.execute("SELECT id FROM documents WHERE sha256 = 'synthetic'").fetchone()
    document = row[0]
    # Report-like text: words drawn Zipf-wise from a 20,000-word vocabulary (made-up words, so they are
    # spread as words in reports are), with two of the report words questions use in every chunk. Drawing
    # every word from the few report words would make each of them match half the library, a case no
    # real library shows.
    vocabulary = np.array([f"w{n}x" for n in range(20_000)])
    report_words = np.array(WORDS)
    step = 20_000
    for start in range(have, target, step):
        n = min(step, target - start)
        ranks = np.minimum(rng.zipf(1.2, size=(n, 22)) - 1, len(vocabulary) - 1)
        picked = report_words[rng.integers(0, len(report_words), size=(n, 2))]
        texts = [" ".join([*vocabulary[ranks[i]], *picked[i]]) + f" item {start + i}" for i in range(n)]
        hashes = [content_hash(t) for t in texts]
        conn.executemany("INSERT INTO chunks (document_id, kind, page, text, content_hash) VALUES (?, 'text', 1, ?, ?)",
                         [(document, t, h) for t, h in zip(texts, hashes, strict=True)])
        # Vectors shaped like sentence embeddings of reports: each mixes two of the library's real chunk
        # vectors with a little noise, so they share its topics and its common direction. (Random unit
        # vectors, what this benchmark used before, have no near neighbours at all: every approximate
        # search does badly on them, and no library of text looks like them.)
        vectors = (real[rng.integers(0, len(real), n)] + 0.35 * real[rng.integers(0, len(real), n)]
                   + 0.04 * rng.standard_normal((n, EMBEDDING_DIMENSION))).astype(np.float32)
        first = conn.execute("SELECT COALESCE(MAX(id), 0) FROM embeddings").fetchone()[0] + 1
        conn.executemany("INSERT INTO embeddings (id, content_hash, model) VALUES (?, ?, ?)",
                         [(first + i, h, model) for i, h in enumerate(hashes)])
        conn.executemany("INSERT INTO embedding_vectors (rowid, embedding) VALUES (?, ?)",
                         [(first + i, vectors[i].tobytes()) for i in range(n)])
        print(f"    {start + n} chunks", flush=True)
    conn.execute("COMMIT")
    return time.perf_counter() - began


def percentile(values: list[float], share: float) -> float:
    return sorted(values)[int(share * (len(values) - 1))]


def vector_recall(library_path: Path, questions: list[str], embedder, index: VectorIndex | None = None,  # type: ignore[no-untyped-def]
                  settings: tuple[tuple[int, int], ...] = ((400, 0), (1000, 100), (1000, 50))) -> str:
    """Recall@10 of the index's search (coarse pass and exact re-rank when the library is large) against exact
    search over every vector of the same library, with the time of each: with the index's own setting, then
    with each (candidates, share) in ``settings``."""
    library = Library(library_path)
    index = index if index is not None else VectorIndex()
    vectors = [np.asarray(v, dtype=np.float32) for v in embedder.embed(questions)]
    index.nearest(library.conn, vectors[0], 10)
    truths, exact = [], []
    for vector in vectors:
        began = time.perf_counter()
        truths.append({i for i, _ in index.nearest(library.conn, vector, 10, exact=True)})
        exact.append(time.perf_counter() - began)
    kept = index.candidates, index.share
    said = []
    for candidates, share in dict.fromkeys((kept, *settings)):
        index.candidates, index.share = candidates, share
        found, fast = 0.0, []
        for vector, truth in zip(vectors, truths, strict=True):
            began = time.perf_counter()
            got = index.nearest(library.conn, vector, 10)
            fast.append(time.perf_counter() - began)
            found += len({i for i, _ in got} & truth) / max(len(truth), 1)
        pool = max(candidates, len(index) // share if share else 0)
        said.append(f"{found / len(vectors):.3f} re-ranking {pool} rows ({statistics.median(fast) * 1000:.1f} ms)"
                    + (" [the index's setting]" if (candidates, share) == kept else ""))
    index.candidates, index.share = kept
    library.close()
    return (f"vector recall@10 against exact search over {len(vectors)} queries, {len(index):,} vectors: "
            + ", ".join(said) + f"; exact search {statistics.median(exact) * 1000:.1f} ms (medians)")


def latency(library_path: Path, sizes: list[int], queries: int, embedder, extra_pdf: Path | None,  # type: ignore[no-untyped-def]
            vectors_from: Path | None = None) -> None:
    library = Library(library_path)
    documents = library.counts()["documents"]
    library.close()
    # A copy per library size, vectors made from its own chunks' (grown copies of older runs are left alone).
    source = f"-vectors-of-{vectors_from.parent.name}" if vectors_from is not None else ""
    grown_path = library_path.parent.parent / f"grown-{documents}docs{source}" / "library.sqlite3"
    if not grown_path.exists():
        grown_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(library_path, grown_path)
    cache = grown_path.with_name(grown_path.name + "-vectors")
    rng = np.random.default_rng(1)
    questions = [f"What was the total {a} and {b} in {2010 + i % 15}?" for i, (a, b) in
                 enumerate(zip(random.Random(5).choices(WORDS, k=queries), random.Random(6).choices(WORDS, k=queries),
                               strict=True))]
    for size in sizes:
        library = Library(grown_path)
        spent = grow(library, size, rng, vectors_from)
        if spent:
            print(f"  grew to {size} chunks in {spent:.0f} s", flush=True)
        for leftover in cache.parent.glob(cache.name + "*"):
            leftover.unlink()  # the first load below reads sqlite-vec, as a library without a cache does
        index = VectorIndex(cache)
        began = time.perf_counter()
        index.load(library.conn)
        loaded = time.perf_counter() - began
        began = time.perf_counter()
        VectorIndex(cache).load(library.conn)
        reopened = time.perf_counter() - began
        print(f"  vector index at {len(index):,} vectors: read out of sqlite-vec (and cached) in {loaded:.1f} s; "
              f"opened from its cache file in {reopened:.2f} s", flush=True)
        retriever = Retriever(library.conn, embedder, vector_index=index)
        retriever.search(questions[0], k=5)
        times, lexical, semantic = [], [], []
        for q in questions:
            began = time.perf_counter()
            retriever.search(q, k=5)
            times.append(time.perf_counter() - began)
        for q in questions:
            began = time.perf_counter()
            retriever.bm25(q, 30)
            lexical.append(time.perf_counter() - began)
            began = time.perf_counter()
            retriever.vector(q, 30)
            semantic.append(time.perf_counter() - began)
        one = next(d.id for d in library.documents() if d.sha256 != "synthetic")  # a generated report
        retriever.limit_to([one])
        scoped = []
        for q in questions:
            began = time.perf_counter()
            retriever.search(q, k=5)
            scoped.append(time.perf_counter() - began)
        retriever.limit_to(None)
        print(f"search at {library.counts()['chunks']:,} chunks: median {statistics.median(times) * 1000:.1f} ms, "
              f"p95 {percentile(times, 0.95) * 1000:.1f} ms over {len(times)} queries (embedding the query included; "
              f"BM25 alone median {statistics.median(lexical) * 1000:.1f} ms, p95 {percentile(lexical, 0.95) * 1000:.1f}"
              f" ms; vector side alone median {statistics.median(semantic) * 1000:.1f} ms); inside one "
              f"document: median {statistics.median(scoped) * 1000:.1f} ms", flush=True)
        print("  " + vector_recall(grown_path, questions, embedder, index), flush=True)
        if extra_pdf is not None and size == sizes[-1]:
            began = time.perf_counter()
            Ingestor(library, embedder).ingest_paths([extra_pdf])
            added = time.perf_counter() - began
            loads = index.full_loads
            began = time.perf_counter()
            retriever.search(questions[1], k=5)
            print(f"adding one document to it: {added:.2f} s; the next search {time.perf_counter() - began:.3f} s "
                  f"(full reads of the index: {index.full_loads - loads}; the new vectors are appended)", flush=True)
        library.close()


def window(library_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from app.controller import Controller
    from app.settings import Settings
    from ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    began = time.perf_counter()
    controller = Controller(library_path.parent, Settings(backend="embedded"), embedder_factory=lambda: embedder)
    main = MainWindow(controller)
    main.show()
    app.processEvents()
    opened = time.perf_counter() - began
    listed = main.library_view.document_count()
    began = time.perf_counter()
    main.library_view.filter_edit.setText("Council 2019")
    app.processEvents()
    filtered = time.perf_counter() - began
    shown = main.library_view.visible_count()
    print(f"window on {listed} documents: opened and listed in {opened:.2f} s; filtering by 'Council 2019' "
          f"({shown} shown) {filtered * 1000:.0f} ms")
    main.close()
    controller.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True, help="PDFs and libraries (reused: a rerun resumes)")
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=2, help="pages per generated report (about)")
    parser.add_argument("--embedder", default="minilm", choices=("minilm", "hash"))
    parser.add_argument("--chunks", default="100000,500000", help="library sizes for the latency part ('' to skip)")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--no-window", action="store_true")
    parser.add_argument("--recall-on", type=Path, action="append", default=[],
                        help="also print the vector recall on this existing library (real embeddings), coarse pass forced")
    parser.add_argument("--skip-ingest", action="store_true", help="only the --recall-on measurements")
    parser.add_argument("--vectors-from", type=Path, help="make the synthetic chunks' vectors from this library's "
                        "chunk vectors (e.g. real filings) instead of the generated reports'")
    args = parser.parse_args(argv)
    embedder = make_embedder(args.embedder)
    for path in args.recall_on:
        questions = [f"What was the total {a} in {2015 + i % 9}?" for i, a in enumerate(random.Random(7).choices(WORDS, k=40))]
        print(f"{path}: " + vector_recall(path, questions, embedder, VectorIndex(exact_up_to=0), ((40, 0), (100, 0))), flush=True)
    if args.skip_ingest:
        return 0
    library_path = ingest(args.workdir, args.documents, args.pages, embedder)
    routing(library_path, args.documents, sample=200)
    if not args.no_window:
        window(library_path, embedder)
    sizes = [int(s) for s in args.chunks.split(",") if s.strip()]
    if sizes:
        extra = args.workdir / "extra.pdf"
        if not extra.exists():
            build(extra, "Zenith Robotics Inc.", "annual report", 2024, args.pages, seed=99_999)
        latency(library_path, sizes, args.queries, embedder, extra, args.vectors_from)
    return 0


if __name__ == "__main__":
    sys.exit(main())
