"""Rows read in groups. A results table printed as groups: each method named on a row of its own, without figures,
over its rows of settings ("m = 10", "m = 40"), the labels flush with the method's (a ruled table: no indentation
says which rows stand under which); a row is found by its method and its setting together, and the methods past a
bound at one setting are listed or counted by name. A register ranked by the groups of another column than its
labels ("which region"). Tables drawn as ruled PDFs, ingested for real, asked with no model call (invented
figures)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library
from tests.support.report_builder import PageBreak, TableSpec, build_report

pytestmark = pytest.mark.unit

# method: (bias, RMSE) at m = 10 and at m = 40  (made up)
METHODS = {"Ridge": ((0.012, 0.210), (-0.004, 0.105)), "Lasso": ((0.031, 0.250), (0.008, 0.121)),
           "Elastic net": ((-0.020, 0.190), (0.002, 0.098))}


@pytest.fixture(scope="module")
def errors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Method", "Bias", "RMSE"]]
    for method, settings in METHODS.items():
        rows.append([method, "", ""])
        for m, (bias, rmse) in zip((10, 40), settings, strict=True):
            rows.append([f"m = {m}", f"{bias:.3f}", f"{rmse:.3f}"])
    library = drawn_library(tmp_path_factory.mktemp("errors"), "Table 3: Simulated error of three methods", rows,
                            [40, 220, 320, 420])
    yield library
    library.close()


def test_rows_under_a_flush_heading_stand_under_it(errors: Library) -> None:
    (info,) = errors.tables()
    labels = dict(errors.conn.execute(f'SELECT _row, method FROM "{info.name}"').fetchall())
    parents = [labels.get(f.parent_row) for f in info.row_facts if labels[f.row].startswith("m =")]
    assert parents == [method for method in METHODS for _ in range(2)], parents  # each setting under its method


def test_a_cell_is_found_by_its_heading_and_its_row(errors: Library) -> None:
    answer = ask_without_model(errors, "What is the RMSE of the Lasso when m = 40?")
    assert answer.value == "0.121", answer.text


def test_the_headings_of_the_rows_past_a_bound_are_listed(errors: Library) -> None:
    answer = ask_without_model(errors, "Which methods had an RMSE greater than 0.2 with m = 10?")
    assert set(answer.parts) == {"Ridge", "Lasso"}, answer.text


def test_the_headings_of_the_rows_past_a_bound_are_counted(errors: Library) -> None:
    answer = ask_without_model(errors, "How many methods show a bias above 0 at m = 40?")
    assert answer.value == "2", answer.text  # Lasso and Elastic net


def test_a_question_opening_with_its_condition_lists_the_headings(errors: Library) -> None:
    answer = ask_without_model(errors, "Under the setting m = 10, which methods had an RMSE greater than 0.2?")
    assert set(answer.parts) == {"Ridge", "Lasso"}, answer.text


# shop: (region, sales)  (made up): the best shop is in the north, the best region is the south
SHOPS = {"Alder Street": ("North", 50), "Bay Road": ("South", 30), "Cove Lane": ("South", 30), "Dale End": ("North", 5)}


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "Region", "Sales"]] + [[shop, region, str(sales)] for shop, (region, sales) in SHOPS.items()]
    library = drawn_library(tmp_path_factory.mktemp("shops"), "Table 1: Sales by shop, 2025", rows, [40, 220, 320, 420])
    yield library
    library.close()


def test_rows_are_ranked_by_the_groups_of_another_column_than_their_labels(shops: Library) -> None:
    answer = ask_without_model(shops, "Which region sold the most in total?")
    assert answer.value == "South", answer.text  # 60 against the north's 55 (its one shop sold the most)


# scenario -> method -> (bias, RMSE) at m = 10 and at m = 40  (made up); the last scenario's name is cut short, as a
# narrow cell prints it
SCENARIOS = {
    "Fixed dose, low noise scenario": {"Ridge": ((0.01, 0.21), (0.00, 0.11)), "Lasso": ((0.03, 0.25), (0.01, 0.12)),
                                       "Lasso (CV)": ((0.02, 0.23), (0.01, 0.13))},
    "Fixed dose, high noise scenario": {"Ridge": ((0.05, 0.41), (0.02, 0.31)), "Lasso": ((0.07, 0.45), (0.03, 0.32)),
                                        "Lasso (CV)": ((0.06, 0.43), (0.02, 0.33))},
    "Low noise, late start scenar": {"Ridge": ((0.04, 0.26), (0.03, 0.16)), "Lasso": ((0.08, 0.29), (0.04, 0.17)),
                                     "Lasso (CV)": ((0.09, 0.27), (0.05, 0.18))},
}


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """One table a page, each titled with its scenario: read as one table keyed by the scenario."""
    directory = tmp_path_factory.mktemp("scenarios")
    blocks: list[TableSpec | PageBreak] = []
    for number, (scenario, methods) in enumerate(SCENARIOS.items(), start=4):
        rows = []
        for method, settings in methods.items():
            rows.append([method, "", ""])
            rows += [[f"m = {m}", f"{bias:.2f}", f"{rmse:.2f}"] for m, (bias, rmse) in zip((10, 40), settings, strict=True)]
        blocks += [*([PageBreak()] if blocks else []),
                   TableSpec(caption=f"Table {number}: Error of the methods for the {scenario}",
                             header=[["Method", "Bias", "RMSE"]], rows=rows)]
    built = build_report(directory / "study.pdf", "Simulation study", blocks)
    library = Library.in_directory(directory / "library")
    result = Ingestor(library, HashEmbedder()).ingest_file(built.path)
    assert result.status == "added" and result.tables == 1, result  # the three tables of one layout read as one
    yield library
    library.close()


def test_a_scenario_named_by_words_every_scenario_shares_and_a_row_by_its_heading(scenarios: Library) -> None:
    answer = ask_without_model(scenarios, "Under a fixed dose with low noise, what is the RMSE of Lasso when m = 40?")
    assert answer.value == "0.12", answer.text  # not the Lasso (CV) row, nor another scenario's


def test_a_word_cut_short_in_a_cell_is_the_word_it_begins(scenarios: Library) -> None:
    answer = ask_without_model(scenarios, "With low noise and a late start, what is the bias of Ridge when m = 10?")
    assert answer.value == "0.04", answer.text


# design, blocking: rejections (%) with one pool, and with 2, 4 and 8 pools  (made up)
TRIALS = {("Uniform", "No"): (5.1, 3.2, 2.4, 1.9), ("Uniform", "Yes"): (5.6, 3.9, 2.8, 2.2),
          ("Skewed", "No"): (88.0, 61.2, 30.5, 12.7), ("Skewed", "Yes"): (91.4, 70.3, 44.8, 20.9)}


@pytest.fixture(scope="module")
def trials(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Design", "Blocking", "Rejected (%) one pool", "Rejected (%) Pools 2", "Pools 4 (%)", "Pools 8 (%)"]]
    rows += [[design, blocking, *(f"{v:.1f}" for v in figures)] for (design, blocking), figures in TRIALS.items()]
    library = drawn_library(tmp_path_factory.mktemp("trials"), "Table 2: Rejected (%) by design and pooling", rows,
                            [40, 110, 170, 280, 390, 460, 530], fontsize=9)
    yield library
    library.close()


def test_a_yes_or_no_column_is_kept_by_its_header_said_with_or_without(trials: Library) -> None:
    """"with blocking" keeps the rows whose Blocking column says Yes, "without blocking" the No rows."""
    answer = ask_without_model(trials, "percentage rejected with one pool for a skewed design without blocking")
    assert float(answer.value.rstrip("%")) == 88.0, answer.text
    answer = ask_without_model(trials, "percentage rejected with one pool for a skewed design with blocking")
    assert float(answer.value.rstrip("%")) == 91.4, answer.text


def test_a_column_told_apart_by_a_number_is_the_one_the_question_numbers(trials: Library) -> None:
    """"when 4 pools are used" reads the "Pools 4" column, not the single pool's or another number's, a
    percentage asked included."""
    answer = ask_without_model(trials, "Rejected (%) for a uniform design with blocking when 4 pools are used")
    assert float(answer.value.rstrip("%")) == 2.8, answer.text
    answer = ask_without_model(trials, "percentage rejected in the 8-pool design when the design is skewed, without blocking")
    assert float(answer.value.rstrip("%")) == 12.7, answer.text
