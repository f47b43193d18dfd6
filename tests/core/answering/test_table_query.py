"""Questions over a register's rows answered by a query plan code compiles: a sum and a count over the rows a
name or a place keeps (its real values, matched to the question's words), a ranking of groups (the month of a
date column, a company), the top k, with every row read cited and no model call. The register is drawn as a
ruled PDF and ingested for real (extraction, typing, SQLite, FTS5, vectors from a hash embedder)."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import pymupdf
import pytest

from core.answering import Answerer
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelOutputError
from models.types import Answer
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

COMPANIES = ("Kestrel Foods Inc.", "Bluewater Logistics LLC", "Harlan Steel Corp.", "Meadow Print Co.")
CITIES = ("Dayton", "Akron", "Toledo", "Canton")


@dataclass
class Register:
    library: Library
    rows: list[tuple[str, str, date, int]]


@pytest.fixture(scope="module")
def register(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Register]:
    directory = tmp_path_factory.mktemp("register")
    rng = random.Random(11)
    rows = [(rng.choice(COMPANIES), rng.choice(CITIES), date(2015, rng.randint(7, 12), rng.randint(1, 28)),
             rng.randint(5, 250)) for _ in range(26)]
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Register of layoff notices received, July to December 2015", fontsize=12)
    header = [["Company", "City", "Notice date", "Employees affected"]]
    body = [[c, city, f"{d.month}/{d.day}/{d.year}", str(n)] for c, city, d, n in rows]
    _draw_ruled(page, header + body, [60, 230, 330, 430, 550], 80, row_height=17)
    doc.save(directory / "notices.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(directory / "notices.pdf")
    assert result.status == "added" and result.tables == 1, result
    yield Register(library, rows)
    library.close()


def ask_without_model(library: Library, question: str) -> Answer:
    """``question`` answered over ``library`` by code alone: any model call fails the test."""
    def refuse(*_: object) -> str:
        raise ModelOutputError("no model here")  # code must answer these without one
    chat = ScriptedChat(fallback=refuse)
    runner = SqlRunner(library.path)
    try:
        answer = Answerer(library, Retriever(library.conn, HashEmbedder()), runner, chat).answer(question)
    finally:
        runner.close()
    assert chat.calls == [], f"a model call for {question!r}"
    return answer


def _ask(register: Register, question: str) -> Answer:
    return ask_without_model(register.library, question)


def test_a_sum_over_the_rows_a_company_s_name_keeps(register: Register) -> None:
    answer = _ask(register, "How many employees were affected by the notices Kestrel Foods filed?")
    kept = [r for r in register.rows if r[0] == "Kestrel Foods Inc."]
    assert answer.value == f"{sum(r[3] for r in kept):,}", answer.text
    assert "Kestrel Foods Inc." in answer.text and "have a value" not in answer.text and "add up to" not in answer.text
    cited = next(c for c in answer.citations if c.sql)
    assert len(cited.cells) == len(kept)  # every row the condition kept is cited
    assert "Kestrel" in (answer.steps[0].sql or "")


def test_a_count_of_the_rows_a_place_keeps(register: Register) -> None:
    answer = _ask(register, "How many notices were filed in Dayton?")
    assert answer.value == str(sum(1 for r in register.rows if r[1] == "Dayton")), answer.text
    assert "notices" in answer.text and "Dayton" in answer.text


def test_the_month_with_the_most_is_a_group_of_a_date_column(register: Register) -> None:
    by_month: dict[str, int] = defaultdict(int)
    for _, _, day, employees in register.rows:
        by_month[day.strftime("%B %Y")] += employees
    month, most = max(by_month.items(), key=lambda item: item[1])
    answer = _ask(register, "Which month had the most employees affected?")
    assert answer.value == month and f"{most:,}" in answer.text, answer.text
    assert answer.text.startswith(f"{month} had the most")


def test_the_top_k_groups_and_the_fewest(register: Register) -> None:
    totals = Counter()
    for company, _, _, employees in register.rows:
        totals[company] += employees
    top = [c for c, _ in totals.most_common(2)]
    answer = _ask(register, "What are the top 2 companies by employees affected?")
    assert list(answer.parts) == top, answer.text
    fewest = min(totals.items(), key=lambda item: item[1])[0]
    answer = _ask(register, "Which company had the fewest employees affected?")
    assert answer.value == fewest, answer.text


def test_a_group_s_row_ranked_one_by_one_not_the_group_s_total(register: Register) -> None:
    largest = max(register.rows, key=lambda r: r[3])
    answer = _ask(register, "Which company's notice affected the most employees?")
    assert answer.value == largest[0] and f"{largest[3]:,}" in answer.text, answer.text
    assert answer.text.startswith(f"{largest[0]}'s notice had the most"), answer.text


def test_a_year_every_row_is_in_filters_nothing_and_a_month_reads_as_one(register: Register) -> None:
    answer = _ask(register, "How many notices were filed in Dayton in 2015?")
    assert answer.value == str(sum(1 for r in register.rows if r[1] == "Dayton")), answer.text
    assert "more" not in answer.text  # no list of the dates a condition kept
    month = max(register.rows, key=lambda r: r[2]).__getitem__(2)
    answer = _ask(register, f"How many notices were filed in {month.strftime('%B %Y')}?")
    in_month = sum(1 for r in register.rows if (r[2].year, r[2].month) == (month.year, month.month))
    assert answer.value == str(in_month), answer.text
    assert f"in {month.strftime('%B %Y')}" in answer.text and "more" not in answer.text, answer.text


def test_a_share_of_the_rows_themselves_counts_them(register: Register) -> None:
    in_toledo = sum(1 for r in register.rows if r[1] == "Toledo")
    answer = _ask(register, "What share of the layoff notices were filed in Toledo?")
    assert answer.value == f"{in_toledo * 100 / len(register.rows):.2f}".rstrip("0").rstrip(".") + "%", answer.text
    assert f"{in_toledo} of {len(register.rows)}" in answer.text, answer.text


def test_by_how_much_one_place_s_figure_exceeded_that_in_another(register: Register) -> None:
    totals: Counter[str] = Counter()
    for _, city, _, affected in register.rows:
        totals[city] += affected
    first, second = CITIES[0], CITIES[1]
    answer = _ask(register, f"By how much did the employees affected in {first} exceed those in {second}?")
    gap = totals[first] - totals[second]
    assert answer.value.replace(",", "") == str(gap), answer.text


def test_the_rows_a_question_names_by_another_noun_for_their_kind(register: Register) -> None:
    # "employers" over a Company column, "towns" over a City column
    totals: Counter[str] = Counter()
    for company, _, _, affected in register.rows:
        totals[company] += affected
    answer = _ask(register, "Across all its notices, which employer had the most employees affected?")
    assert answer.value == totals.most_common(1)[0][0], answer.text
    towns: Counter[str] = Counter(city for _, city, _, _ in register.rows)
    answer = _ask(register, "Which town had the most notices?")
    assert answer.value == towns.most_common(1)[0][0], answer.text

