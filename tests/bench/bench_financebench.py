"""Benchmark: real SEC filings (FinanceBench dev): line-item recall of the statements, and answers.

    python tests/bench/bench_financebench.py --line-items            # extraction only, no model (seconds)
    python tests/bench/bench_financebench.py [--metrics-only] [--docs 3M_2018_10K,...] [--modes tablerag,naive]
                                             [--shared] [--workdir DIR] [--out results.json]

Reads ../shared/bench/financebench-dev (from the repository root); never copies it.

1. Line-item recall: ``tests/bench/data/financebench_line_items.jsonl`` holds (page, line item, year,
   value, scale) triples read off the statements on the dev questions' evidence pages (see its README
   beside it). For each page, Folio extracts and types the tables as ingestion does, loads them into an
   in-memory SQLite database, and runs ``SELECT <year column> FROM t WHERE label = ?``; a triple is
   found when a table of that page returns exactly its value (sign included, in the table's scale).
2. Answers: each filing is ingested into its own library (or every filing of the folder, asked about or
   not, into one with ``--shared``, which also prints routing accuracy: before any model call, whether
   the question's own filing is routed first and among the routed (core.search.routing); per answer, whether it
   is among the cited filings, and the only one cited), pages per
   second are timed, and every dev question is asked in each mode. Scored: numeric accuracy (the
   answer's first figure, converted to the scale the question names, equals the gold figure within half
   a unit of the gold's printed precision, sign included; and a lenient count within 1 %), per question
   type and reasoning type; evidence page recall (a citation on a gold page; gold pages are 0-based);
   median prompt tokens, LLM calls and seconds per question.

Figures are printed, never asserted (STYLE.md). The embedded model is slow on 2 cores: run it in the background.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from scoring import answer_figures, decimals_of, gold_figure, question_scale

DATA = REPO.parent / "shared" / "bench" / "financebench-dev"
LINE_ITEMS = Path(__file__).resolve().parent / "data" / "financebench_line_items.jsonl"


def _norm_label(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9&%]+", " ", text.lower()).split())


# --------------------------------------------------------------------------------------------------
# Line-item recall
# --------------------------------------------------------------------------------------------------


def page_tables(pdf: Path, page: int) -> list[tuple[Any, Any]]:
    """The typed tables Folio makes of one page (0-based ``page``), as ingestion makes them."""
    import pymupdf

    from core.ingest.extraction.extractor import TableExtractor
    from core.reports.table_typing import type_table

    doc = pymupdf.open(str(pdf))
    try:
        with TableExtractor(pdf, doc) as extractor:
            tables = extractor.page_tables(page + 1)
        return [(t, type_table(t, t.caption)) for t in tables]
    finally:
        doc.close()


def _year_column(typed: Any, year: int) -> str | None:
    """The column a simple query for ``year`` would use: the first period column naming that year."""
    for column in typed.columns[1:]:
        if column.type != "TEXT" and str(year) in column.name:
            return column.name
    return None


def line_item_recall(items: list[dict[str, Any]]) -> tuple[float, dict[str, tuple[int, int]], list[str]]:
    """Share of triples a SQL lookup over the page's tables returns exactly; per document; misses."""
    by_page: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_page[(item["doc"], item["page"])].append(item)
    found_total = 0
    per_doc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    for (doc, page), triples in sorted(by_page.items()):
        tables = page_tables(DATA / f"{doc}.pdf", page)
        conn = sqlite3.connect(":memory:")
        names = []
        for index, (_, typed) in enumerate(tables):
            name = f"t{index}"
            cols = ", ".join(f'"{c.name}"' for c in typed.columns)
            conn.execute(f"CREATE TABLE {name} ({cols})")
            conn.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(typed.columns))})", typed.rows)
            conn.create_function("norm", 1, lambda s: _norm_label(s) if isinstance(s, str) else s)
            names.append((name, typed))
        for triple in triples:
            per_doc[doc][1] += 1
            hit = False
            for name, typed in names:
                column = _year_column(typed, triple["year"])
                if column is None:
                    continue
                label_col = typed.columns[0].name
                values = [row[0] for row in conn.execute(
                    f'SELECT "{column}" FROM {name} WHERE norm("{label_col}") = ?', (_norm_label(triple["label"]),))]
                if any(isinstance(v, int | float) and abs(v - triple["value"]) < 1e-6 for v in values):
                    hit = True
                    break
            found_total += hit
            per_doc[doc][0] += hit
            if not hit:
                misses.append(f"{doc} p{page} {triple['label'][:60]!r} {triple['year']} = {triple['value']}")
        conn.close()
    recall = found_total / max(len(items), 1)
    return recall, {d: (v[0], v[1]) for d, v in per_doc.items()}, misses


# --------------------------------------------------------------------------------------------------
# Answer scoring
# --------------------------------------------------------------------------------------------------


def score(answer: str, gold: str, question: str) -> tuple[bool, bool]:
    """(exact, within 1 %) for a numeric gold answer: the answer holds the gold figure, sign included, in the
    scale the question names."""
    printed = gold.replace("%", "")
    if not re.search(r"\d", printed):
        return False, False
    target, decimals = gold_figure(printed), decimals_of(printed)
    found = answer_figures(answer, question_scale(question))
    exact = any(abs(f - target) <= 0.5 * 10 ** (-decimals) + 1e-9 for f in found)
    lenient = any(abs(f - target) <= 0.01 * abs(target) + 1e-9 for f in found)
    return exact, lenient


def is_numeric_gold(gold: str) -> bool:
    return bool(re.fullmatch(r"\s*-?\$?-?\d[\d,]*(?:\.\d+)?%?\s*", gold))


@dataclass
class Outcome:
    mode: str
    doc: str
    question: str
    qtype: str
    reasoning: str
    gold: str
    prediction: str
    numeric: bool
    exact: bool
    lenient: bool
    evidence: bool
    calls: int
    prompt_tokens: int
    seconds: float
    error: str = ""
    routed: bool = False
    """The question's own filing is among the cited ones (--shared: the library holds every filing)."""
    routed_only: bool = False
    """Only the question's own filing is cited."""


def summarize(outcomes: list[Outcome], modes: list[str], shared: bool = False) -> str:
    lines = [f"{'':44}" + "".join(f"{m:>12}" for m in modes)]

    def row(name: str, pick: Any, fn: Any) -> None:
        cells = []
        for m in modes:
            group = [o for o in outcomes if o.mode == m and pick(o)]
            cells.append(f"{fn(group):>12.3f}" if group else f"{'-':>12}")
        count = len([o for o in outcomes if o.mode == modes[0] and pick(o)])
        lines.append(f"{name + f' ({count})':44}" + "".join(cells))

    def accuracy(group: list[Outcome]) -> float:
        return statistics.fmean(o.exact for o in group)

    numeric = lambda o: o.numeric
    row("exact, numeric questions", numeric, accuracy)
    row("within 1 %, numeric questions", numeric, lambda g: statistics.fmean(o.lenient for o in g))
    metrics = lambda o: o.numeric and o.qtype == "metrics-generated"
    row("exact, metrics-generated", metrics, accuracy)
    for reasoning in sorted({o.reasoning for o in outcomes if o.qtype == "metrics-generated"}):
        row(f"  {reasoning[:38]}", lambda o, r=reasoning: metrics(o) and o.reasoning == r, accuracy)
    for qtype in sorted({o.qtype for o in outcomes}):
        row(f"evidence recall, {qtype}", lambda o, t=qtype: o.qtype == t, lambda g: statistics.fmean(o.evidence for o in g))
    if shared:
        row("routing: own filing among the cited", lambda o: True, lambda g: statistics.fmean(o.routed for o in g))
        row("routing: only the own filing cited", lambda o: True, lambda g: statistics.fmean(o.routed_only for o in g))
    row("median prompt tokens", lambda o: True, lambda g: float(statistics.median(o.prompt_tokens for o in g)))
    row("median LLM calls", lambda o: True, lambda g: float(statistics.median(o.calls for o in g)))
    row("median seconds", lambda o: True, lambda g: float(statistics.median(o.seconds for o in g)))
    row("errors", lambda o: True, lambda g: float(sum(bool(o.error) for o in g)))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--line-items", action="store_true", help="only the line-item recall (no model, no ingestion)")
    parser.add_argument("--misses", action="store_true", help="list the line items not found")
    parser.add_argument("--modes", default="tablerag,naive")
    parser.add_argument("--backend", default="embedded", choices=("auto", "embedded", "ollama"))
    parser.add_argument("--metrics-only", action="store_true", help="only metrics-generated questions")
    parser.add_argument("--docs", default="", help="comma-separated filings (default: every filing asked about)")
    parser.add_argument("--shared", action="store_true", help="all filings in one library")
    parser.add_argument("--workdir", type=Path, default=None, help="keep libraries here (reused if present)")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSON")
    args = parser.parse_args(argv)
    if not (DATA / "questions.jsonl").is_file():
        print(f"FinanceBench dev data not found at {DATA}; nothing to measure.", file=sys.stderr)
        return 2

    items = [json.loads(line) for line in LINE_ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    started = time.perf_counter()
    recall, per_doc, misses = line_item_recall(items)
    print(f"line-item recall: {recall:.3f} of {len(items)} triples on {len({(i['doc'], i['page']) for i in items})} "
          f"statement pages ({time.perf_counter() - started:.1f} s)")
    for doc, (hit, total) in sorted(per_doc.items()):
        print(f"  {doc:34} {hit:4} / {total:4}")
    if args.misses:
        print("\n".join(misses))
    if args.line_items:
        return 0

    questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.metrics_only:
        questions = [q for q in questions if q["question_type"] == "metrics-generated"]
    wanted = [d for d in args.docs.split(",") if d]
    if wanted:
        questions = [q for q in questions if q["doc_name"] in wanted]
    docs = sorted({q["doc_name"] for q in questions})
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]

    from libraries import ingest_missing, routing_before_model

    from app.chat_models import make_chat_model
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.library.store import Library
    from core.sql.runner import SqlRunner
    from models.embedding import MiniLMEmbedder

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_financebench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    embedder = MiniLMEmbedder()
    chat = make_chat_model(args.backend)
    # --shared: every filing of the folder in one library, asked or not, so routing has to find the right one.
    everything = sorted(p.stem for p in DATA.glob("*.pdf"))
    groups = [("shared", everything)] if args.shared else [(d, [d]) for d in docs]
    pages_total, ingest_seconds = 0, 0.0
    outcomes: list[Outcome] = []
    for name, members in groups:
        library = Library(workdir / name / "library.sqlite3")
        ingested = ingest_missing(library, embedder, [DATA / f"{d}.pdf" for d in members])
        if ingested.files:
            pages_total += ingested.pages
            ingest_seconds += ingested.seconds
            print(ingested.line(), flush=True)
        if args.shared:
            asked = [(q["question"], f"{q['doc_name']}.pdf") for q in questions if q["doc_name"] in members]
            print(routing_before_model(library, asked).line(len(library.documents())), flush=True)
        runner = SqlRunner(library.path)
        retriever = make_retriever(library, embedder)
        answerers = {m: Answerer(library, retriever, runner, chat, mode=m) for m in modes}
        for q in (q for q in questions if q["doc_name"] in members):
            gold_pages = {e["evidence_page_num"] for e in q["evidence"]}
            for mode in modes:
                error = ""
                try:
                    answer = answerers[mode].answer(q["question"])
                    text, usage = answer.text, answer.usage
                    evidence = any(c.document == f"{q['doc_name']}.pdf" and c.page - 1 in gold_pages
                                   for c in answer.citations)
                    cited = {c.document for c in answer.citations}
                    routed, routed_only = f"{q['doc_name']}.pdf" in cited, cited == {f"{q['doc_name']}.pdf"}
                    calls, tokens, seconds = usage.calls, usage.prompt_tokens, usage.seconds
                except Exception as exc:  # noqa: BLE001 - a failed question scores 0 and the run goes on
                    text, calls, tokens, seconds, evidence = "", 0, 0, 0.0, False
                    routed = routed_only = False
                    error = f"{type(exc).__name__}: {exc}"
                numeric = is_numeric_gold(q["answer"])
                exact, lenient = score(text, q["answer"], q["question"]) if numeric else (False, False)
                outcomes.append(Outcome(mode, q["doc_name"], q["question"], q["question_type"],
                                        q.get("question_reasoning") or "", q["answer"], text, numeric, exact, lenient,
                                        evidence, calls, tokens, seconds, error, routed, routed_only))
                print(f"{mode:8} exact={int(exact)} ev={int(evidence)} routed={int(routed)} calls={calls} tok={tokens} {seconds:5.1f}s | "
                      f"{q['doc_name']} {q['question'][:60]!r} -> {text[:80]!r} (gold {q['answer'][:30]!r})"
                      f"{' ERROR ' + error if error else ''}", flush=True)
                if args.out:
                    args.out.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
        runner.close()
        library.close()
    print()
    if pages_total:
        print(f"ingestion: {pages_total} pages in {ingest_seconds:.1f} s = {pages_total / ingest_seconds:.2f} pages/s")
    print(f"FinanceBench dev, {len(questions)} questions, model {chat.name}, {'one shared library' if args.shared else 'a library per filing'}")
    print(summarize(outcomes, modes, shared=args.shared))
    return 0


if __name__ == "__main__":
    sys.exit(main())
