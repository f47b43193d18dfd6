"""Reports whose answers need several tables: an organisation's statements of one year, and a department
table beside a budget table sharing departments, with the questions they answer and the exact answers.

``build_statements_report`` draws, with the project's report builder, an annual report of a company, a
charity or a council: a statement of income (or of activities), a balance sheet, a statement of cash
flows (each with two or three years as columns, the scale in the caption, outflows in brackets), a
table of spending by department and a table of budgeted spending by department, with prose between
them. ``multi_table_questions`` asks about it, in the words people use, questions whose answer joins
two of those tables (a ratio of a cash-flow line to a balance-sheet line, revenue over average assets,
free cash flow, a department's spending against its budget), each with the answer computed here from
the figures drawn. Deterministic for a seed. Used by the answering tests and
``tests/bench/bench_multitable.py``; ``build_two_company_library`` holds two companies' reports of the same
years, for follow-up questions and comparisons across documents.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.report_builder import BuildResult, Section, TableSpec, build_report

KINDS = ("company", "charity", "council")
DEPARTMENTS = ("Housing", "Transport", "Parks and leisure", "Libraries", "Social care", "Waste services")


@dataclass(frozen=True)
class Figures:
    """What the report prints, by line and year (amounts in the report's scale)."""

    kind: str
    name: str
    years: tuple[int, ...]
    """Newest first, as the columns print them."""
    lines: dict[str, dict[int, float]]
    spending: dict[str, float]
    budget: dict[str, float]


@dataclass(frozen=True)
class Question:
    text: str
    answer: float
    decimals: int
    tables: int
    """How many tables the answer joins."""


def _fmt(value: float) -> str:
    text = f"{abs(value):,.0f}"
    return f"({text})" if value < 0 else text


def _figures(seed: int) -> Figures:
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    name = {"company": rng.choice(["Harbour Foods plc", "Northgate Tools Ltd", "Alder Systems Inc."]),
            "charity": rng.choice(["Riverside Housing Trust", "Open Fields Foundation", "Lantern Aid"]),
            "council": rng.choice(["Eastvale District Council", "Kirkby Borough Council", "Millbrook Town Council"])}[kind]
    last = rng.randint(2018, 2024)
    years = (last, last - 1, last - 2)
    lines: dict[str, dict[int, float]] = {}

    def series(base: float, spread: float = 0.12) -> dict[int, float]:
        value = base
        out = {}
        for year in reversed(years):
            out[year] = round(value)
            value *= 1 + rng.uniform(-spread / 3, spread)
        return out

    revenue = series(rng.randint(4_000, 60_000))
    lines["revenue"] = revenue
    lines["cost of sales"] = {y: round(v * rng.uniform(0.45, 0.7)) for y, v in revenue.items()}
    lines["operating expenses"] = {y: round((revenue[y] - lines["cost of sales"][y]) * rng.uniform(0.5, 0.8))
                                   for y in years}
    lines["operating income"] = {y: revenue[y] - lines["cost of sales"][y] - lines["operating expenses"][y]
                                 for y in years}
    lines["income tax"] = {y: round(lines["operating income"][y] * 0.2) for y in years}
    lines["net income"] = {y: lines["operating income"][y] - lines["income tax"][y] for y in years}
    lines["inventories"] = {y: round(revenue[y] * rng.uniform(0.06, 0.12)) for y in years}
    lines["receivables"] = {y: round(revenue[y] * rng.uniform(0.08, 0.15)) for y in years}
    lines["cash"] = {y: round(revenue[y] * rng.uniform(0.05, 0.2)) for y in years}
    lines["total current assets"] = {y: lines["inventories"][y] + lines["receivables"][y] + lines["cash"][y]
                                     for y in years}
    lines["property"] = {y: round(revenue[y] * rng.uniform(0.4, 0.9)) for y in years}
    lines["total assets"] = {y: lines["total current assets"][y] + lines["property"][y] for y in years}
    lines["payables"] = {y: round(lines["cost of sales"][y] * rng.uniform(0.1, 0.2)) for y in years}
    lines["total current liabilities"] = {y: lines["payables"][y] + round(revenue[y] * rng.uniform(0.02, 0.06))
                                          for y in years}
    lines["long-term debt"] = {y: round(lines["property"][y] * rng.uniform(0.2, 0.5)) for y in years}
    lines["total liabilities"] = {y: lines["total current liabilities"][y] + lines["long-term debt"][y] for y in years}
    lines["equity"] = {y: lines["total assets"][y] - lines["total liabilities"][y] for y in years}
    lines["depreciation"] = {y: round(lines["property"][y] * 0.08) for y in years}
    lines["operating cash"] = {y: lines["net income"][y] + lines["depreciation"][y] + round(revenue[y] * rng.uniform(-0.02, 0.03))
                               for y in years}
    lines["capex"] = {y: -round(lines["depreciation"][y] * rng.uniform(0.8, 1.6)) for y in years}
    lines["dividends"] = {y: -round(max(lines["net income"][y], 10) * rng.uniform(0.2, 0.5)) for y in years}
    spending = {d: float(rng.randint(200, 3_000)) for d in DEPARTMENTS}
    budget = {d: float(round(v * rng.uniform(0.85, 1.15))) for d, v in spending.items()}
    return Figures(kind, name, years, lines, spending, budget)


_WORDING = {
    "company": {"revenue": "Revenue", "statement": "Consolidated Statement of Income", "net income": "Net income",
                "operating income": "Operating profit"},
    "charity": {"revenue": "Total income", "statement": "Statement of Financial Activities",
                "net income": "Net income for the year", "operating income": "Operating surplus"},
    "council": {"revenue": "Total revenue", "statement": "Comprehensive Income and Expenditure Statement",
                "net income": "Net surplus for the year", "operating income": "Operating surplus"},
}


def build_statements_report(path: Path, seed: int = 0) -> tuple[BuildResult, Figures]:
    """Draw the report for ``seed``; return where everything landed and the figures drawn."""
    figures = _figures(seed)
    words = _WORDING[figures.kind]
    years = figures.years
    header = [["", "Year ended 31 March", "", ""], ["", *(str(y) for y in years)]]

    def row(label: str, key: str, sign: float = 1.0) -> list[str]:
        return [label, *(_fmt(sign * figures.lines[key][y]) for y in years)]

    income = TableSpec(f"{words['statement']} (in thousands)", header, [
        row(words["revenue"], "revenue"),
        row("Cost of sales", "cost of sales"),
        row("Operating expenses", "operating expenses"),
        row(words["operating income"], "operating income"),
        row("Income tax", "income tax"),
        row(words["net income"], "net income"),
    ], ruled=False)
    balance = TableSpec("Balance Sheet (in thousands)", [["", "31 March", "", ""], ["", *(str(y) for y in years)]], [
        ["Current assets", "", "", ""],
        row("Inventories", "inventories"),
        row("Trade and other receivables", "receivables"),
        row("Cash and cash equivalents", "cash"),
        row("Total current assets", "total current assets"),
        row("Property, plant and equipment", "property"),
        row("Total assets", "total assets"),
        ["Current liabilities", "", "", ""],
        row("Trade and other payables", "payables"),
        row("Total current liabilities", "total current liabilities"),
        row("Long-term borrowings", "long-term debt"),
        row("Total liabilities", "total liabilities"),
        row("Total equity", "equity"),
    ], ruled=False)
    cash = TableSpec("Statement of Cash Flows (in thousands)", header, [
        row("Net cash from operating activities", "operating cash"),
        ["Cash flows from investing activities", "", "", ""],
        row("Purchases of property, plant and equipment", "capex"),
        ["Cash flows from financing activities", "", "", ""],
        row("Dividends paid" if figures.kind == "company" else "Grants paid to members", "dividends"),
    ], ruled=False)
    spending = TableSpec(f"Spending by department, {years[0]} (in thousands)", [["Department", "Spending"]],
                         [[d, _fmt(v)] for d, v in figures.spending.items()])
    budget = TableSpec(f"Budget by department, {years[0]} (in thousands)", [["Department", "Budget"]],
                       [[d, _fmt(v)] for d, v in figures.budget.items()])
    result = build_report(path, f"{figures.name} Annual Report {years[0]}", [
        Section("Overview", paragraphs=[
            (f"{figures.name} presents its annual report for the year ended 31 March {years[0]}. The statements "
            "below are stated in thousands."),
        ]),
        Section(words["statement"], tables=[income]),
        Section("Balance Sheet", tables=[balance]),
        Section("Statement of Cash Flows", tables=[cash]),
        Section("Spending by department", paragraphs=["Departments spent as follows during the year."],
                tables=[spending, budget]),
    ])
    return result, figures


def multi_table_questions(figures: Figures) -> list[Question]:
    """Questions whose answers join two tables of the report, with the exact answers."""
    y, p = figures.years[0], figures.years[1]
    lines = figures.lines
    revenue_word = _WORDING[figures.kind]["revenue"].lower()
    out = [
        Question(f"What is the operating cash flow ratio for {y}? Define it as cash from operations divided by total "
                 "current liabilities. Round to two decimal places.",
                 lines["operating cash"][y] / lines["total current liabilities"][y], 2, 2),
        Question(f"What was the asset turnover ratio in {y}, defined as {revenue_word} divided by the average total "
                 f"assets between {p} and {y}? Round to two decimal places.",
                 lines["revenue"][y] / ((lines["total assets"][y] + lines["total assets"][p]) / 2), 2, 2),
        Question(f"What was free cash flow in {y}? Free cash flow is defined as cash from operations minus capital "
                 "expenditure.", lines["operating cash"][y] + lines["capex"][y], 0, 1),
        Question(f"What is the {y} inventory turnover ratio, defined as cost of sales divided by average inventories "
                 f"between {p} and {y}? Round to two decimal places.",
                 lines["cost of sales"][y] / ((lines["inventories"][y] + lines["inventories"][p]) / 2), 2, 2),
        Question(f"What was the return on assets in {y}? Return on assets is defined as net income divided by total "
                 "assets. Round to two decimal places.", lines["net income"][y] / lines["total assets"][y], 2, 2),
        Question(f"What is the {y} capital expenditure as a percentage of {revenue_word}? Define it as capital "
                 f"expenditure divided by {revenue_word} times 100. Round to one decimal place.",
                 abs(lines["capex"][y]) / lines["revenue"][y] * 100, 1, 2),
    ]
    department = DEPARTMENTS[figures.years[0] % len(DEPARTMENTS)]
    out.append(Question(f"By how much did {department} spending exceed its budget? Define the overspend as "
                        f"{department} spending minus {department} budget.",
                        figures.spending[department] - figures.budget[department], 0, 2))
    return out


TWO_COMPANIES = (0, 27)
"""Seeds of two invented companies' reports of the same years (Northgate Tools Ltd and Alder Systems Inc.,
fiscal 2020, columns 2020, 2019 and 2018): a library for follow-ups and comparisons across documents."""


def build_two_company_library(directory: Path, embedder: Any) -> tuple[Path, list[Figures]]:
    """Draw both reports of ``TWO_COMPANIES`` into ``directory`` and ingest them into its library
    (``directory/library.sqlite3``); the library's path and each report's figures, in seed order."""
    from core.ingest.ingestor import Ingestor
    from core.library.store import Library

    directory.mkdir(parents=True, exist_ok=True)
    library = Library(directory / "library.sqlite3")
    drawn = []
    try:
        for seed in TWO_COMPANIES:
            pdf = directory / f"annual_report_{seed}.pdf"
            _, figures = build_statements_report(pdf, seed=seed)
            result = Ingestor(library, embedder).ingest_file(pdf)
            assert result.status == "added", result
            drawn.append(figures)
    finally:
        library.close()
    return directory / "library.sqlite3", drawn
