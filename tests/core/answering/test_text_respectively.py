"""Figures a passage states "respectively": "X was A, B and C in 2021, 2020 and 2019, respectively" pairs the n-th
figure with the n-th year, so the X of one year is its own figure (not the one printed nearest the year), and the
X of several years asked together is each year's figure in the order asked. A made-up hospital report (a ward table
and a paragraph about costs no table prints) is drawn, ingested for real and asked with every model call failing;
the wording is invented."""

from __future__ import annotations

from collections.abc import Iterator

import pymupdf
import pytest

from core.answering import Answerer, text_facts
from core.answering import answer_types as types
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelOutputError
from models.types import Answer, Chunk
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

LAUNDRY = ("Laundry and linen costs were $4.2 million, $3.9 million and $3.1 million for the years ended June 30, "
           "2021, 2020 and 2019, respectively, of which $1.1 million and $0.8 million, respectively, related to "
           "linen hire.")


def _passage(text: str) -> Chunk:
    return Chunk(1, 1, "report.pdf", "text", 2, text)


def test_a_year_asked_takes_the_figure_in_its_place_of_the_respective_list() -> None:
    passages = [_passage(LAUNDRY)]
    found = text_facts.stated_figure("What were the laundry and linen costs in 2020?", passages)
    assert found is not None and found.figure == "$3.9 million"  # not the $3.1 million printed nearest "2020"
    found = text_facts.stated_figure("What were the laundry and linen costs in 2019?", passages)
    assert found is not None and found.figure == "$3.1 million"
    # A list of figures that does not pair with the list of years states no year's figure.
    unpaired = [_passage("Catering costs were $2.0 million and $1.5 million in 2021, 2020 and 2019, respectively.")]
    assert text_facts.stated_figure("What were the catering costs in 2020?", unpaired) is None


def test_several_years_asked_take_each_year_s_figure_in_the_order_asked() -> None:
    passages = [_passage(LAUNDRY)]
    found = text_facts.stated_figures("What were the laundry and linen costs in 2019 and 2021 respectively?", passages)
    assert found is not None and found.parts == ("$3.1 million", "$4.2 million")
    # Amounts beside percentages: the figures of the kind asked are paired.
    mixed = [_passage("Agency staffing cost $6.5 million and $5.0 million, or 4.1% and 3.6% of operating costs, "
                      "in 2021 and 2020, respectively.")]
    found = text_facts.stated_figures("What was the agency staffing cost in 2021 and 2020 respectively?", mixed)
    assert found is not None and found.parts == ("$6.5 million", "$5.0 million")
    found = text_facts.stated_figures("What percentage of operating costs was agency staffing in 2021 and 2020?", mixed)
    assert found is not None and found.parts == ("4.1%", "3.6%")
    assert text_facts.stated_figures("What were the catering costs in 2021 and 2020?", passages) is None


def test_respective_figures_a_passage_states_replace_a_table_s_that_names_the_subject_less() -> None:
    passages = [_passage(LAUNDRY)]
    question = "What were the respective laundry and linen costs in 2021 and 2020?"
    fixed = text_facts.reconcile(question, types.FIGURES, "", "", "refused", "", passages)
    assert fixed is not None and fixed.parts == ("$4.2 million", "$3.9 million") and fixed.status == "text"
    fixed = text_facts.reconcile(question, types.FIGURES, "Linen, 2021: 12; Linen, 2020: 9", "12 and 9", "unchecked",
                                 "Linen, 2021: 12. Linen, 2020: 9", passages)
    assert fixed is not None and fixed.parts == ("$4.2 million", "$3.9 million") and fixed.status == "conflict"
    # A table row naming the whole subject keeps its figures; the same figures need no change.
    assert text_facts.reconcile(question, types.FIGURES, "", "4.0 and 3.8", "unchecked",
                                "Laundry and linen costs, 2021: 4.0; Laundry and linen costs, 2020: 3.8", passages) is None
    assert text_facts.reconcile(question, types.FIGURES, "", "$4.2 million and $3.9 million", "unchecked", "",
                                passages) is None


@pytest.fixture(scope="module")
def hospital(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("hospital")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Table 3: Beds by ward", fontsize=11)
    rows = [["Ward", "2021", "2020"], ["Surgical", "120", "112"], ["Maternity", "48", "44"], ["Total", "168", "156"]]
    bottom = _draw_ruled(page, rows, [72, 240, 330, 420], 80)
    page.insert_textbox(pymupdf.Rect(72, bottom + 30, 540, bottom + 120), LAUNDRY, fontsize=10)
    doc.save(directory / "hospital.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(directory / "hospital.pdf")
    assert result.status == "added" and result.tables == 1, result
    yield library
    library.close()


def _ask(library: Library, question: str) -> Answer:
    def refuse(*_: object) -> str:
        raise ModelOutputError("no model here")
    runner = SqlRunner(library.path)
    try:
        return Answerer(library, Retriever(library.conn, HashEmbedder()), runner,
                        ScriptedChat(fallback=refuse)).answer(question)  # type: ignore[arg-type]
    finally:
        runner.close()


def test_respective_figures_no_table_prints_are_read_from_the_passage(hospital: Library) -> None:
    answer = _ask(hospital, "What were the laundry and linen costs in 2021 and 2020 respectively?")
    assert answer.parts == ("$4.2 million", "$3.9 million"), answer.text
    assert any(c.kind == "text" for c in answer.citations)

