"""Benchmark: real SEC filings (FinanceBench dev): line-item recall of the statements, and answers.

    python tests/bench/bench_financebench.py --line-items            # extraction only, no model (seconds)
    python tests/bench/bench_financebench.py [--metrics-only] [--docs 3M_2018_10K,...] [--modes tablerag,naive]
                                             [--shared] [--workdir DIR] [--out results.json]
    python tests/bench/bench_financebench.py --reworded [--half tune|heldout|both] [--first N] [--docs ...]
    python tests/bench/bench_financebench.py --unknown [--half tune|heldout|both] [--first N] [--docs ...]
    python tests/bench/bench_financebench.py --probe [--first N] [--docs ...]
    python tests/bench/bench_financebench.py --retrieval [--workdir DIR] [--float-embedder]   # search only, no model

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
3. ``--reworded``: the metrics questions reworded as people type them (``data/financebench_reworded_*.jsonl``),
   asked beside their originals on the filing each names (a library per filing, as above) and scored by the
   same numeric rule (the figure in the scale the reworded question names); prints exact and within-1 %
   accuracy per half, the originals' beside the rewordings'. ``--unknown``: the questions on measures a
   catalogue may not hold (``data/financebench_unknown_measures_*.jsonl``), each answer classed as the right
   figure, "cannot compute" naming the part the filing lacks, "cannot compute" naming nothing, a wrong figure
   (for a "cannot" gold: any figure) or other; printed per half, "cannot" golds apart from figure golds.
   ``--probe``: 40 questions on measures and wordings no other set asks, 8 of them to be refused
   (``data/financebench_probe.jsonl``, tune data), classed as ``--unknown`` classes its answers.
   ``--half`` picks the halves (default both; tune only while tuning), ``--first N`` asks only the first N.
   Modes default to tablerag alone for these sets.

4. ``--retrieval``: no model. Every dev question searched in one library of every filing (``WORKDIR/shared``, as
   ``--shared``; ``bench_ingest.py --filings --keep DIR`` makes the same one): page recall@1/5/10/30 of the hybrid
   search and of the vectors alone inside the question's own filing, and of the hybrid search over the whole
   library (tests/bench/libraries.py ``retrieval_recall``). ``--float-embedder`` runs every part with the float
   graph an older Folio used; the same library is re-embedded when the other embedder meets it, so before and
   after compare the same chunks.

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

from tests.bench import question_sets

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


# --------------------------------------------------------------------------------------------------
# Unknown measures: right figure, "cannot compute X", wrong figure, other
# --------------------------------------------------------------------------------------------------

RIGHT, CANNOT_NAMED, CANNOT_UNNAMED, WRONG, OTHER = (
    "right figure", "cannot, names the part", "cannot, names nothing", "wrong figure", "other")

_CANNOT = re.compile(
    r"\b(?:cannot|can ?not|can't|unable|not able|not possible|impossible|insufficient)\b"
    r"|\b(?:does|do|did)(?: not|n't)(?: \w+)? (?:give|report|disclose|provide|show|print|include|contain|break|allocate"
    r"|hold|state|list)\b"
    r"|\bnot (?:reported|disclosed|available|provided|given|broken (?:out|down)|allocated|printed|stated|found)\b"
    r"|\bno (?:figure|data|value|line|breakdown|information)\b", re.IGNORECASE)
# What a sentence cites rather than states: pages, tables, notes, years, form names, the company "3M".
_REFERENCES = re.compile(
    r"\b(?:pp?|pages?|table|note|item)\.?\s*\d+(?:\s*[-\u2013]\s*\d+)?|\b10-[KQ]\b|\b3M\b|\bFY\s?\d{2,4}\b"
    r"|(?<![\d.,])(?:19|20)\d\d(?![\d.,]?\d)", re.IGNORECASE)
_STOPWORDS = frozenset(["a", "an", "and", "by", "for", "from", "in", "is", "it", "its", "of", "on", "per", "the", "to"])


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z&]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words} - _STOPWORDS


def says_cannot(text: str, status: str = "") -> bool:
    """The answer says the figure cannot be computed or is not given (or Folio refused to give one)."""
    return status == "refused" or bool(_CANNOT.search(text))


def names_missing(text: str, missing: Sequence[str]) -> bool:
    """The answer names the missing part: every content word of one of its names ("segment interest expense")
    occurs in it, plurals folded."""
    words = _stems(text)
    return any(_stems(name) <= words for name in missing)


def classify_unknown(item: dict[str, Any], text: str, value: str = "", status: str = "") -> str:
    """What an answer to an unknown-measure question did. ``value`` is the bare result Folio states (empty for
    the naive baseline, whose figures are read from ``text`` less what it cites). A figure within the rounding
    of an accepted answer is right; a "cannot" that states no figure of its own names the missing part or not;
    any other figure is wrong (for a "cannot" gold, every figure is)."""
    stated = value or _REFERENCES.sub(" ", text)
    if item["gold_kind"] == "figure" and any(score(stated, gold, item["question"])[0] for gold in item["answers"]):
        return RIGHT
    gives_figure = status != "refused" and bool(answer_figures(stated, question_scale(item["question"])))
    if says_cannot(text, status) and not (value and gives_figure):
        return CANNOT_NAMED if names_missing(text, item.get("missing") or ()) else CANNOT_UNNAMED
    return WRONG if gives_figure else OTHER


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


@dataclass
class Reply:
    """What one question got: the answer's sentence and bare value, how it was checked, where it cites, its cost."""

    text: str = ""
    value: str = ""
    status: str = ""
    cited: tuple[tuple[str, int], ...] = ()
    """(document file name, 1-based page) of every citation."""
    calls: int = 0
    prompt_tokens: int = 0
    seconds: float = 0.0
    error: str = ""


def ask(answerer: Any, question: str) -> Reply:
    """``answerer``'s answer to ``question``; a failure is recorded on the reply (it scores 0) and the run goes on."""
    try:
        answer = answerer.answer(question)
    except Exception as exc:  # noqa: BLE001 - a failed question scores 0 and the run goes on
        return Reply(error=f"{type(exc).__name__}: {exc}")
    return Reply(answer.text, answer.value, answer.status, tuple((c.document, c.page) for c in answer.citations),
                 answer.usage.calls, answer.usage.prompt_tokens, answer.usage.seconds)


def open_library(directory: Path, members: Sequence[str], embedder: Any) -> tuple[Any, int, float]:
    """The library in ``directory`` holding the filings ``members`` (ingesting those it lacks); pages ingested
    now and the seconds it took."""
    from libraries import ingest_missing

    from core.library.store import Library

    library = Library(directory / "library.sqlite3")
    ingested = ingest_missing(library, embedder, [DATA / f"{d}.pdf" for d in members])
    if ingested.files:
        print(ingested.line(), flush=True)
    return library, ingested.pages, ingested.seconds


def run_retrieval(args: argparse.Namespace) -> int:
    """The search's page recall on every dev question, in one library of every filing (no model)."""
    from libraries import bench_embedder, retrieval_recall

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_financebench_"))
    embedder = bench_embedder(args.float_embedder)
    library, _pages, _spent = open_library(workdir / "shared", sorted(p.stem for p in DATA.glob("*.pdf")), embedder)
    ids = {d.file_name: d.id for d in library.documents()}
    asked = [(q["question"], ids[f"{q['doc_name']}.pdf"], frozenset(e["evidence_page_num"] + 1 for e in q["evidence"]))
             for q in read_questions() if f"{q['doc_name']}.pdf" in ids]
    print(retrieval_recall(library, embedder, asked))
    library.close()
    return 0


def answerers_for(library: Any, embedder: Any, chat: Any, modes: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    """The SQL runner (close it after) and an answerer per mode over ``library``."""
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.sql.runner import SqlRunner

    runner = SqlRunner(library.path)
    retriever = make_retriever(library, embedder)
    return runner, {m: Answerer(library, retriever, runner, chat, mode=m) for m in modes}


def per_filing(questions: list[dict[str, Any]], workdir: Path, embedder: Any, chat: Any, modes: Sequence[str],
               judge: Any, out: Path | None) -> list[dict[str, Any]]:
    """Each filing the ``questions`` name in a library of its own, each of its questions asked in every mode, in
    the order given. ``judge(question, reply)`` returns the verdict's fields and a few words for the progress
    line; the result of each answer (mode, verdict, reply) is returned, and written to ``out`` as it comes."""
    results: list[dict[str, Any]] = []
    for doc in dict.fromkeys(q["doc_name"] for q in questions):
        library, _, _ = open_library(workdir / doc, [doc], embedder)
        runner, answerers = answerers_for(library, embedder, chat, modes)
        for question in (q for q in questions if q["doc_name"] == doc):
            for mode in modes:
                reply = ask(answerers[mode], question["question"])
                verdict, said = judge(question, reply)
                results.append({"mode": mode, "id": question["id"], "half": question["half"],
                                "question": question["question"], **verdict, **reply.__dict__})
                print(f"{mode:8} {question['half']:7} {said} calls={reply.calls} tok={reply.prompt_tokens} "
                      f"{reply.seconds:5.1f}s | {question['id']} {question['question'][:50]!r} -> {reply.text[:80]!r}"
                      f"{' ERROR ' + reply.error if reply.error else ''}", flush=True)
                if out:
                    out.write_text(json.dumps(results, indent=1))
        runner.close()
        library.close()
    return results


def run_reworded(args: argparse.Namespace, workdir: Path, embedder: Any, chat: Any, modes: list[str]) -> str:
    """The reworded metrics questions and their originals, asked on the filing each names; the summary."""
    reworded = set_filter(question_sets.load("financebench_reworded", args.half), args)
    originals = {q["financebench_id"]: q for q in read_questions()}
    halves = {r["original_id"]: r["half"] for r in reworded}
    questions = [{**originals[i], "id": i, "half": half, "kind": "original"} for i, half in halves.items()]
    questions += [{**r, "kind": "reworded"} for r in reworded]
    questions.sort(key=lambda q: (q["doc_name"], q.get("original_id", q["id"]), q["kind"] != "original"))

    def judge(q: dict[str, Any], reply: Reply) -> tuple[dict[str, Any], str]:
        exact, lenient = score(reply.text, q["answer"], q["question"])
        return ({"kind": q["kind"], "gold": q["answer"], "exact": exact, "lenient": lenient},
                f"{q['kind']:8} exact={int(exact)} (gold {q['answer']})")

    results = per_filing(questions, workdir, embedder, chat, modes, judge, args.out)
    rows = []
    for mode in modes:
        for half in question_sets.halves(args.half):
            cells = [f"{mode} {half}"]
            for kind in ("original", "reworded"):
                group = [r for r in results if (r["mode"], r["half"], r["kind"]) == (mode, half, kind)]
                cells += [question_sets.rate([r["exact"] for r in group]), question_sets.rate([r["lenient"] for r in group])]
            rows.append(cells)
    header = ["mode, half", "originals exact", "within 1 %", "reworded exact", "within 1 %"]
    return (f"FinanceBench dev metrics questions and their rewordings, model {chat.name}, a library per filing\n"
            + question_sets.table(header, rows, first=20, width=18))


def run_unknown(args: argparse.Namespace, workdir: Path, embedder: Any, chat: Any, modes: list[str],
                name: str = "financebench_unknown_measures") -> str:
    """The questions of set ``name`` (the unknown measures, or the probe, whose lines have the same fields), asked
    on the filing each names; per half, what the answers did."""
    items = set_filter(question_sets.load(name, args.half), args)

    def judge(item: dict[str, Any], reply: Reply) -> tuple[dict[str, Any], str]:
        verdict = classify_unknown(item, reply.text, reply.value, reply.status) if not reply.error else OTHER
        gold = " or ".join(item["answers"]) or "cannot: " + item["missing"][0]
        return ({"gold_kind": item["gold_kind"], "answers": item["answers"], "verdict": verdict},
                f"{verdict:22} (gold {gold})")

    results = per_filing(items, workdir, embedder, chat, modes, judge, args.out)
    header = ["mode, half, gold", "questions", RIGHT, "cannot, named", "cannot, unnamed", WRONG, OTHER]
    rows = []
    for mode in modes:
        for half in question_sets.halves(args.half):
            for gold_kind in ("figure", "cannot"):
                verdicts = [r["verdict"] for r in results if (r["mode"], r["half"], r["gold_kind"]) == (mode, half, gold_kind)]
                if verdicts:
                    rows.append([f"{mode} {half} {gold_kind}", len(verdicts),
                                 *(verdicts.count(v) for v in (RIGHT, CANNOT_NAMED, CANNOT_UNNAMED, WRONG, OTHER))])
    return (f"FinanceBench dev filings, {name}, model {chat.name}\n"
            "(for figure golds a \"cannot\" names no part the filing lacks: it is counted, not right; for \"cannot\" "
            "golds every figure is wrong)\n" + question_sets.table(header, rows, first=28, width=17))


def read_questions() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def set_filter(rows: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The lines of a question set on the filings ``--docs`` names, the first ``--first`` of them."""
    wanted = [d for d in args.docs.split(",") if d]
    rows = [r for r in rows if not wanted or r["doc_name"] in wanted]
    return rows[: args.first] if args.first else rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--line-items", action="store_true", help="only the line-item recall (no model, no ingestion)")
    parser.add_argument("--retrieval", action="store_true", help="only the search's page recall (no model)")
    parser.add_argument("--float-embedder", action="store_true",
                        help="the float MiniLM graph of Folio before the int8 one (to compare on the same library)")
    parser.add_argument("--misses", action="store_true", help="list the line items not found")
    parser.add_argument("--modes", default=None, help="comma-separated (default tablerag,naive; tablerag for the sets)")
    parser.add_argument("--backend", default="embedded", choices=("auto", "embedded", "ollama"))
    parser.add_argument("--metrics-only", action="store_true", help="only metrics-generated questions")
    parser.add_argument("--docs", default="", help="comma-separated filings (default: every filing asked about)")
    parser.add_argument("--shared", action="store_true", help="all filings in one library")
    parser.add_argument("--workdir", type=Path, default=None, help="keep libraries here (reused if present)")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSON")
    parser.add_argument("--reworded", action="store_true", help="the reworded metrics questions beside their originals")
    parser.add_argument("--unknown", action="store_true", help="the questions on measures a catalogue may not hold")
    parser.add_argument("--probe", action="store_true",
                        help="the probe: measures and wordings no other set asks, and questions to refuse (tune only)")
    parser.add_argument("--half", default="both", choices=("tune", "heldout", "both"),
                        help="halves of --reworded / --unknown to ask (default both)")
    parser.add_argument("--first", type=int, default=0, help="ask only the first N questions of --reworded / --unknown")
    args = parser.parse_args(argv)
    if not (DATA / "questions.jsonl").is_file():
        print(f"FinanceBench dev data not found at {DATA}; nothing to measure.", file=sys.stderr)
        return 2
    if args.probe:
        args.half = "tune"
    sets = args.reworded or args.unknown or args.probe
    modes = [m.strip() for m in (args.modes or ("tablerag" if sets else "tablerag,naive")).split(",") if m.strip()]

    if args.retrieval:
        return run_retrieval(args)
    if not sets:
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

    from libraries import bench_embedder

    from app.chat_models import make_chat_model

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_financebench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    embedder = bench_embedder(args.float_embedder)
    chat = make_chat_model(args.backend)
    if sets:
        reports = []
        if args.reworded:
            reports.append(run_reworded(args, workdir, embedder, chat, modes))
        if args.unknown:
            reports.append(run_unknown(args, workdir, embedder, chat, modes))
        if args.probe:
            reports.append(run_unknown(args, workdir, embedder, chat, modes, name="financebench_probe"))
        print()
        print("\n\n".join(reports))
        return 0

    questions = read_questions()
    if args.metrics_only:
        questions = [q for q in questions if q["question_type"] == "metrics-generated"]
    wanted = [d for d in args.docs.split(",") if d]
    if wanted:
        questions = [q for q in questions if q["doc_name"] in wanted]
    docs = sorted({q["doc_name"] for q in questions})
    # --shared: every filing of the folder in one library, asked or not, so routing has to find the right one.
    everything = sorted(p.stem for p in DATA.glob("*.pdf"))
    groups = [("shared", everything)] if args.shared else [(d, [d]) for d in docs]
    pages_total, ingest_seconds = 0, 0.0
    outcomes: list[Outcome] = []
    for name, members in groups:
        library, pages, spent = open_library(workdir / name, members, embedder)
        pages_total += pages
        ingest_seconds += spent
        if args.shared:
            from libraries import routing_before_model

            asked = [(q["question"], f"{q['doc_name']}.pdf") for q in questions if q["doc_name"] in members]
            print(routing_before_model(library, asked).line(len(library.documents())), flush=True)
        runner, answerers = answerers_for(library, embedder, chat, modes)
        for q in (q for q in questions if q["doc_name"] in members):
            gold_pages = {e["evidence_page_num"] for e in q["evidence"]}
            own = f"{q['doc_name']}.pdf"
            for mode in modes:
                reply = ask(answerers[mode], q["question"])
                evidence = any(doc == own and page - 1 in gold_pages for doc, page in reply.cited)
                cited = {doc for doc, _ in reply.cited}
                routed, routed_only = own in cited, cited == {own}
                numeric = is_numeric_gold(q["answer"])
                exact, lenient = score(reply.text, q["answer"], q["question"]) if numeric else (False, False)
                outcomes.append(Outcome(mode, q["doc_name"], q["question"], q["question_type"],
                                        q.get("question_reasoning") or "", q["answer"], reply.text, numeric, exact,
                                        lenient, evidence, reply.calls, reply.prompt_tokens, reply.seconds, reply.error,
                                        routed, routed_only))
                print(f"{mode:8} exact={int(exact)} ev={int(evidence)} routed={int(routed)} calls={reply.calls} "
                      f"tok={reply.prompt_tokens} {reply.seconds:5.1f}s | "
                      f"{q['doc_name']} {q['question'][:60]!r} -> {reply.text[:80]!r} (gold {q['answer'][:30]!r})"
                      f"{' ERROR ' + reply.error if reply.error else ''}", flush=True)
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
