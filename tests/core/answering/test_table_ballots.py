"""A tally of several ballot questions in one table, each row a polling place under the question it answers: a
question named by a few words of its long text or by its number keeps its rows; "the most yes votes" ranks the Yes
column (what the figures count, "votes", is no call to read the Total votes column); a question asked as a bare
noun phrase ("the two places with the most ...") ranks too. And a table printed "in per cent" whose one column of
counts is whole numbers past a hundred: a share of it is computed from the counts. Ruled tables are drawn,
ingested for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit

QUESTIONS = {
    "Question 1: Should the council resurface and light the old towpath beside the canal?": {
        "Elm Street Hall": (412, 188, 600), "Quarry Lane School": (530, 301, 831), "Harbour Chapel": (275, 350, 625)},
    "Question 2: Should the library open on Sunday afternoons in winter?": {
        "Elm Street Hall": (150, 455, 605), "Quarry Lane School": (610, 215, 825), "Harbour Chapel": (480, 140, 620)},
}


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Ballot question", "Polling place", "Yes", "No", "Total votes"]]
    for question, places in QUESTIONS.items():
        rows += [[question, place, str(yes), str(no), str(total)] for place, (yes, no, total) in places.items()]
    library = drawn_library(tmp_path_factory.mktemp("tally"), "Table 1: Results of the parish poll by polling place",
                            rows, [8, 372, 470, 510, 550, 604], fontsize=9)
    yield library
    library.close()


def test_a_ballot_question_named_by_a_few_words_of_its_text_keeps_its_rows(tally: Library) -> None:
    answer = ask_without_model(tally, "What percentage of all votes on the old canal towpath question were yes?")
    places = QUESTIONS["Question 1: Should the council resurface and light the old towpath beside the canal?"].values()
    assert answer.value == f"{100 * sum(p[0] for p in places) / sum(p[2] for p in places):.2f}%", answer.text


def test_the_most_yes_votes_on_a_question_named_by_its_number_ranks_the_yes_column(tally: Library) -> None:
    answer = ask_without_model(tally, "Which 2 polling places got the most yes votes for question 2?")
    assert list(answer.parts) == ["Quarry Lane School", "Harbour Chapel"], answer.text


def test_a_ranking_asked_as_a_bare_noun_phrase(tally: Library) -> None:
    answer = ask_without_model(tally, "the polling place with the fewest no votes on question 1?")
    assert answer.value == "Elm Street Hall", answer.text


# state: households surveyed, illiterate (%), literate (%)  (made up)
SURVEY = {"Northmark": (1_800, 22.4, 77.6), "Southmere": (2_150, 35.1, 64.9), "Westholm": (1_200, 18.0, 82.0)}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["State", "N", "Illiterate", "Literate"]] + [[name, f"{n:,}", f"{a:.1f}", f"{b:.1f}"]
                                                          for name, (n, a, b) in SURVEY.items()]
    library = drawn_library(tmp_path_factory.mktemp("survey"), "Table 4: Distribution (%) of households by literacy",
                            rows, [40, 180, 260, 360, 460])
    yield library
    library.close()


def test_a_share_of_the_counts_in_a_table_printed_in_per_cent(survey: Library) -> None:
    answer = ask_without_model(survey, "what percentage of the households sampled lived in Westholm")
    assert float(answer.value.rstrip("%")) == pytest.approx(100 * 1_200 / 5_150, abs=0.05), answer.text
