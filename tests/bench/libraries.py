"""Libraries the answer benchmarks ask in: documents ingested for real, kept in a work folder and reused.

``ingest_missing`` adds to a library the files it does not hold yet (by file name), with the real MiniLM
embedder, and reports the pages and seconds it took; ``routing_before_model`` scores, before any model
call, whether ``core.search.routing`` puts each question's own document first and among the routed ones.
Used by ``bench_financebench.py --shared`` and ``bench_tables.py``. ``retrieval_recall`` scores the search alone
(``--retrieval`` of bench_financebench.py and bench_tatqa.py); ``bench_embedder`` is today's embedder, or with
``--float-embedder`` the float graph an older Folio used (tests/support/embedders.py), to measure before and after
on the same library (re-embedded when the other embedder meets it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple


@dataclass(frozen=True)
class Ingested:
    """What one ``ingest_missing`` call added."""

    files: tuple[str, ...]
    pages: int
    seconds: float
    failed: tuple[str, ...] = ()

    @property
    def pages_per_second(self) -> float:
        return self.pages / max(self.seconds, 1e-9)

    def line(self) -> str:
        failed = f"; failed: {', '.join(self.failed)}" if self.failed else ""
        return (f"ingested {len(self.files) - len(self.failed)} of {len(self.files)} file(s): {self.pages} pages in "
                f"{self.seconds:.1f} s ({self.pages_per_second:.1f} pages/s){failed}")


def ingest_missing(library: Any, embedder: Any, paths: Sequence[Path]) -> Ingested:
    """Ingest the files of ``paths`` whose names the library does not hold yet."""
    from core.ingest.ingestor import Ingestor

    present = {d.file_name for d in library.documents()}
    todo = [p for p in paths if p.name not in present]
    if not todo:
        return Ingested((), 0, 0.0)
    began = time.perf_counter()
    results = Ingestor(library, embedder).ingest_paths(todo)
    spent = time.perf_counter() - began
    failed = tuple(f"{r.path.name} ({r.message})" for r in results if r.status == "failed")
    return Ingested(tuple(p.name for p in todo), sum(r.pages or 0 for r in results), spent, failed)


class Routing(NamedTuple):
    """Questions routed, before any model call, to their own document first; with it among the routed;
    to no document at all (the whole library is searched); and asked."""

    first: int
    within: int
    nowhere: int
    asked: int

    def share(self, n: int) -> str:
        return f"{n}/{self.asked} = {n / max(self.asked, 1):.3f}"

    def line(self, documents: int) -> str:
        share = self.share
        return (f"routing before any model call, {self.asked} questions over {documents} documents: own document "
                f"routed first {share(self.first)}, among the routed {share(self.within)}; routed nowhere (whole "
                f"library searched) {share(self.nowhere)}")


def routing_before_model(library: Any, asked: Sequence[tuple[str, str]]) -> Routing:
    """Where ``core.search.routing`` sends each (question, own document's file name) pair."""
    from core.search.routing import route_question

    names = {d.id: d.file_name for d in library.documents()}
    first = within = nowhere = 0
    for question, document in asked:
        ids = route_question(question, library).document_ids or ()
        first += bool(ids) and names[ids[0]] == document
        within += document in {names[i] for i in ids}
        nowhere += not ids
    return Routing(first, within, nowhere, len(asked))


def retrieval_recall(library: Any, embedder: Any, asked: Sequence[tuple[str, int, frozenset[int]]],
                     ks: Sequence[int] = (1, 5, 10, 30)) -> str:
    """Before any model call: for each (question, own document id, gold pages, 1-based), whether the hybrid search
    (BM25 and vectors, fused) and the vector search alone, inside the own document, put a chunk of a gold page among
    their first k (30: the candidates a search fuses); and both over the whole library (own document and gold
    page). Vectors another embedder made are made again first (core.library.reembedding), and the seconds that took are printed."""
    from core.library.reembedding import reembed
    from core.library.store import load_chunks
    from core.search.retrieval import Retriever

    began = time.perf_counter()
    made = reembed(library, embedder)
    lines = [f"re-embedded {made} vectors for {embedder.name} in {time.perf_counter() - began:.1f} s"] if made else []
    retriever = Retriever(library.conn, embedder)
    deepest = max(ks)
    hits: dict[str, list[int]] = {"hybrid, own document": [0] * len(ks), "vectors alone, own document": [0] * len(ks),
                                  "hybrid, whole library": [0] * len(ks), "vectors alone, whole library": [0] * len(ks)}
    for question, document, gold in asked:
        rankings = {
            "hybrid, own document": [(c.document_id, c.page) for c in
                                     retriever.search(question, k=deepest, document_ids=[document])],
            "vectors alone, own document": [(c.document_id, c.page) for c in load_chunks(
                library.conn, [v.chunk_id for v in retriever.vector(question, k=deepest, document_ids=[document])])],
            "hybrid, whole library": [(c.document_id, c.page) for c in retriever.search(question, k=deepest)],
            "vectors alone, whole library": [(c.document_id, c.page) for c in load_chunks(
                library.conn, [v.chunk_id for v in retriever.vector(question, k=deepest)])],
        }
        for name, ranking in rankings.items():
            for i, k in enumerate(ks):
                hits[name][i] += any(d == document and page in gold for d, page in ranking[:k])
    n = max(len(asked), 1)
    lines.append(f"page recall before any model call, {len(asked)} questions, embedder {embedder.name}:")
    for name, counts in hits.items():
        lines.append(f"  {name:28} " + "  ".join(f"@{k} {c / n:.3f}" for k, c in zip(ks, counts)))
    retriever.close()
    return "\n".join(lines)


def bench_embedder(float_embedder: bool = False) -> Any:
    """Today's int8 MiniLM embedder, or the float graph Folio used before it."""
    if float_embedder:
        from tests.support.embedders import FloatMiniLMEmbedder

        return FloatMiniLMEmbedder()
    from models.embedding import MiniLMEmbedder

    return MiniLMEmbedder()
