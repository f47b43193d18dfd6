"""Benchmark: TAT-QA questions answered from PDFs, TableRAG against NaiveRAG on the same model.

    python tests/bench/bench_tatqa.py [--limit 24] [--modes tablerag,naive] [--backend embedded]
                                      [--workdir DIR] [--out results.json] [--seed 7] [--per-type K]
                                      [--types | --table-choice | --code-only | --retrieval]   (no model)
                                      [--float-embedder] [--exclude-seed 2026 [--exclude-limit 150]]
    python tests/bench/bench_tatqa.py --reworded [--half tune|heldout|both] [--first N] [--workdir DIR]

1. Samples contexts from the TAT-QA dev split (../shared/bench/tatqa/tatqa_dataset_dev.json from the
   repository root) and renders them into report PDFs with ``tests.support.report_builder``: three contexts per
   PDF, each a section whose paragraphs surround its table, tables alternately ruled and borderless,
   plus distractor contexts, so retrieval has to find the right page.
2. Ingests the PDFs for real (``core.ingest.ingestor.Ingestor`` with the MiniLM embedder) into a fresh library.
3. Asks each sampled question in every mode and scores it with TAT-QA's official rules (exact match
   and numeracy-aware F1 with scale, ported below), evidence recall (a citation on a page of the gold
   context), LLM calls, prompt tokens and seconds per question. Prints both modes side by side, with
   exact match per TAT-QA answer type (span, multi-span, arithmetic, count) and, for TableRAG, the
   confusion between the answer type Folio decided (``core.answering.answer_types``) and the gold type.
   ``--per-type K`` asks only the first K sampled questions of each gold type (same library), a fixed
   subset for machines too slow for the whole sample.
4. ``--reworded``: the 60 reworded questions of ``tests/bench/data/tatqa_reworded_*.jsonl`` (tune: 30 of the
   seed-7 sample, held-out: 30 of a seed-2026 sample, each seed's first 120 questions), each asked beside its
   original in the library of its seed's 120-question sample (``WORKDIR/seed<N>_n120``, reused), and scored
   against the same gold; EM and F1 of originals and rewordings per half and per answer type. ``--first N``
   asks only the first N of each half. Modes default to tablerag alone.

5. ``--retrieval``: no model; page recall@1/5/10/30 of the search alone for the sampled questions (the hybrid search and
   the vectors alone inside the gold context's PDF, the hybrid search over the whole library; tests/bench/libraries.py
   ``retrieval_recall``). ``--float-embedder`` runs every part with the float MiniLM graph an older Folio used; a
   kept ``--workdir`` library is re-embedded when the other embedder meets it, so before and after compare the same
   chunks.

``--exclude-seed N`` drops from the sample every question seed N's sample of ``--exclude-limit`` asks (by uid; only
the count dropped is printed), so a fresh tune seed shares no question with the held-out seed 2026.

Figures are printed, never asserted (STYLE.md). The embedded model is slow on 2 shared cores: run
it in the background.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import string
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.bench import question_sets

DATASET = REPO.parent / "shared" / "bench" / "tatqa" / "tatqa_dataset_dev.json"
CONTEXTS_PER_PDF = 3

# --------------------------------------------------------------------------------------------------
# TAT-QA's metric (tatqa_metric.py / tatqa_utils.py of the official repository), ported: same number
# parsing, scale handling, normalisation, bag-of-words F1 with an optimal one-to-one span alignment.
# --------------------------------------------------------------------------------------------------

_EXCLUDE_IN_NUM = "'\"\\$€£¥%(),[]"


def scale_to_num(scale: str) -> float:
    scale = scale.lower()
    if "hundred" in scale:
        return 100
    if "thousand" in scale:
        return 1000
    if "million" in scale:
        return 1000000
    if "billion" in scale:
        return 1000000000
    if "percent" in scale:
        return 0.01
    return 1


def _clean_num(text: str) -> str:
    return "".join(ch for ch in str(text) if ch not in _EXCLUDE_IN_NUM)


def extract_one_num_from_str(s: str) -> float | int | None:
    groups = re.findall(r"([+-]?\d+(\.\d+)?)|([+-]?\.\d+)", _clean_num(s))
    if not groups:
        return None
    num = groups[0][0]
    if num == "":
        return None
    return float(num) if "." in num else int(num)


def is_number(text: str) -> bool:
    try:
        words = " ".join(_clean_num(w) for w in text.split()).split()
        if not words:
            return False
        num = float(words[0])
        if math.isnan(num):
            return False
        return not (len(words) >= 2 and scale_to_num(words[1]) == 1)
    except ValueError:
        return False


def _negative_flag(x: str) -> int:
    return -1 if re.findall(r"(\([\d.\s]+\))", x.strip()) else 1


def _percent_flag(x: str) -> float:
    return 0.01 if re.findall(r"([\d.\s]+%)", x.strip()) else 1


def _word_scale(x: str) -> float:
    for one in re.finditer(r"([\d.]+\s?[a-zA-Z]+)", x):
        return scale_to_num(one.group(0).lower())
    return 1


def to_number(text: str) -> float | None:
    num = extract_one_num_from_str(text)
    if num is None:
        return None
    return round(num * _word_scale(text) * _negative_flag(text) * _percent_flag(text), 4)


def _remove_punc(text: str) -> str:
    return text if is_number(text) else "".join(ch for ch in text if ch not in set(string.punctuation))


def _normalize_number(text: str) -> str:
    return str(to_number(text)) if is_number(text) else text


def normalize_answer(text: str) -> str:
    parts = [" ".join(re.sub(r"\b(a|an|the)\b", " ", _normalize_number(_remove_punc(token.lower()))).split())
             for token in re.split(" ", text)]
    return " ".join(p for p in parts if p.strip()).strip()


def _answer_to_bags(answer: str | Sequence[str]) -> tuple[list[str], list[set[str]]]:
    spans = list(answer) if isinstance(answer, (list, tuple)) else [answer]
    normalized = [normalize_answer(s) for s in spans]
    return normalized, [set(n.split()) for n in normalized]


def _compute_f1(predicted: set[str], gold: set[str]) -> float:
    intersection = len(gold & predicted)
    precision = 1.0 if not predicted else intersection / len(predicted)
    recall = 1.0 if not gold else intersection / len(gold)
    return 0.0 if precision == 0 and recall == 0 else 2 * precision * recall / (precision + recall)


def _align_bags(predicted: list[set[str]], gold: list[set[str]]) -> list[float]:
    """Best one-to-one alignment of predicted and gold spans (linear_sum_assignment, by brute force:
    TAT-QA answers have a handful of spans at most)."""
    scores = [[_compute_f1(p, g) for p in predicted] for g in gold]
    size = max(len(gold), len(predicted))
    best: list[float] = [0.0] * size
    best_total = -1.0
    n_g, n_p = len(gold), len(predicted)
    if n_g <= n_p:
        for cols in permutations(range(n_p), n_g):
            total = sum(scores[g][cols[g]] for g in range(n_g))
            if total > best_total:
                best_total = total
                best = [scores[g][cols[g]] for g in range(n_g)] + [0.0] * (size - n_g)
    else:
        for rows in permutations(range(n_g), n_p):
            total = sum(scores[rows[p]][p] for p in range(n_p))
            if total > best_total:
                best_total = total
                per_gold = [0.0] * size
                for p in range(n_p):
                    per_gold[rows[p]] = scores[rows[p]][p]
                best = per_gold
    return best


def get_metrics(predicted: str | Sequence[str], gold: str | Sequence[str]) -> tuple[float, float]:
    predicted_bags = _answer_to_bags(predicted)
    gold_bags = _answer_to_bags(gold)
    exact = 1.0 if set(predicted_bags[0]) == set(gold_bags[0]) and len(predicted_bags[0]) == len(gold_bags[0]) else 0.0
    f1 = round(statistics.fmean(_align_bags(predicted_bags[1], gold_bags[1])), 2)
    return exact, f1


def get_answer_str(answers: Sequence[Any], scale: str) -> list[str]:
    out = []
    for answer in sorted(answers, key=str):
        text = str(answer)
        if is_number(text):
            number = to_number(text)
            if number is None:
                if scale:
                    text = f"{text} {scale}"
            elif "%" in text:
                text = f"{number:.4f}"
            else:
                text = f"{round(number, 2) * scale_to_num(scale):.4f}"
        elif scale:
            text = f"{text} {scale}"
        out.append(text)
    return [" ".join(out)]


def _add_percent_pred(prediction_strings: list[str], pred_scale: str, pred: list[str]) -> list[str]:
    if len(pred) > 1:
        return prediction_strings
    text = str(pred[0])
    if not pred_scale and "%" not in text and is_number(text):
        number = to_number(text)
        if number is not None:
            prediction_strings.append(f"{number:.4f}")
    return prediction_strings


def gold_answers(question: dict[str, Any]) -> tuple[str, list[str], str]:
    kind, scale, answer = question["answer_type"], question["scale"], question["answer"]
    if kind in ("span", "multi-span"):
        return kind, list(answer), scale
    if kind == "count":
        return kind, [str(int(answer))], scale
    return kind, [str(answer)], scale


def tatqa_score(question: dict[str, Any], prediction: str | list[str], pred_scale: str = "") -> tuple[float, float]:
    """Exact match and F1 of one prediction, as TaTQAEmAndF1.__call__ computes them."""
    if not prediction:
        return 0.0, 0.0
    kind, gold, gold_scale = gold_answers(question)
    if not gold:
        return 0.0, 0.0
    gold_strings = get_answer_str(gold, gold_scale)
    predictions = prediction if isinstance(prediction, list) else [prediction]
    prediction_strings = _add_percent_pred(get_answer_str(predictions, pred_scale), pred_scale, predictions)
    scores = [get_metrics(p, g) for p in prediction_strings for g in gold_strings]
    exact, f1 = max(scores) if scores else (0.0, 0.0)
    if kind in ("arithmetic", "count"):
        f1 = exact
    return exact, f1


def split_prediction(text: str) -> str | list[str]:
    """A multi-span answer ("A, B and C" or one per line) as a list of spans; a number stays one string."""
    cleaned = text.strip().strip(".")
    if is_number(cleaned):
        return cleaned
    # A comma only separates spans when a space follows it: "1,164,000" is one number.
    parts = [p.strip(" .\"'") for p in re.split(r"\s*(?:;|\n|,\s+(?:and\s+)?|\s+and\s+)\s*", cleaned) if p.strip(" .")]
    return parts if len(parts) > 1 else cleaned


# --------------------------------------------------------------------------------------------------
# Rendering contexts into report PDFs
# --------------------------------------------------------------------------------------------------


@dataclass
class ContextDoc:
    uid: str
    pdf: str
    pages: set[int] = field(default_factory=set)


def _is_numeric(text: str) -> bool:
    return bool(re.search(r"\d", text)) and not re.search(r"[A-Za-z]{4,}", text)


def split_header(table: list[list[str]]) -> tuple[list[list[str]], list[list[str]]]:
    """Leading rows without numbers (or with an empty first cell over years) are the header."""
    header_count = 0
    for row in table[:3]:
        values = [c for c in row[1:] if c.strip()]
        years = all(re.fullmatch(r"\s*(19|20)\d\d\s*", c) for c in values) if values else False
        if not row[0].strip() and (years or not any(_is_numeric(c) for c in values)) or not any(_is_numeric(c) for c in row):
            header_count += 1
        else:
            break
    header_count = max(1, min(header_count, len(table) - 1))
    return table[:header_count], table[header_count:]


def section_for(context: dict[str, Any], index: int) -> Any:
    from tests.support.report_builder import Section, TableSpec

    grid = [[str(c) for c in row] for row in context["table"]["table"]]
    width = max(len(r) for r in grid)
    grid = [r + [""] * (width - len(r)) for r in grid]
    header, rows = split_header(grid)
    paragraphs = [p["text"] for p in sorted(context["paragraphs"], key=lambda p: p["order"])]
    # Reports introduce a table with the sentence that ends in a colon ("... (in millions):").
    intro = next((i for i, p in enumerate(paragraphs) if p.rstrip().endswith(":")), None)
    cut = intro + 1 if intro is not None else max(1, len(paragraphs) // 2)
    before, after = paragraphs[:cut], paragraphs[cut:]
    spec = TableSpec(caption="", header=header, rows=rows, ruled=index % 2 == 0)
    first_words = " ".join(paragraphs[0].split()[:6]).rstrip(",.:;") if paragraphs else f"Note {index + 1}"
    return Section(heading=f"Note {index + 1}. {first_words}", blocks=[*before, spec, *after])


def render_pdfs(contexts: list[dict[str, Any]], directory: Path, stem: str = "annual_report",
                title: str = "Annual Report Excerpts") -> dict[str, ContextDoc]:
    """Write the contexts, three to a PDF, each starting on a new page; map context uid -> PDF and pages.
    The PDFs are ``<stem>_01.pdf``, ... titled ``<title> 1``, ..."""
    from tests.support.report_builder import build_report

    placed: dict[str, ContextDoc] = {}
    for start in range(0, len(contexts), CONTEXTS_PER_PDF):
        group = contexts[start: start + CONTEXTS_PER_PDF]
        path = directory / f"{stem}_{start // CONTEXTS_PER_PDF + 1:02d}.pdf"
        blocks = [section_for(c, start + i) for i, c in enumerate(group)]
        result = build_report(path, f"{title} {start // CONTEXTS_PER_PDF + 1}", blocks,
                              running_header="Notes to the financial statements")
        # Each section's pages: from its heading's page to the page before the next heading.
        headings = [t for t in result.texts if t.kind == "heading"]
        for i, context in enumerate(group):
            first = headings[i].page
            last = headings[i + 1].page if i + 1 < len(headings) else result.page_count
            doc = ContextDoc(context["table"]["uid"], path.name, set(range(first, last + 1)))
            placed[doc.uid] = doc
    return placed


# --------------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    mode: str
    uid: str
    question: str
    answer_type: str
    answer_from: str
    gold: Any
    scale: str
    prediction: str
    em: float
    f1: float
    evidence: bool
    calls: int
    prompt_tokens: int
    seconds: float
    error: str = ""
    decided: str = ""
    """The answer type Folio decided (TableRAG), "" for the naive baseline."""
    task_usage: list[Any] = field(default_factory=list)
    """(kind of call, calls, prompt tokens) for each kind of model call the answer made."""
    reused_tokens: int = 0
    """Prompt tokens the model's KV cache served instead of reading them again."""


def by_call_kind(outcomes: list[Outcome]) -> str:
    """Where TableRAG's model calls and prompt tokens go, by kind of call, over all questions."""
    totals: dict[str, list[int]] = {}
    for outcome in outcomes:
        for kind, calls, tokens in outcome.task_usage:
            entry = totals.setdefault(kind or "other", [0, 0])
            entry[0] += int(calls)
            entry[1] += int(tokens)
    asked = max(1, len({o.question for o in outcomes if o.mode == "tablerag"}))
    lines = [f"TableRAG model calls by kind over {asked} questions: calls, calls per question, prompt tokens per call"]
    for kind, (calls, tokens) in sorted(totals.items(), key=lambda item: -item[1][1]):
        lines.append(f"  {kind:28}{calls:>6}{calls / asked:>8.2f}{tokens / max(1, calls):>10.0f}")
    return "\n".join(lines)


def sample(data: list[dict[str, Any]], limit: int, seed: int) -> tuple[list[dict[str, Any]], list[tuple[dict, dict]]]:
    """Contexts to render (question contexts plus distractors) and (context, question) pairs to ask."""
    rng = random.Random(seed)
    order = list(data)
    rng.shuffle(order)
    per_context = 3
    asked: list[tuple[dict, dict]] = []
    used: list[dict[str, Any]] = []
    for context in order:
        if len(asked) >= limit:
            break
        questions = list(context["questions"])
        rng.shuffle(questions)
        take = questions[: min(per_context, limit - len(asked))]
        asked.extend((context, q) for q in take)
        used.append(context)
    distractors = order[len(used): len(used) + max(2, len(used) // 2)]
    contexts = used + distractors
    rng.shuffle(contexts)
    return contexts, asked


def exclude_asked(data: list[dict[str, Any]], asked: list[tuple[dict, dict]], seeds: Sequence[int],
                  limit: int) -> list[tuple[dict, dict]]:
    """The sampled questions that none of the other seeds' samples asks (by question uid). Only the count dropped is
    printed: the excluded seeds' questions stay unseen."""
    held = {question["uid"] for seed in seeds for _context, question in sample(data, limit, seed)[1]}
    kept = [(context, question) for context, question in asked if question["uid"] not in held]
    print(f"{len(asked) - len(kept)} sampled questions dropped: asked by seed(s) {', '.join(map(str, seeds))}", flush=True)
    return kept


def summarize(outcomes: list[Outcome], modes: list[str]) -> str:
    lines = [f"{'':28}" + "".join(f"{m:>14}" for m in modes)]

    def row(name: str, fn: Any) -> None:
        values = []
        for m in modes:
            group = [o for o in outcomes if o.mode == m]
            values.append(fn(group) if group else float("nan"))
        lines.append(f"{name:28}" + "".join(f"{v:>14.3f}" if isinstance(v, float) else f"{v:>14}" for v in values))

    row("questions", lambda g: len(g))
    row("exact match", lambda g: statistics.fmean(o.em for o in g))
    row("F1", lambda g: statistics.fmean(o.f1 for o in g))
    row("evidence recall", lambda g: statistics.fmean(o.evidence for o in g))
    row("LLM calls / question", lambda g: statistics.fmean(o.calls for o in g))
    row("median prompt tokens", lambda g: float(statistics.median(o.prompt_tokens for o in g)))
    row("mean prompt tokens", lambda g: statistics.fmean(o.prompt_tokens for o in g))
    row("p90 prompt tokens", lambda g: _p90([o.prompt_tokens for o in g]))
    row("median reused tokens", lambda g: float(statistics.median(o.reused_tokens for o in g)))
    row("median seconds", lambda g: float(statistics.median(o.seconds for o in g)))
    row("p90 seconds", lambda g: _p90([o.seconds for o in g]))
    row("mean seconds", lambda g: statistics.fmean(o.seconds for o in g))
    row("no model call", lambda g: statistics.fmean(o.calls == 0 for o in g))
    row("errors", lambda g: sum(bool(o.error) for o in g))
    for kind in GOLD_TYPES:
        row(f"questions {kind}", lambda g, k=kind: sum(o.answer_type == k for o in g))
        row(f"EM {kind}", lambda g, k=kind: statistics.fmean([o.em for o in g if o.answer_type == k] or [float("nan")]))
        row(f"F1 {kind}", lambda g, k=kind: statistics.fmean([o.f1 for o in g if o.answer_type == k] or [float("nan")]))
    return "\n".join(lines)


GOLD_TYPES = ("arithmetic", "span", "multi-span", "count")


def _p90(values: list[float]) -> float:
    """The 90th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return float(ordered[max(0, -(-9 * len(ordered) // 10) - 1)]) if ordered else float("nan")


def confusion(outcomes: list[Outcome]) -> str:
    """Answer type decided (rows) against TAT-QA's gold type (columns), for the answers that carry one."""
    decided = [o for o in outcomes if o.decided]
    if not decided:
        return "answer-type confusion: no answer carries a decided type"
    kinds = sorted({o.decided for o in decided})
    lines = ["answer type decided vs gold type (questions; EM in brackets)",
             f"{'':28}" + "".join(f"{g:>16}" for g in GOLD_TYPES)]
    for kind in kinds:
        cells = []
        for gold in GOLD_TYPES:
            group = [o for o in decided if o.decided == kind and o.answer_type == gold]
            cells.append(f"{len(group)} ({statistics.fmean(o.em for o in group):.2f})" if group else "-")
        lines.append(f"{kind:28}" + "".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)


def per_type(asked: list[tuple[dict, dict]], k: int) -> list[tuple[dict, dict]]:
    """The first ``k`` questions of each gold answer type (in sample order), asked in turn by type
    (multi-span, span, arithmetic, count, then again), so a run stopped early has every type."""
    by_kind: dict[str, list[tuple[dict, dict]]] = {}
    for context, question in asked:
        taken = by_kind.setdefault(question["answer_type"], [])
        if len(taken) < k:
            taken.append((context, question))
    order = ("multi-span", "span", "arithmetic", "count")
    return [by_kind[kind][i] for i in range(k) for kind in order if i < len(by_kind.get(kind, []))]


def rescore(saved: list[dict[str, Any]]) -> str:
    """The summary of saved outcomes, scored again with this file's scorer."""
    outcomes = []
    for item in saved:
        question = {"answer": item["gold"], "answer_type": item["answer_type"], "scale": item["scale"]}
        em, f1 = tatqa_score(question, prediction_of(item["prediction"], item.get("parts") or [], item.get("decided", "")))
        fields = {k: v for k, v in item.items() if k in Outcome.__dataclass_fields__}
        outcomes.append(Outcome(**{**fields, "em": em, "f1": f1}))
    modes = list(dict.fromkeys(o.mode for o in outcomes))
    return summarize(outcomes, modes) + "\n" + confusion(outcomes)


def prediction_of(text: str, parts: Sequence[str], decided: str = "") -> str | list[str]:
    """What is scored: the answer's own spans when it has several (labels may hold commas and "and"); a text answer
    (``decided`` "text": one passage's words, "audit fees and tax fees") as the one span it is; else its text split
    as TAT-QA predictions are."""
    if len(parts) > 1:
        return list(parts)
    return text.strip() if decided == "text" else split_prediction(text)


def table_choice_report(library: Any, retriever: Any, asked: list[tuple[dict, dict]], placed: dict[str, ContextDoc]) -> str:
    """How often the loop's table ranking puts a table of the gold context first, and in the top two
    (the tables the model is shown), for questions answered from a table. No model is called."""
    from core.answering import Answerer

    answerer = Answerer(library, retriever, None, _NoChat(), sql_style="structured")  # type: ignore[arg-type]
    first = top_two = found = total = 0
    for context, question in asked:
        if question["answer_from"] == "text":
            continue
        gold = placed[context["table"]["uid"]]
        total += 1
        ranked = answerer.likely_tables(question["question"])
        hits = [t.document == gold.pdf and (set(range(t.page, t.last_page + 1)) & gold.pages) for t in ranked]
        first += bool(hits[:1] and hits[0])
        top_two += any(hits[:2])
        found += any(hits)
    return (f"table choice over {total} table questions: right table first {first / total:.3f}, "
            f"in the two shown to the model {top_two / total:.3f}, among the candidates {found / total:.3f}")


def answer_types_report(library: Any, retriever: Any, runner: Any, asked: list[tuple[dict, dict]]) -> str:
    """No model: the answer type decided from the question's reading and the likeliest tables' labels (where
    both leave it open it is counted as "open"), against the gold type; and the
    answers composed from the table by code alone (headers, respective figures, labels, counts, titles),
    scored with TAT-QA's metric. These are the answers TableRAG gives such questions, since composing
    them calls no model (only respective figures the code cannot place ask the model, counted missing here)."""
    from core.answering import Answerer, compose
    from core.answering import answer_types as types
    from core.answering import operations as ops
    from core.answering.reading import read
    from core.answering.table_choice import label_words

    answerer = Answerer(library, retriever, runner, _NoChat(), sql_style="structured")  # type: ignore[arg-type]
    rows: list[tuple[str, str, float | None]] = []
    for _context, question in asked:
        views = [ops.load_table_view(library, info) for info in answerer.likely_tables(question["question"])[:2]]
        reading = read(question["question"])
        decided = types.of_reading(reading, [label_words(v) for v in views])
        kind = "open" if decided.decided_by == "reading" else decided.kind
        composed = compose.compose(views, reading, decided, runner.run) if kind != "open" else None
        em = tatqa_score(question, prediction_of(composed.value, composed.parts))[0] if composed else None
        composable = decided.kind in (types.COLUMN_HEADERS, types.FIGURES, types.COUNT, types.TITLE) or (
            decided.kind == types.ROW_LABELS and decided.several)
        rows.append((kind, question["answer_type"], em if composed or not composable else 0.0))
    kinds = sorted({k for k, _, _ in rows})
    lines = [f"answer types over {len(rows)} questions, no model (decided vs gold; composed-by-code EM in brackets)",
             f"{'':16}" + "".join(f"{g:>16}" for g in GOLD_TYPES)]
    for kind in kinds:
        cells = []
        for gold in GOLD_TYPES:
            group = [em for k, g, em in rows if k == kind and g == gold]
            scored = [em for em in group if em is not None]
            cells.append(f"{len(group)}" + (f" ({statistics.fmean(scored):.2f})" if scored else "") if group else "-")
        lines.append(f"{kind:16}" + "".join(f"{c:>16}" for c in cells))
    composed_ems = [em for _, _, em in rows if em is not None]
    if composed_ems:
        lines.append(f"composed by code: {sum(composed_ems):.0f} of {len(composed_ems)} exact")
    return "\n".join(lines)


class _RefusingChat:
    """A chat model that answers nothing: every call fails as an unusable reply would, so the loop goes on
    with what code alone decides."""

    name = "none"

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        from models.errors import ModelOutputError

        raise ModelOutputError("no model in this benchmark")


def code_only_report(library: Any, retriever: Any, runner: Any, asked: list[tuple[dict, dict]]) -> str:
    """No model: each question answered by TableRAG with every model call failing, so only what code decides
    (a formula read from the wording and bound to cells, a lookup code picks, an answer composed to its type)
    gives an answer. Per gold type: how many got a figure without the model, and how many of those are right.
    This is the share of questions that cost no model call, and how far it can be trusted."""
    from core.answering import Answerer

    answerer = Answerer(library, retriever, runner, _RefusingChat(), sql_style="structured")  # type: ignore[arg-type]
    rows: list[tuple[str, bool, float]] = []
    for _context, question in asked:
        answer = answerer.answer(question["question"])
        answered = answer.status != "refused" and bool(answer.value)
        em = tatqa_score(question, prediction_of(answer.value or answer.text, answer.parts,
                                                 str(answer.answer_type or "")))[0] if answered else 0.0
        rows.append((question["answer_type"], answered, em))
        if answered and not em and os.environ.get("FOLIO_BENCH_VERBOSE"):
            print(f"  wrong without a model [{answer.answer_type}] {question['question'][:90]!r} -> "
                  f"{(answer.value or answer.text)[:60]!r} (gold {question['answer']})", flush=True)
        elif not answered and question["answer_type"] == "arithmetic" and os.environ.get("FOLIO_BENCH_VERBOSE"):
            print(f"  left to the model [arithmetic] {question['question'][:110]!r} "
                  f"(gold {question['answer']}, {question.get('derivation', '')[:60]!r})", flush=True)
    lines = [f"code alone, no model, over {len(rows)} questions: answered (right of those)"]
    for gold in GOLD_TYPES:
        group = [(a, em) for g, a, em in rows if g == gold]
        done = [em for a, em in group if a]
        lines.append(f"{gold:16}{len(group):>6} questions {len(done):>6} answered {sum(done):>6.0f} right")
    done = [em for _, a, em in rows if a]
    lines.append(f"{'all':16}{len(rows):>6} questions {len(done):>6} answered {sum(done):>6.0f} right")
    return "\n".join(lines)


class _NoChat:
    """Stands in for a chat model where none may be called."""

    name = "none"

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the table-choice benchmark calls no model")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=24, help="questions to ask (default 24)")
    parser.add_argument("--modes", default=None, help="comma-separated (default tablerag,naive; tablerag with --reworded)")
    parser.add_argument("--backend", default="embedded", choices=("auto", "embedded", "ollama"))
    parser.add_argument("--ollama-model", default=None)
    parser.add_argument("--sql-style", default="auto", choices=("auto", "structured", "free"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--exclude-seed", type=int, action="append", default=[],
                        help="drop the questions another seed's sample asks (its first --exclude-limit), e.g. the "
                             "held-out seed 2026, so a new tune seed shares no question with it (repeatable)")
    parser.add_argument("--exclude-limit", type=int, default=150, help="sample size of each --exclude-seed (default 150)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep PDFs and library here (reused if present)")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSON")
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--rescore", type=Path, default=None,
                        help="score the answers saved by an earlier --out again (no ingestion, no model)")
    parser.add_argument("--per-type", type=int, default=0,
                        help="ask only the first K sampled questions of each gold answer type (0: all)")
    parser.add_argument("--retrieval", action="store_true", help="only the search's page recall (no model)")
    parser.add_argument("--float-embedder", action="store_true",
                        help="the float MiniLM graph of Folio before the int8 one (to compare on the same library)")
    parser.add_argument("--code-only", action="store_true",
                        help="no model: the questions code alone answers (every model call fails), per gold type")
    parser.add_argument("--types", action="store_true",
                        help="no model: the answer types decided and the answers composed by code, against gold")
    parser.add_argument("--table-choice", action="store_true",
                        help="no model: only score which table the loop would pick for each table question")
    parser.add_argument("--reworded", action="store_true",
                        help="the reworded questions of tests/bench/data beside their originals (seeds 7 and 2026)")
    parser.add_argument("--half", default="both", choices=("tune", "heldout", "both"),
                        help="halves of --reworded to ask: tune (seed 7), heldout (seed 2026) or both (default)")
    parser.add_argument("--first", type=int, default=0, help="with --reworded, ask only the first N of each half")
    args = parser.parse_args(argv)

    if args.rescore is not None:
        print(rescore(json.loads(args.rescore.read_text(encoding="utf-8"))))
        return 0
    if not args.dataset.is_file():
        print(f"TAT-QA dev split not found at {args.dataset}. Put tatqa_dataset_dev.json in "
              f"../shared/bench/tatqa/ (relative to the repository root) or pass --dataset.", file=sys.stderr)
        return 2
    modes = [m.strip() for m in (args.modes or ("tablerag" if args.reworded else "tablerag,naive")).split(",")
             if m.strip()]

    import tempfile

    from libraries import bench_embedder, retrieval_recall

    from app.chat_models import make_chat_model
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.sql.runner import SqlRunner

    data = json.loads(args.dataset.read_text(encoding="utf-8"))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_tatqa_"))
    workdir.mkdir(parents=True, exist_ok=True)
    embedder = bench_embedder(args.float_embedder)
    if args.reworded:
        chat = make_chat_model(args.backend, ollama_model=args.ollama_model)
        print(run_reworded(args, data, workdir, embedder, chat, modes))
        return 0
    contexts, asked = sample(data, args.limit, args.seed)
    if args.exclude_seed:
        asked = exclude_asked(data, asked, args.exclude_seed, args.exclude_limit)
    if args.per_type:
        asked = per_type(asked, args.per_type)
    library, placed = prepare_library(workdir, contexts, embedder, len(asked))

    if args.retrieval:
        ids = {d.file_name: d.id for d in library.documents()}
        gold = [(question["question"], placed[context["table"]["uid"]]) for context, question in asked]
        print(retrieval_recall(library, embedder, [(q, ids[doc.pdf], frozenset(doc.pages)) for q, doc in gold]))
        library.close()
        return 0
    if args.table_choice:
        print(table_choice_report(library, make_retriever(library, embedder), asked, placed))
        library.close()
        return 0
    if args.code_only or args.types:
        runner = SqlRunner(library.path)
        runner.allow_only(library.table_names())
        report = code_only_report if args.code_only else answer_types_report
        print(report(library, make_retriever(library, embedder), runner, asked))
        runner.close()
        library.close()
        return 0
    chat = make_chat_model(args.backend, ollama_model=args.ollama_model)
    runner = SqlRunner(library.path)
    retriever = make_retriever(library, embedder)
    answerers = {m: Answerer(library, retriever, runner, chat, mode=m, sql_style=args.sql_style) for m in modes}
    outcomes: list[Outcome] = []
    all_parts: list[tuple[str, ...]] = []
    for n, (context, question) in enumerate(asked, 1):
        for mode in modes:
            outcome, parts = ask_one(answerers[mode], mode, question["question"], question, placed[context["table"]["uid"]])
            outcomes.append(outcome)
            all_parts.append(parts)
            print(f"[{n}/{len(asked)}] {progress_line(outcome, question)}", flush=True)
        if n % 5 == 0:
            print(summarize(outcomes, modes), flush=True)
        if args.out:
            args.out.write_text(json.dumps([{**o.__dict__, "parts": list(p)} for o, p in zip(outcomes, all_parts)],
                                           indent=1, default=str))
    print()
    print(f"TAT-QA dev, {len(asked)} questions, model {chat.name}, seed {args.seed}")
    print(summarize(outcomes, modes))
    print(confusion(outcomes))
    print(by_call_kind(outcomes))
    runner.close()
    library.close()
    return 0


def prepare_library(workdir: Path, contexts: list[dict[str, Any]], embedder: Any, questions: int) -> tuple[Any, dict[str, ContextDoc]]:
    """The contexts rendered into PDFs under ``workdir`` and ingested into its library (kept when it already
    holds documents); the library and where each context was placed."""
    from core.ingest.ingestor import Ingestor
    from core.library.store import Library

    pdf_dir = workdir / "pdfs"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    placed = render_pdfs(contexts, pdf_dir)
    pages = sum(len(d.pages) for d in placed.values())
    print(f"{questions} questions over {len(contexts)} contexts in {len(list(pdf_dir.glob('*.pdf')))} PDFs "
          f"(~{pages} context pages); work dir {workdir}", flush=True)
    library = Library(workdir / "library.sqlite3")
    if library.counts()["documents"]:
        # Rendering is deterministic in layout but not in bytes (creation time), so a reused work dir
        # keeps its library rather than ingesting every report a second time.
        print(f"reusing the library in {workdir}: {library.counts()}", flush=True)
    else:
        started = time.perf_counter()
        results = Ingestor(library, embedder).ingest_paths(sorted(pdf_dir.glob("*.pdf")))
        print(f"ingested in {time.perf_counter() - started:.1f} s: {library.counts()} "
              f"({sum(r.status == 'failed' for r in results)} failed)", flush=True)
    return library, placed


def ask_one(answerer: Any, mode: str, text_asked: str, question: dict[str, Any],
            gold_doc: ContextDoc) -> tuple[Outcome, tuple[str, ...]]:
    """``text_asked`` (the question's own wording or another) answered and scored against ``question``'s gold;
    the outcome and the answer's spans. A failure scores 0 and is recorded."""
    error = ""
    parts: tuple[str, ...] = ()
    decided = ""
    task_usage: list[Any] = []
    reused = 0
    try:
        answer = answerer.answer(text_asked)
        text = answer.value or answer.text  # the bare figure the sentence states, as TAT-QA scores
        parts = tuple(getattr(answer, "parts", ()))
        decided = str(getattr(answer, "answer_type", ""))
        task_usage = [list(t) for t in getattr(answer, "task_usage", ())]
        calls, tokens, seconds = answer.usage.calls, answer.usage.prompt_tokens, answer.usage.seconds
        reused = answer.usage.reused_tokens
        evidence = any(c.document == gold_doc.pdf and c.page in gold_doc.pages for c in answer.citations)
    except Exception as exc:  # noqa: BLE001 - a failed question is scored 0 and the run goes on
        text, calls, tokens, seconds, evidence = "", 0, 0, 0.0, False
        error = f"{type(exc).__name__}: {exc}"
    em, f1 = tatqa_score(question, prediction_of(text, parts, decided))
    return Outcome(mode, question["uid"], text_asked, question["answer_type"], question["answer_from"],
                   question["answer"], question["scale"], text, em, f1, evidence, calls, tokens, seconds, error, decided,
                   task_usage, reused), parts


def progress_line(outcome: Outcome, question: dict[str, Any]) -> str:
    return (f"{outcome.mode:8} {outcome.decided or '-':14} em={outcome.em:.0f} f1={outcome.f1:.2f} "
            f"ev={int(outcome.evidence)} calls={outcome.calls} tok={outcome.prompt_tokens} {outcome.seconds:5.1f}s | "
            f"{outcome.question[:70]!r} -> {outcome.prediction[:60]!r} (gold {question['answer']!r} {question['scale']})"
            f"{' ERROR ' + outcome.error if outcome.error else ''}")


REWORDED_SAMPLE = 120
"""The reworded questions were drawn from the first 120 questions of their seed's sample (tests/bench/data/README.md):
that sample's contexts (and distractors) make the library they are asked in."""


def run_reworded(args: argparse.Namespace, data: list[dict[str, Any]], workdir: Path, embedder: Any, chat: Any,
                 modes: list[str]) -> str:
    """Each reworded question and its original asked in the same library (the contexts of its seed's 120-question
    sample); EM and F1 of both, per half and per answer type."""
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.sql.runner import SqlRunner

    rows = question_sets.load("tatqa_reworded", args.half)
    outcomes: dict[tuple[str, str, str], list[Outcome]] = {}
    saved: list[dict[str, Any]] = []
    for half in question_sets.halves(args.half):
        chosen = [r for r in rows if r["half"] == half]
        if args.first:
            chosen = chosen[: args.first]
        if not chosen:
            continue
        seed = chosen[0]["seed"]
        contexts, asked = sample(data, REWORDED_SAMPLE, seed)
        by_uid = {q["uid"]: (c, q) for c, q in asked}
        library, placed = prepare_library(workdir / f"seed{seed}_n{REWORDED_SAMPLE}", contexts, embedder, 2 * len(chosen))
        runner = SqlRunner(library.path)
        retriever = make_retriever(library, embedder)
        answerers = {m: Answerer(library, retriever, runner, chat, mode=m, sql_style=args.sql_style) for m in modes}
        for n, row in enumerate(chosen, 1):
            context, question = by_uid[row["uid"]]
            for kind, wording in (("original", question["question"]), ("reworded", row["question"])):
                for mode in modes:
                    outcome, parts = ask_one(answerers[mode], mode, wording, question, placed[context["table"]["uid"]])
                    outcomes.setdefault((mode, half, kind), []).append(outcome)
                    saved.append({"half": half, "kind": kind, **outcome.__dict__, "parts": list(parts)})
                    print(f"[{half} {n}/{len(chosen)}] {kind:8} {progress_line(outcome, question)}", flush=True)
            if args.out:
                args.out.write_text(json.dumps(saved, indent=1, default=str))
        runner.close()
        library.close()
    lines = [(f"TAT-QA dev, reworded questions beside their originals, model {chat.name} (tune: seed 7, held-out: "
              f"seed 2026; each in the library of its seed's {REWORDED_SAMPLE}-question sample)")]
    for mode in modes:
        table_rows = []
        for half in question_sets.halves(args.half):
            for kind_name, pick in (("all", None), *((t, t) for t in GOLD_TYPES)):
                cells = [f"{half} {kind_name}"]
                for kind in ("original", "reworded"):
                    group = [o for o in outcomes.get((mode, half, kind), []) if pick is None or o.answer_type == pick]
                    cells += [question_sets.rate([o.em for o in group]), question_sets.rate([o.f1 for o in group])]
                table_rows.append(cells)
        lines.append(f"\n{mode}")
        lines.append(question_sets.table(["half, answer type", "originals EM", "F1", "reworded EM", "F1"], table_rows,
                                         first=24, width=16))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
