"""Shares asked of a table in the words people use: "what share of the hospital's staff do two units make up" (the
whole named with a word the table prints nowhere: the column's total), "what share of the U.S. population was under
20 years old" (age bands kept by the span asked, the share computed from the amounts, not from printed proportions
of a column the span's words happen to name). Ruled tables are drawn, ingested for real and asked with no model
call."""

from __future__ import annotations

from contextlib import closing

import pytest

from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


def test_the_whole_of_a_share_may_be_named_by_what_the_table_counts(tmp_path_factory: pytest.TempPathFactory) -> None:
    # "the hospital's staff": the staff column's total, named with a word the table prints nowhere
    rows = [["Unit", "Staff"], ["Nursing", "420"], ["Catering", "80"], ["Surgery", "300"], ["Radiology", "200"]]
    with closing(drawn_library(tmp_path_factory.mktemp("units"), "Table 3: Staff by unit", rows, [40, 220, 340])) as library:
        answer = ask_without_model(library, "What share of the hospital's staff do the nursing and catering units make up?")
        assert answer.value == "50%", answer.text  # (420 + 80) / 1,000


def test_a_share_of_bands_is_computed_from_the_amounts_they_hold(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Age group", "Proportion (all)", "Proportion (18+ years)", "Residents"],
            ["Under 5 years", "0.100", "", "1,000"], ["5 - 9 years", "0.150", "", "1,500"],
            ["10 - 17 years", "0.200", "", "2,000"], ["18 - 39 years", "0.300", "0.545", "3,000"],
            ["40 - 64 years", "0.180", "0.327", "1,800"], ["65 years plus", "0.070", "0.127", "700"],
            ["Total", "", "", "10,000"]]
    with closing(drawn_library(tmp_path_factory.mktemp("ages"), "Table A.2: Residents of the U.S. county by age group",
                               rows, [40, 160, 260, 380, 480])) as library:
        answer = ask_without_model(library, "What share of the US county's residents were under 18 years old?")
        assert answer.value == "45%", answer.text  # (1,000 + 1,500 + 2,000) / 10,000


def test_the_whole_of_a_share_is_what_the_question_names_first(tmp_path_factory: pytest.TempPathFactory) -> None:
    # the row named first ("of the girls"): its own total over the ratings; the rating named first ("of the pupils
    # who found them fair"): the column's total over boys and girls
    rows = [["Pupils", "Rating of meals good", "Rating of meals fair", "Rating of meals poor"],
            ["Boys", "60", "30", "10"], ["Girls", "20", "50", "30"]]
    with closing(drawn_library(tmp_path_factory.mktemp("meals"), "Table 5: School meals rated by pupils", rows,
                               [40, 140, 280, 420, 560], fontsize=9)) as library:
        answer = ask_without_model(library, "what percentage of the girls said the meals were fair")
        assert answer.value == "50%", answer.text  # 50 / (20 + 50 + 30)
        answer = ask_without_model(library, "What share of the pupils who found the meals fair were girls?")
        assert answer.value == "62.5%", answer.text  # 50 / (30 + 50)


def test_a_share_of_all_that_a_table_counts_is_of_its_total_column_on_its_totals_row(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # headings print their parts' subtotal ("Violent crime" over Assault and Robbery): the rows added up would count
    # them twice; the whole is the Total column of the totals row
    rows = [["Offence", "Total", "Male", "Female"], ["Total", "1,000", "700", "300"],
            ["Violent crime", "200", "150", "50"], ["Assault", "120", "90", "30"], ["Robbery", "80", "60", "20"],
            ["Property crime", "500", "330", "170"], ["Burglary", "300", "200", "100"], ["Theft", "200", "130", "70"],
            ["Other offences", "300", "220", "80"]]
    with closing(drawn_library(tmp_path_factory.mktemp("arrests"), "Table 4: Arrests by offence and sex, 2021", rows,
                               [40, 220, 320, 420, 520])) as library:
        answer = ask_without_model(library, "What share of all persons arrested were female?")
        assert answer.value == "30%", answer.text  # 300 of 1,000


def test_the_whole_named_by_a_column_and_total_is_the_column_s_total(tmp_path_factory: pytest.TempPathFactory) -> None:
    # "the red dye total": the Red dye column added up, not the "Red tea" row that one of its words names
    rows = [["Sample", "Red dye (mg)", "Green dye (mg)"], ["Plain tea", "30", "12"], ["Red tea", "50", "8"],
            ["Green tea", "20", "40"]]
    with closing(drawn_library(tmp_path_factory.mktemp("dyes"), "Table 2: Dye found in the tea samples", rows,
                               [40, 220, 340, 460])) as library:
        answer = ask_without_model(library, "What share of the red dye total does plain tea make up?")
        assert answer.value == "30%", answer.text  # 30 of 100, not 30 of Red tea's 50


def test_a_share_of_the_total_column_read_on_the_totals_row_binds_the_whole_s_words(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # the whole said as "total obligations": the totals row's Total column, whose words the row's label "Total" and
    # the table's title say
    rows = [["Obligation", "Total", "Within one year", "After one year"], ["Leases", "400", "100", "300"],
            ["Loans", "500", "150", "350"], ["Purchase orders", "100", "50", "50"], ["Total", "1,000", "300", "700"]]
    with closing(drawn_library(tmp_path_factory.mktemp("obligations"), "Table 9: Payments due by period", rows,
                               [40, 220, 320, 420, 520])) as library:
        answer = ask_without_model(library, "What percentage of total contractual commitments is payable within one year?")
        assert answer.value == "30%", answer.text  # 300 of 1,000 on the totals row
