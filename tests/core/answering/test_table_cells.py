"""A figure read off a table that is no financial statement: the cell of the row the question names and of the column
of the year it asks, answered by code with no model call; never a cell of another year. Tables drawn as ruled PDFs,
ingested for real, asked with no model call (invented names and figures)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_precision import _drawn, ask_code_first
from tests.core.answering.test_table_query import ask_without_model

pytestmark = pytest.mark.unit

# brand: share of sales in volume (%), 2021 and 2022
BRANDS = {"Hollowell": ("12.5", "11.8"), "Pine & Co": ("8.1", "9.4"), "Brackett": ("6.3", "7.0")}


@pytest.fixture(scope="module")
def brands(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Brand", "Share in volume (2021)", "Share in volume (2022)"]] + \
        [[name, *shares] for name, shares in BRANDS.items()]
    yield from _drawn(tmp_path_factory, "Table 3: Leading tea brands, shares in volume", rows, [40, 200, 360, 520])


def test_a_cell_is_read_by_its_row_and_the_column_of_the_year_asked(brands: Library) -> None:
    answer = ask_without_model(brands, "What was Brackett's share in volume in 2022?")
    assert answer.value.rstrip("%") == "7.0" or answer.value.rstrip("%") == "7", answer.text
    answer = ask_without_model(brands, "What was the volume share of Pine & Co in 2021?")
    assert answer.value.rstrip("%") == "8.1", answer.text


def test_a_year_no_column_prints_is_not_read_off_another_year(brands: Library) -> None:
    answer = ask_code_first(brands, "What was Hollowell's share in volume in 2019?")
    assert answer.value == "", answer.text


# age band: pupils enrolled, share (%); a totals row
BANDS = {"5-7": (41_200, 30.1), "8-10": (52_900, 38.6), "11-13": (42_800, 31.3)}


@pytest.fixture(scope="module")
def enrolment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Age", "Enrolment", "%"]] + [[band, f"{n:,}", f"{s:.1f}"] for band, (n, s) in BANDS.items()]
    rows.append(["Total", f"{sum(n for n, _ in BANDS.values()):,}", "100.0"])
    yield from _drawn(tmp_path_factory, "Table 2: Pupils enrolled by age band, autumn 2023", rows,
                      [40, 160, 300, 400])


def test_how_many_of_a_row_named_is_its_count_not_one_row(enrolment: Library) -> None:
    answer = ask_without_model(enrolment, "How many pupils aged 8-10 were enrolled in autumn 2023?")
    assert answer.value == "52,900", answer.text


# item: attendance by year, one row; and a table of one year that prints the same item
YEARLY = {2019: 4_120, 2020: 3_880, 2021: 4_410}


@pytest.fixture(scope="module")
def yearly(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", *map(str, YEARLY)], ["Attending evening classes", *(f"{n:,}" for n in YEARLY.values())]]
    yield from _drawn(tmp_path_factory, "Table 8: Number of persons attending evening classes, 2019 to 2021", rows,
                      [40, 240, 320, 400, 480])


def test_how_many_in_a_year_reads_the_column_of_that_year(yearly: Library) -> None:
    answer = ask_without_model(yearly, "How many persons were attending evening classes in 2020?")
    assert answer.value == "3,880", answer.text


@pytest.fixture(scope="module")
def one_year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Course", "Number of participants", "Women (%)"], ["Evening classes", "5,120", "61.0"],
            ["Summer school", "2,340", "48.0"]]
    yield from _drawn(tmp_path_factory, "Table 7: Participation in adult education in 2022", rows,
                      [40, 200, 360, 460])


def test_a_table_of_one_year_does_not_answer_for_another(one_year: Library) -> None:
    assert ask_without_model(one_year, "How many persons attended evening classes in 2022?").value == "5,120"
    answer = ask_code_first(one_year, "How many persons attended evening classes in 2021?")
    assert answer.value == "", answer.text


# course: participants, women (%); a totals row
COURSES = {"Evening classes": (5_120, 61.0), "Summer school": (2_340, 48.0), "Distance learning": (3_905, 72.5),
           "Weekend workshops": (1_210, 66.0)}


@pytest.fixture(scope="module")
def courses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "Number of participants", "Females (%)"]] + \
        [[name, f"{n:,}", f"{w:.1f}"] for name, (n, w) in COURSES.items()]
    rows.append(["Total", f"{sum(n for n, _ in COURSES.values()):,}", "61.6"])
    yield from _drawn(tmp_path_factory, "Table 4: Participants in adult education courses", rows, [40, 200, 360, 460])


def test_a_threshold_in_percent_is_over_the_column_of_percentages(courses: Library) -> None:
    answer = ask_without_model(courses, "In how many types of course were more than 65% of participants female?")
    assert answer.value == "2", answer.text  # distance learning, weekend workshops; never the totals row


def test_women_are_read_in_a_column_of_females(courses: Library) -> None:
    answer = ask_without_model(courses, "What percentage of distance learning participants were women?")
    assert answer.value.rstrip("%") == "72.5", answer.text
    answer = ask_without_model(courses, "Which course had the highest share of women?")
    assert "Distance learning" in answer.text and "72.5" in answer.text, answer.text


@pytest.fixture(scope="module")
def one_row(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Product", "Green tea", "Black tea"], ["Sales in EUR thousands", "1,840", "4,215"]]
    yield from _drawn(tmp_path_factory, "Table 5: Sales of tea in Belgium, 2021", rows, [40, 240, 360, 480])


def test_a_table_of_one_row_is_read_by_the_column_asked(one_row: Library) -> None:
    answer = ask_without_model(one_row, "What were the sales of green tea in Belgium in 2021?")
    assert answer.value.replace("€", "").split()[0] in ("1,840", "1.84"), answer.text


@pytest.fixture(scope="module")
def acronyms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Partner country", "Approved TA (EURm)"], ["Kestria", "4.10"], ["Lomavia", "12.75"], ["Total", "16.85"]]
    yield from _drawn(tmp_path_factory, "Table 2: Programme commitments by partner", rows, [40, 240, 400])


def test_a_header_acronym_is_named_by_the_words_it_stands_for(acronyms: Library) -> None:
    answer = ask_without_model(acronyms, "How much approved technical assistance did Lomavia receive?")
    assert "12.75" in answer.value, answer.text


# course type: participants in 2018, 2020, 2022
TYPES = {"Evening classes": (4_210, 4_505, 4_890), "Apprenticeships": (12_300, 11_840, 11_020)}


@pytest.fixture(scope="module")
def by_year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "2018", "2020", "2022"]] + [[name, *(f"{n:,}" for n in figures)] for name, figures in TYPES.items()]
    yield from _drawn(tmp_path_factory, "Table 6: Number of participants in vocational training, 2018 to 2022", rows,
                      [40, 200, 300, 400, 500])


def test_a_rows_change_between_two_year_columns(by_year: Library) -> None:
    answer = ask_without_model(by_year, "By how much did the number of evening classes participants grow from 2018 "
                                        "to 2022?")
    assert answer.value == "680", answer.text
    answer = ask_without_model(by_year, "By how much did apprenticeships participants fall between 2020 and 2022?")
    assert answer.value == "820", answer.text  # how much it fell: the older less the newer
    answer = ask_without_model(by_year, "What was the percentage change in apprenticeships participants from 2018 to "
                                        "2022?")
    assert answer.value == "-10.41%", answer.text


def test_figures_asked_over_a_range_of_years_respectively_are_each_year_the_table_prints(by_year: Library) -> None:
    """"From 2022 to 2018, respectively": every year of the range the table prints, in the order said, not only
    the two named."""
    answer = ask_without_model(by_year, "What were the apprenticeships participants in 2022 to 2018, respectively?")
    assert answer.parts == ("11,020", "11,840", "12,300"), answer.text


def test_a_change_of_a_percentage_is_in_points(brands: Library) -> None:
    answer = ask_without_model(brands, "By how many percentage points did Hollowell's share in volume fall between "
                                       "2021 and 2022?")
    assert answer.value == "0.7 percentage points", answer.text


def test_a_threshold_said_as_a_fraction_is_its_percentage(courses: Library) -> None:
    answer = ask_without_model(courses, "In which courses were more than half of the participants female?")
    assert set(answer.value.split("; ")) == {"Evening classes", "Distance learning", "Weekend workshops"}, answer.text


# school: pupils (share), staff (share), as statistics tables print counts
SCHOOLS = {"Northgate": (1_204, 41.2, 88, 39.6), "Southfield": (962, 32.9, 71, 32.0), "Westbrook": (756, 25.9, 63, 28.4)}


@pytest.fixture(scope="module")
def schools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["School", "Pupils", "Staff"]] + [[name, f"{p} ({ps}%)", f"{s}({ss}%)"]
                                              for name, (p, ps, s, ss) in SCHOOLS.items()]
    yield from _drawn(tmp_path_factory, "Table 2.1: Pupils and staff by school", rows, [40, 200, 340, 480])


def test_a_figure_printed_with_its_share_in_brackets_is_read_as_the_figure(schools: Library) -> None:
    assert ask_without_model(schools, "How many pupils does Southfield have?").value == "962"
    answer = ask_without_model(schools, "Which school had the fewest staff?")
    assert "Westbrook" in answer.text and "63" in answer.text, answer.text
    answer = ask_without_model(schools, "How many pupils are there in total?")
    assert answer.value == "2,922", answer.text


# year: thefts, fires; rows of years, and a totals row whose year cell is empty
INCIDENTS = {2016: (412, 30), 2017: (455, 41), 2018: (398, 37)}


@pytest.fixture(scope="module")
def incident_years(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "Thefts", "Fires"]] + [[str(y), str(t), str(f)] for y, (t, f) in INCIDENTS.items()]
    rows.append(["", str(sum(t for t, _ in INCIDENTS.values())), str(sum(f for _, f in INCIDENTS.values()))])
    yield from _drawn(tmp_path_factory, "Table 3: Incidents on the estate by year, 2016-18", rows, [40, 140, 240, 340])


def test_which_year_over_rows_of_years_ranks_the_rows(incident_years: Library) -> None:
    answer = ask_without_model(incident_years, "In which year were the most fires reported?")
    assert answer.value == "2017", answer.text
    answer = ask_without_model(incident_years, "In which year were the fewest thefts reported?")
    assert answer.value == "2018", answer.text


# drink: share of pupils by how often (%), the word every header prints ("drunk") naming no column
DRINKS = {"Energy drinks": (12.5, 20.1, 67.4), "Cola": (30.2, 41.0, 28.8), "Iced tea": (4.1, 8.7, 87.2),
          "Sports drinks": (6.0, 9.5, 84.5)}


@pytest.fixture(scope="module")
def drinks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Drink", "Drunk weekly", "Drunk sometimes", "Drunk never"]] + \
        [[name, *(f"{v:.1f}" for v in shares)] for name, shares in DRINKS.items()]
    yield from _drawn(tmp_path_factory, "Table 3.2: How often pupils drink sweet drinks (%)", rows,
                      [40, 180, 300, 420, 540])


def test_a_column_is_named_by_its_own_words_under_a_shared_heading(drinks: Library) -> None:
    answer = ask_without_model(drinks, "Which drink had the lowest share of pupils who never drink it?")
    assert "Cola" in answer.text and "28.8" in answer.text, answer.text
    answer = ask_without_model(drinks, "For how many drinks did more than 80% of pupils say they never drink them?")
    assert answer.value == "2", answer.text


@pytest.fixture(scope="module")
def stacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Faculty", "Sample"], ["Arts", "40 (25.0%)"], ["Law", "120 (75.0%)"], ["Total", "160"],
            ["Arts", "22 (31.4%)"], ["Law", "48 (68.6%)"], ["Total", "70"]]
    yield from _drawn(tmp_path_factory, "Table 2: Women, men in the sample by faculty", rows, [40, 200, 360])


def test_a_row_named_in_each_of_two_stacked_tables_is_no_sum_of_both(stacked: Library) -> None:
    answer = ask_code_first(stacked, "How many women from the Arts faculty were in the sample?")
    assert answer.value != "62", answer.text  # 40 + 22: the women's and the men's rows added


@pytest.fixture(scope="module")
def summary_statistics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Variable", "Mean", "Std. Dev.", "Min", "Max"], ["Age of the farmer", "47.2", "11.3", "19", "84"],
            ["Farm size (hectares)", "31.6", "22.9", "2", "410"], ["Number of cattle", "58.4", "40.1", "0", "612"]]
    yield from _drawn(tmp_path_factory, "Table A1: Summary statistics of the 1,204 farms surveyed", rows,
                      [40, 200, 280, 360, 440, 520])


def test_a_statistic_of_a_variable_is_read_from_its_column(summary_statistics: Library) -> None:
    assert ask_without_model(summary_statistics, "What was the maximum number of cattle on a farm?").value == "612"
    assert ask_without_model(summary_statistics, "What was the mean farm size of the farms surveyed?").value == "31.6"


@pytest.fixture(scope="module")
def boats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "len", "hp", "crw"], ["Sea Swift", "12.5", "310", "4"], ["Gull", "8.2", "95", "2"],
            ["North Star", "15.0", "420", "6"], ["Petrel", "9.6", "140", "3"]]
    yield from _drawn(tmp_path_factory, "Table 3: The harbour fleet, by boat", rows, [40, 200, 280, 360, 440])


def test_a_header_cut_short_to_its_consonants_is_named_by_the_whole_word(boats: Library) -> None:
    answer = ask_without_model(boats, "Which boats have more than 300 horsepower?")
    assert set(answer.parts) == {"Sea Swift", "North Star"}, answer.text
    assert ask_without_model(boats, "What is the horsepower of the Gull?").value == "95"


def test_a_combined_figure_of_columns_named_adds_the_row_across_them(one_row: Library) -> None:
    answer = ask_without_model(one_row, "What were the combined sales of green tea and black tea in Belgium in 2021?")
    assert answer.value.replace("€", "").split()[0] in ("6,055", "6.055"), answer.text
    assert "Green tea" in answer.text and "Black tea" in answer.text, answer.text


def test_an_average_asked_is_never_answered_with_a_total_or_a_count(schools: Library) -> None:
    answer = ask_code_first(schools, "On average, how many pupils did a school have?")
    assert answer.value not in ("2,922", "3"), answer.text  # the total or the count of schools is no average


@pytest.fixture(scope="module")
def by_region_and_sex(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Age", "Rural north Male", "Rural north Female", "Rural south Male", "Rural south Female"],
            ["Under 40", "1,200", "1,310", "2,050", "2,240"], ["40 and over", "980", "1,120", "1,730", "1,905"],
            ["All", "2,180", "2,430", "3,780", "4,145"]]
    yield from _drawn(tmp_path_factory, "Table 4: Residents by age, region and sex", rows, [40, 160, 260, 360, 460, 560])


def test_the_second_side_of_a_difference_keeps_what_the_first_says_of_it(by_region_and_sex: Library) -> None:
    answer = ask_without_model(by_region_and_sex, "How many more rural south females than males were there in all?")
    assert answer.value == "365", answer.text  # south Female less south Male, not less north Male


@pytest.fixture(scope="module")
def awards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Non-vested awards", "Shares", "Grant value"], ["Non-vested at January 1, 2022", "41,200", "$612,300"],
            ["Granted", "9,800", "$151,900"], ["Forfeited", "1,150", "$17,250"],
            ["Non-vested at December 31, 2022", "49,850", "$746,950"]]
    yield from _drawn(tmp_path_factory, "Summary of unvested awards", rows, [40, 220, 340, 480])


def test_a_percentage_asked_is_never_answered_with_an_amount(awards: Library) -> None:
    """"What percentage of the unvested awards were forfeited": a cell of shares or of dollars is no answer to it."""
    answer = ask_code_first(awards, "What were the non-vested shares forfeited in 2022 as a percentage of the total "
                                    "non-vested shares at December 31, 2022?")
    assert not answer.value or "%" in answer.value, answer.text


@pytest.fixture(scope="module")
def harvests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Orchard", "Apples (t)", "Pears (t)"], ["Northfield", "420", "95"], ["Eastbrook", "380", "95"],
            ["Westmoor", "510", "140"]]
    yield from _drawn(tmp_path_factory, "Harvest by orchard", rows, [40, 220, 360, 500])


def test_a_ranking_whose_first_ties_with_the_next_names_neither(harvests: Library) -> None:
    """Two orchards picked the fewest pears: which one had the least is not for code to say; the most apples is."""
    assert ask_code_first(harvests, "Which orchard had the least pears?").value == ""
    assert ask_code_first(harvests, "Which orchard had the most apples?").value == "Westmoor"
