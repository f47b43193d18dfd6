"""Benchmark: questions over tables that are not financial statements (registers, statistics, survey and vote
tables), asked in ONE library that holds every document of the set, so routing has to find the right one.

    python tests/bench/bench_tables.py [--half tune|probe|probe2|probe3|probe4|probe5|probe6|probe7|probe8|probe9|probe10|probe11|
                                       probe12|probe13|probe14|probe15|probe16|reworded|heldout|both]
                                       [--limit N] [--kinds sum,count,...]
                                       [--ids ID,...] [--backend embedded] [--workdir DIR] [--out results.json]
                                       [--resume]   # with --out: keep its answers, choose among the others
    python tests/bench/bench_tables.py --routing-only [--half ...]     # no model: routing before any model call
    python tests/bench/bench_tables.py --rescore results.json          # score saved answers again

The questions are ``tests/bench/data/tables_tune.jsonl`` and ``tables_heldout.jsonl``, and the probe
``tables_probe.jsonl`` (tune data on ICDAR documents no other question uses) and the second probe
``tables_probe2.jsonl`` (tune data: new questions on the tune half's documents) and the third probe
``tables_probe3.jsonl`` (tune data on documents no other question uses) and the fourth probe
``tables_probe4.jsonl`` (tune data: 40 questions of the kinds code read worst, on documents the others use least,
written before reading the plans' patterns) and the fifth probe ``tables_probe5.jsonl`` (tune data: 40 fresh
questions of the same kinds on 16 documents no held-out question uses, written before reading the plans) and the
sixth probe ``tables_probe6.jsonl`` (40 fresh questions of every table kind on 15 documents no held-out question
uses, written before reading the plans; tune data once measured) and the seventh probe ``tables_probe7.jsonl``
(40 fresh questions of nine table kinds on 16 documents no held-out question uses, written before reading the
plans; tune data once measured) and the eighth probe ``tables_probe8.jsonl`` (40 fresh questions of nine table
kinds on six real PDFs from PyPI source packages that Folio had never been run on, written before reading the
plans; tune data once measured) and the ninth probe ``tables_probe9.jsonl`` (40 fresh questions of the same nine
kinds on six more such PDFs; tune data once measured) and the tenth probe ``tables_probe10.jsonl`` (40 fresh
questions of the same nine kinds on five real PDFs from Debian and npm packages; tune data once measured) and the
eleventh probe ``tables_probe11.jsonl`` (40 fresh questions of the same nine kinds on five more such PDFs; tune data
once measured) and the twelfth probe ``tables_probe12.jsonl`` (40 fresh questions of the same nine kinds on four
more real PDFs from Debian packages; tune data once measured) and the thirteenth probe
``tables_probe13.jsonl`` (40 fresh questions of eleven kinds on four more real PDFs from Debian packages; tune
data once measured) and the fourteenth probe ``tables_probe14.jsonl`` (40 fresh questions of the same eleven kinds
on four more real PDFs from Debian packages; tune data once measured) and the fifteenth probe
``tables_probe15.jsonl`` (60 fresh questions of the same eleven kinds, in wordings Folio had never seen, on 15
documents already in the library; tune data once measured) and the sixteenth probe ``tables_probe16.jsonl`` (58
fresh questions of the same eleven kinds, in unseen wordings, on ten other documents already in the library; tune
data once measured) and the reworded set
``tables_reworded_tune.jsonl`` (tune data: 60 questions the others answer by code, asked in other words; see the
README beside them):
eleven kinds (lookup by one key, by two keys, count of rows, filtered sum, average, min/max
with its label, top-k, list of values, share of a total, difference of two cells, text answered from
the prose), golds read off the pages. The held-out half is for checking, never for tuning.

1. The documents (``table_documents.py``: ../shared/samples, the ICDAR 2013 dev PDFs, TAT-QA dev tables
   rendered to PDF, three generated registers, six real PDFs from PyPI source packages) are gathered in
   ``--workdir`` and ingested for real (MiniLM embedder) into one library there; a work folder that already holds
   them is reused as it is.
2. Before any model call, ``core.search.routing`` routes each question; the share routed to its own
   document first, and among the routed, is printed.
3. Each question is asked with the chosen backend (default: the embedded model) and scored (``scoring.py``):
   a figure is right when the answer's bare value (else, when the value prints no figure, its sentence)
   prints the gold within half a unit of the gold's printed precision, after normalising thousands
   separators (European notation included) and scale words, sign included; when the gold names a label
   ("which district had the most ...") the answer must name it too; labels are compared normalised; lists
   as sets; a text gold must appear in the answer.
   A bare value printing several figures where one was asked is wrong; a refused answer is wrong. Also: evidence page recall (a citation on a gold page of the question's own
   document), routing in the answer (the own document cited first; only it cited), wall-clock seconds per
   question (median, p90; the first includes loading the model), model calls and prompt tokens, and every
   answer sentence with a form the issue quotes ("have a value", "add up to" over a single figure, "Row 1").

Figures are printed, never asserted (STYLE.md). The embedded model is slow on 2 shared cores: run it in the
background, one benchmark at a time.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from scoring import figures, holds_figure, labels_match, names_label, p90, split_spans

DATA = Path(__file__).resolve().parent / "data"
HALVES = ("tune", "heldout")
KINDS = ("lookup", "lookup2", "count", "sum", "average", "minmax", "topk", "list", "share", "difference", "text")
BAD_FORMS = (
    ("have a value", re.compile(r"\b(?:have|has) a value\b", re.IGNORECASE)),
    ("Row N", re.compile(r"\bRow \d+\b")),
)
_ADD_UP = re.compile(r"\badds? up to\b", re.IGNORECASE)
_OPERAND = re.compile(r"\((?:[-\u2212]?[$€£]?\s?\d[\d.,]*%?)\)")


def load_questions(half: str) -> list[dict[str, Any]]:
    """The questions of one half ("tune", "heldout", "probe", "probe2", "probe3", "probe4", "probe5", "probe6",
    "probe7", "probe8", "probe9", "probe10", "probe11", "probe12", "probe13", "probe14", "probe15", "probe16") or of
    tune and held-out both, each with its half. The probe (``tables_probe.jsonl``) is tune data too: questions written later on documents no other
    question uses, to measure how plans written on the tune half hold on layouts they were not written on. The
    second probe (``tables_probe2.jsonl``) is tune data as well: new questions on the tables the tune half uses,
    to measure how the plans hold on questions they were not written on. The third (``tables_probe3.jsonl``),
    tune data too, asks about documents none of the others uses, to measure the plans on layouts new to
    everyone. The fourth (``tables_probe4.jsonl``), tune data too, asks 40 questions of the kinds code answered
    worst (list, share, average, lookup by two keys, count, min/max and top-k) in wordings written before
    reading the plans' patterns, on documents the others use least. The fifth (``tables_probe5.jsonl``), tune data
    too, asks 40 fresh questions of those kinds and of difference, written the same way, on 16 documents the others
    use least and no held-out question uses. The sixth (``tables_probe6.jsonl``), tune data once measured, asks 40
    fresh questions of every table kind (columns as items, headers over two and three rows, a scanned table,
    side-by-side tables), written the same way, on 15 documents the others use least and no held-out question
    uses. The seventh (``tables_probe7.jsonl``), tune data once measured, asks 40 fresh questions of the kinds
    list, count, share, lookup by two keys, average, min/max, top-k, sum and difference, written the same way, on 16
    documents no held-out question uses. The eighth (``tables_probe8.jsonl``), tune data once measured, asks 40
    fresh questions of the same nine kinds but difference, written the same way, on six real PDFs taken from PyPI
    source packages (a statistical abstract's arrest tables, a Spanish donor register, R data sets, a paper's result
    tables, a Brazilian electricity bill, IRS instructions) that Folio had never been run on. The ninth
    (``tables_probe9.jsonl``), tune data once measured, asks 40 more of those nine kinds, written the same way, on six
    other real PDFs from PyPI source packages (a survey's tables of benchmark instances, a paper's scoring matrices, a
    results table with mean and S.E. rows, a German invoice over two pages, a cloud bill, a measurement sheet of four
    small tables) that Folio had never been run on. The tenth (``tables_probe10.jsonl``), tune data once measured,
    asks 40 more of those nine kinds, written the same way, on five real PDFs from Debian and npm packages (suicide
    rates by country and age group, smoking case-control tallies, genotype tallies under a two-level header, a
    paper's table comparing six fitted models, a Chinese seed treatment schedule over two pages). The eleventh
    (``tables_probe11.jsonl``), tune data once measured, asks 40 more of those nine kinds, written the same way, on five
    more real PDFs from Debian and npm packages (a paper's results table of 26 benchmarks, a patient register in two
    side-by-side halves over two pages and lowest temperatures of cities by month, a galaxy register and a cloud
    seeding register, a table of detection algorithms and weekly counts of two states, a clinical paper's two small
    tables). The twelfth (``tables_probe12.jsonl``), tune data once measured, asks 40 more of those nine kinds,
    written the same way, on four more real PDFs from Debian packages (a Spanish report of deaths by day and year,
    one month a page; simulation results tables with row and column groups; counts by group and age band in
    Females and Males blocks; a wine bitterness ratings tally and a table of link functions in two blocks). The
    thirteenth (``tables_probe13.jsonl``), tune data once measured, asks 40 more of those kinds and of
    difference and text, written the same way, on four more real PDFs from Debian packages (small validation
    data sets whose cells are formulas; a data set printed transposed in two blocks and a table of cut points;
    Type I error and power tables under a three-level header with row groups; wine ratings of eight bottles by
    nine judges). The fourteenth (``tables_probe14.jsonl``), tune data once measured, asks 40 more of the same eleven
    kinds, written the same way, on four more real PDFs from Debian packages (a data set of pupils, a time series
    by year and month, a flat table of counts under a three-level header and a cohort tally; a yes/no comparison
    of packages in row groups and a table of functions with descriptions; variable selection steps as check marks
    with AIC and BIC rows, one table rotated, and estimates under row groups; claim counts by amount group and a
    data set of claim amounts in two rows). The fifteenth (``tables_probe15.jsonl``), tune data once measured, asks
    60 more of the same eleven kinds, in wordings people type (terse, long, synonyms, the table named or not), on 15
    documents already in the library (state health outlays, a budget summary, district health indicators, a
    sample size table with spanning cells, a scanned bone density report, a rotated baseline table, retail
    studies, salmonellosis cases by country, population totals under a two-level header, disability rates, notes
    to accounts, a register of WARN notices over three pages and a harvest report in European number format). The
    sixteenth (``tables_probe16.jsonl``), tune data once measured, asks 58 more of the same eleven kinds, written
    the same way, on ten other documents already in the library (an electoral roll page of 30 elector boxes,
    quarterly ABCP issuance, EU fund allocations by country, Campylobacter sampling tables by country and year,
    district health indicators with blank DLHS-3 columns, health plan enrollment under spanning plan type and
    county cells, state liabilities with a footnote mark glued to a figure, notes to accounts, an FDA guidance's
    text tables and forecast error tables under row groups). The
    reworded set (``tables_reworded_tune.jsonl``), tune data too,
    asks questions of the others in other words (each names its ``source``), to measure whether a plan reads a
    meaning or a phrase."""
    out = []
    for name in HALVES if half == "both" else (half,):
        path = DATA / ("tables_reworded_tune.jsonl" if name == "reworded" else f"tables_{name}.jsonl")
        out += [{**json.loads(line), "half": name} for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    for question in out:  # a gold is read as printed ("78.50" keeps its decimals): a JSON number loses that
        gold = question["answer"]
        if not (isinstance(gold, str) or isinstance(gold, list) and all(isinstance(g, str) for g in gold)):
            raise ValueError(f"{question['id']}: the answer must be a string or a list of strings, not {gold!r}")
    return out


def select(questions: list[dict[str, Any]], kinds: Sequence[str], ids: Sequence[str], limit: int) -> list[dict]:
    """The questions asked: of the kinds and ids named (all when none), at most ``limit``, taken in turn from
    each kind so that a short run still has every kind."""
    chosen = [q for q in questions if (not kinds or q["kind"] in kinds) and (not ids or q["id"] in ids)]
    if not limit:
        return chosen
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for question in chosen:
        by_kind.setdefault(question["kind"], []).append(question)
    rounds = zip_longest(*[by_kind[k] for k in KINDS if k in by_kind])
    return [q for group in rounds for q in group if q is not None][:limit]


# --------------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------------


def is_right(question: dict[str, Any], value: str, text: str, parts: Sequence[str], status: str) -> bool:
    """The answer against the question's gold (see the module's rules)."""
    if status == "refused":
        return False
    gold, kind = question["answer"], question["answer_type"]
    if kind == "figure":
        # The bare value when it prints a figure; else (a label alone: "Andhra Pradesh") the sentence.
        printed = set(re.findall(r"\d(?:[\d.,]*\d)?", value))  # figures as printed: "27.715,5" is one
        if len(printed) > 1 and "label" not in question:
            return False  # several figures where one was asked ("3%; 7%; 5%" for a count of 3)
        said = value if figures(value, european=True) else text
        right = holds_figure(said, gold, gold_scale=question.get("scale", ""), european=True)
        if not right and "label" in question:
            # "which month had the most": the value is the label ("September 2015", a figure of its own), the
            # figure is in the sentence
            right = holds_figure(text, gold, gold_scale=question.get("scale", ""), european=True)
        return right and ("label" not in question or names_label(f"{value} {text}", question["label"]))
    golds = list(gold) if isinstance(gold, list) else [gold]
    if kind == "text":
        return names_label(f"{value} {text}", gold)
    if len(parts) > 1:
        return labels_match(parts, golds)
    if value:
        return labels_match(split_spans(value, golds), golds)
    return all(names_label(text, g) for g in golds)


def bad_forms(sentence: str) -> list[str]:
    """The forms the issue quotes that a sentence has: "have a value", "Row 1", and "add up to" said of a
    single figure ("August 2015 (5,890) add up to 5,890")."""
    found = [name for name, pattern in BAD_FORMS if pattern.search(sentence)]
    for part in re.split(r"(?<=[.;])\s+", sentence):
        match = _ADD_UP.search(part)
        if match and len(_OPERAND.findall(part[: match.start()])) <= 1:
            found.append("add up to (one figure)")
            break
    return found


@dataclass
class Outcome:
    id: str
    half: str
    kind: str
    document: str
    question: str
    answer_type: str
    gold: Any
    label: str
    value: str
    text: str
    parts: list[str]
    status: str
    exact: bool
    evidence: bool
    cited_first: bool
    """The question's own document is the first one cited."""
    cited_only: bool
    """The question's own document is the only one cited."""
    cited: list[str]
    calls: int
    prompt_tokens: int
    seconds: float
    """Wall-clock seconds for the whole answer."""
    error: str = ""
    bad: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    """The answer's steps (SQL, result, failures): where a wrong answer went wrong."""
    replies: list[dict[str, str]] = field(default_factory=list)
    """With --trace: each model call's task (its last message) and the model's reply."""


class NoModel:
    """A chat model whose every call fails: what code alone answers (``--refused-by-code``)."""

    name = "none"

    def chat(self, *_args: Any, **_kwargs: Any) -> Any:
        from models.errors import ModelOutputError

        raise ModelOutputError("no model: code alone")


class Recorder:
    """The chat model, each call's last message and reply kept (``--trace``): the plan the model filled, read
    beside the answer it led to."""

    def __init__(self, chat: Any) -> None:
        self.inner, self.calls = chat, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def chat(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        reply = self.inner.chat(messages, **kwargs)
        self.calls.append({"task": messages[-1].content, "reply": reply.text})
        return reply


def summarize(outcomes: list[Outcome]) -> str:
    n = len(outcomes)
    if not n:
        return "no questions answered"

    def rate(flags: list[bool]) -> str:
        return f"{statistics.fmean(flags):.3f} ({sum(flags)}/{len(flags)})"

    lines = [f"{'exact':36}{rate([o.exact for o in outcomes])}"]
    for kind in KINDS:
        group = [o for o in outcomes if o.kind == kind]
        if group:
            lines.append(f"  {kind:34}{rate([o.exact for o in group])}")
    lines += [
        f"{'evidence page recall':36}{rate([o.evidence for o in outcomes])}",
        f"{'routing: own document cited first':36}{rate([o.cited_first for o in outcomes])}",
        f"{'routing: only own document cited':36}{rate([o.cited_only for o in outcomes])}",
        f"{'seconds per question, median':36}{statistics.median(o.seconds for o in outcomes):.1f}",
        f"{'seconds per question, p90':36}{p90([o.seconds for o in outcomes]):.1f}",
        f"{'model calls per question, mean':36}{statistics.fmean(o.calls for o in outcomes):.2f}",
        f"{'model calls per question, median':36}{statistics.median(o.calls for o in outcomes):.1f}",
        f"{'prompt tokens per question, median':36}{statistics.median(o.prompt_tokens for o in outcomes):.0f}",
        f"{'refused':36}{sum(o.status == 'refused' for o in outcomes)}",
        f"{'errors':36}{sum(bool(o.error) for o in outcomes)}",
    ]
    flagged = [o for o in outcomes if o.bad]
    lines.append(f"{'answers with a quoted bad form':36}{len(flagged)}")
    for o in flagged:
        lines.append(f"  [{o.id}] {', '.join(o.bad)}: {o.text[:300]!r}")
    return "\n".join(lines)


def rescore(saved: list[dict[str, Any]]) -> list[Outcome]:
    """Saved outcomes scored again with this file's rules (the golds are taken from the data files)."""
    questions = {q["id"]: q for q in load_questions("both")}
    outcomes = []
    for item in saved:
        outcome = Outcome(**item)
        question = questions.get(outcome.id)
        if question is not None and not outcome.error:
            outcome.exact = is_right(question, outcome.value, outcome.text, outcome.parts, outcome.status)
        outcome.bad = bad_forms(outcome.text)
        outcomes.append(outcome)
    return outcomes


# --------------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------------


def ask(answerer: Any, question: dict[str, Any]) -> Outcome:
    """Ask one question and score it; a failure is recorded and scored wrong."""
    document, pages = question["document"], set(question["pages"])
    began = time.perf_counter()
    try:
        answer = answerer.answer(question["question"])
    except Exception as exc:  # noqa: BLE001 - a failed question is scored 0 and the run goes on
        return Outcome(question["id"], question["half"], question["kind"], document, question["question"],
                       question["answer_type"], question["answer"], question.get("label", ""), "", "", [], "error",
                       False, False, False, False, [], 0, 0, time.perf_counter() - began,
                       f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - began
    cited = list(dict.fromkeys(c.document for c in answer.citations))
    parts = list(getattr(answer, "parts", ()))
    return Outcome(
        question["id"], question["half"], question["kind"], document, question["question"],
        question["answer_type"], question["answer"], question.get("label", ""), answer.value, answer.text, parts,
        answer.status, is_right(question, answer.value, answer.text, parts, answer.status),
        any(c.document == document and c.page in pages for c in answer.citations),
        bool(cited) and cited[0] == document, cited == [document], cited, answer.usage.calls,
        answer.usage.prompt_tokens, seconds, bad=bad_forms(answer.text), steps=[s.to_json() for s in answer.steps])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", default="tune",
                        choices=(*HALVES, "probe", "probe2", "probe3", "probe4", "probe5", "probe6", "probe7", "probe8",
                                 "probe9", "probe10", "probe11", "probe12", "probe13", "probe14", "probe15",
                                 "probe16", "reworded",
                                 "both"),
                        help="which questions: tune (default), probe (tune data on documents the tune half does "
                             "not use), probe2 (tune data: new questions on the tune half's documents), probe3 (tune "
                             "data on documents no other question uses), probe4 (tune data: the weak kinds in "
                             "unseen wordings), probe5 (tune data: fresh questions of those kinds on documents "
                             "the others use least), probe6 (40 fresh questions of every kind, "
                             "unseen by code when written), probe7 (40 more fresh questions of nine kinds on 16 "
                             "documents no held-out question uses), probe8 (40 fresh questions on six real "
                             "PDFs from PyPI source packages Folio had never read), probe9 (40 more on six other "
                             "such PDFs), probe10 (40 more on five real PDFs from Debian and npm packages), "
                             "probe11 (40 more on five other such PDFs), probe12 (40 more on four real PDFs "
                             "from Debian packages), probe13 (40 more on four other such PDFs), "
                             "probe14 (40 more on four other such PDFs), "
                             "probe15 (60 more in unseen wordings on 15 documents already in the library), "
                             "probe16 (58 more in unseen wordings on ten other documents already in the library), "
                             "reworded (tune data: questions of the others "
                             "reworded), heldout (for "
                             "checking only) or both (tune and heldout)")
    parser.add_argument("--limit", type=int, default=0, help="ask at most N questions, taken in turn by kind")
    parser.add_argument("--kinds", default="", help=f"comma-separated kinds ({', '.join(KINDS)})")
    parser.add_argument("--ids", default="", help="comma-separated question ids")
    parser.add_argument("--backend", default="embedded", choices=("auto", "embedded", "ollama", "openai"))
    parser.add_argument("--sql-style", default="auto", choices=("auto", "structured", "free"))
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the documents and the library here (reused if present)")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSON")
    parser.add_argument("--resume", action="store_true",
                        help="with --out: keep the answers that file already holds; --limit, --kinds and --ids "
                             "choose among the other questions")
    parser.add_argument("--trace", action="store_true",
                        help="keep each model call's task and reply in --out (the plan the model filled)")
    parser.add_argument("--refused-by-code", action="store_true",
                        help="only the questions code alone does not answer (its model calls fail): the ones the "
                             "model decides")
    parser.add_argument("--routing-only", action="store_true", help="no model: only routing before any model call")
    parser.add_argument("--rescore", type=Path, default=None,
                        help="score the answers saved by an earlier --out again (no ingestion, no model)")
    args = parser.parse_args(argv)

    if args.rescore is not None:
        print(summarize(rescore(json.loads(args.rescore.read_text(encoding="utf-8")))))
        return 0
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    questions = load_questions(args.half)
    outcomes: list[Outcome] = []
    if args.resume and args.out and args.out.exists():
        # The answers already saved stay (and are scored again); the selection is made among the others.
        half = {q["id"] for q in questions}
        outcomes = [o for o in rescore(json.loads(args.out.read_text(encoding="utf-8"))) if o.id in half]
        done = {o.id for o in outcomes}
        questions = [q for q in questions if q["id"] not in done]
        print(f"resuming: {len(outcomes)} answers kept from {args.out}", flush=True)
    asked = select(questions, kinds, [i for i in args.ids.split(",") if i], args.limit)
    if args.half in ("heldout", "both"):
        print("The held-out half is for checking: do not tune on its questions or answers.", flush=True)

    import table_documents
    from libraries import ingest_missing, routing_before_model

    missing = table_documents.missing_sources()
    if missing:
        print(f"not found: {', '.join(map(str, missing))}; the table set needs ../shared (from the repository "
              f"root). Nothing measured.", file=sys.stderr)
        return 2
    from app.chat_models import make_chat_model
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.library.store import Library
    from core.sql.runner import SqlRunner
    from models.embedding import MiniLMEmbedder

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_tables_"))
    paths = table_documents.build(workdir / "documents")
    changed = table_documents.changed_documents(workdir / "documents")
    if changed:
        print(f"WARNING: {', '.join(changed)} no longer print the text their golds were read off (a change to "
              f"tests/support/registers.py or the report builder?): their questions may be scored wrongly.",
              flush=True)
    embedder = MiniLMEmbedder()
    library = Library(workdir / "library.sqlite3")
    ingested = ingest_missing(library, embedder, paths)
    print(ingested.line() if ingested.files else f"reusing the library in {workdir}", flush=True)
    present = {d.file_name for d in library.documents()}
    absent = sorted({q["document"] for q in asked} - present)
    if absent:
        print(f"not in the library (their questions will be wrong): {', '.join(absent)}", flush=True)
    print(f"{len(asked)} questions ({args.half}), {len(present)} documents in one library; work dir {workdir}",
          flush=True)

    routing = routing_before_model(library, [(q["question"], q["document"]) for q in asked])
    print(routing.line(len(present)), flush=True)
    if args.routing_only:
        library.close()
        return 0

    runner = SqlRunner(library.path)
    retriever = make_retriever(library, embedder)
    if args.refused_by_code:
        by_code = Answerer(library, retriever, runner, NoModel(), sql_style=args.sql_style)
        asked = [q for q in asked if ask(by_code, q).status in ("refused", "error")]
        print(f"{len(asked)} of them not answered by code alone: {', '.join(q['id'] for q in asked)}", flush=True)
    chat = make_chat_model(args.backend)
    recorder = Recorder(chat) if args.trace else None
    answerer = Answerer(library, retriever, runner, recorder or chat, sql_style=args.sql_style)
    for n, question in enumerate(asked, 1):
        outcome = ask(answerer, question)
        if recorder is not None:
            outcome.replies, recorder.calls = recorder.calls, []
        outcomes.append(outcome)
        gold = question["answer"] if not question.get("label") else f"{question['label']}: {question['answer']}"
        print(f"[{n}/{len(asked)}] {outcome.id:28} {outcome.kind:10} exact={outcome.exact:d} ev={outcome.evidence:d} "
              f"first={outcome.cited_first:d} calls={outcome.calls} {outcome.seconds:5.1f}s | "
              f"{question['question'][:70]!r} -> {(outcome.value or outcome.text)[:70]!r} (gold {gold!r})"
              f"{' ERROR ' + outcome.error if outcome.error else ''}", flush=True)
        if args.out:
            args.out.write_text(json.dumps([asdict(o) for o in outcomes], indent=1, default=str), encoding="utf-8")
    print()
    print(f"table questions, {args.half} half, {len(outcomes)} questions, model {chat.name}")
    print(summarize(outcomes))
    runner.close()
    library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
