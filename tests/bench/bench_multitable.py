"""Benchmark: questions whose answers join two tables of a report, TableRAG against NaiveRAG.

    python tests/bench/bench_multitable.py [--reports 5] [--seed 0] [--modes tablerag,naive]
                                           [--backend embedded] [--out results.json]

Generates reports with ``tests.support.statements`` (a company, a charity or a council: statement of
income or of activities, balance sheet, statement of cash flows, spending and budget by department),
ingests each into its own library for real (extraction, typing, MiniLM embeddings), asks the seven
questions of each report that need two tables (a cash-flow line over a balance-sheet line, revenue over
average assets, free cash flow, inventory turnover, return on assets, capex as a % of revenue, a
department's spending against its budget), and prints accuracy (the answer states the exact figure at
the precision asked), citations of both tables, LLM calls, prompt tokens and seconds per question, by
mode. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


def stated(text: str, answer: float, decimals: int) -> bool:
    """The text states the figure at the precision asked (thousands separators optional)."""
    wanted = f"{answer:,.{decimals}f}" if decimals else f"{round(answer):,}"
    plain = text.replace(",", "")
    return wanted in text or wanted.replace(",", "") in plain


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default="tablerag,naive")
    parser.add_argument("--backend", default="embedded", choices=("auto", "embedded", "ollama"))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    from app.chat_models import make_chat_model
    from app.wiring import make_retriever
    from core.answering import Answerer
    from core.ingest.ingestor import Ingestor
    from core.library.store import Library
    from core.sql.runner import SqlRunner
    from models.embedding import MiniLMEmbedder
    from tests.support.statements import build_statements_report, multi_table_questions

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    embedder = MiniLMEmbedder()
    chat = make_chat_model(args.backend)
    workdir = Path(tempfile.mkdtemp(prefix="bench_multitable_"))
    rows: list[dict[str, object]] = []
    for seed in range(args.seed, args.seed + args.reports):
        pdf = workdir / f"report_{seed}.pdf"
        _, figures = build_statements_report(pdf, seed)
        library = Library(workdir / f"library_{seed}.sqlite3")
        Ingestor(library, embedder).ingest_file(pdf)
        runner = SqlRunner(library.path)
        retriever = make_retriever(library, embedder)
        for question in multi_table_questions(figures):
            for mode in modes:
                began = time.perf_counter()
                answer = Answerer(library, retriever, runner, chat, mode=mode).answer(question.text)
                tables = {c.table for c in answer.citations if c.kind == "table" and c.cells}
                row = {"mode": mode, "seed": seed, "kind": figures.kind, "question": question.text,
                       "gold": round(question.answer, question.decimals), "answer": answer.text,
                       "exact": stated(answer.text, question.answer, question.decimals),
                       "cited_tables": len(tables), "tables": question.tables, "calls": answer.usage.calls,
                       "prompt_tokens": answer.usage.prompt_tokens, "seconds": time.perf_counter() - began}
                rows.append(row)
                print(f"{mode:8} exact={int(bool(row['exact']))} tables={len(tables)} calls={answer.usage.calls} "
                      f"tok={answer.usage.prompt_tokens} | {question.text[:60]!r} -> {answer.text[:90]!r} "
                      f"(gold {row['gold']})", flush=True)
                if args.out:
                    args.out.write_text(json.dumps(rows, indent=1))
        runner.close()
        retriever.close()
        library.close()
    print(f"\nMulti-table questions, {args.reports} generated reports, model {chat.name}")
    print(f"{'':38}" + "".join(f"{m:>12}" for m in modes))
    for name, pick in (("exact", lambda r: float(bool(r["exact"]))),
                       ("cites every table joined", lambda r: float(int(r["cited_tables"]) >= int(r["tables"]))),  # type: ignore[call-overload]
                       ("median LLM calls", None), ("median prompt tokens", None), ("median seconds", None)):
        cells = []
        for mode in modes:
            mine = [r for r in rows if r["mode"] == mode]
            if pick is not None:
                value = sum(pick(r) for r in mine) / max(1, len(mine))
            else:
                key = {"median LLM calls": "calls", "median prompt tokens": "prompt_tokens",
                       "median seconds": "seconds"}[name]
                value = statistics.median(float(r[key]) for r in mine) if mine else 0.0  # type: ignore[arg-type]
            cells.append(f"{value:12.3f}")
        print(f"{name} ({len(rows) // max(1, len(modes))})".ljust(38) + "".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
