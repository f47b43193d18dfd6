"""Code's plans on layouts they did not grow on: a bound in a column's header ("At least every week") is no
ranking of the least, a difference of two columns keeps the rows the question names, a share of the cases in one
row is of the column of counts with the table's totals row as the whole (not a share of rows, and the totals row
no filter). Tables drawn as ruled PDFs, ingested for real, asked with no model call (invented figures)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering.across import measures_across
from core.answering.operations import load_table_view
from core.library.store import Library
from tests.core.answering.test_table_precision import _drawn, _plan, ask_code_first
from tests.core.answering.test_table_query import ask_without_model

pytestmark = pytest.mark.unit

# complaint: pupils reporting it at least every week, about every month, rarely
COMPLAINTS = {"Headache": (120, 95, 301), "Nausea": (41, 77, 398), "Fatigue": (214, 130, 172),
              "Dizziness": (63, 58, 395)}


@pytest.fixture(scope="module")
def complaints(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Complaint", "At least every week", "About every month", "Rarely"]] + \
        [[name, *map(str, figures)] for name, figures in COMPLAINTS.items()]
    yield from _drawn(tmp_path_factory, "Table 6: How often pupils have complaints", rows, [40, 160, 300, 440, 540])


def test_a_bound_in_the_words_is_no_ranking_of_the_least(complaints: Library) -> None:
    answer = ask_without_model(complaints, "Which complaint did the most pupils have at least every week?")
    assert "Fatigue" in answer.text and "Nausea" not in answer.text, answer.text


# ailment: boys, girls
AILMENTS = {"Sore throat": (30, 52), "Earache": (12, 40), "Hay fever": (25, 19), "Sprain": (8, 9)}


@pytest.fixture(scope="module")
def ailments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Ailment", "Boys", "Girls"]] + [[name, str(b), str(g)] for name, (b, g) in AILMENTS.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Ailments reported by sex", rows)


def test_a_difference_of_two_columns_keeps_the_row_a_side_names(ailments: Library) -> None:
    answer = ask_code_first(ailments, "How many more girls than boys reported an earache?")
    assert answer.value in ("", "28"), answer.text  # never every girl less every boy
    planned = _plan(ailments, "How many more girls than boys reported an earache?")
    assert planned is not None and [c.values for c in planned.conditions] == [("Earache",)]


def test_a_year_the_question_gives_is_no_side_of_a_comparison_of_two_columns(ailments: Library) -> None:
    # the year is the table's (its columns print none): the sides are still the Girls and Boys columns
    answer = ask_without_model(ailments, "For which ailments were more girls than boys seen in 2021?")
    assert answer.value and all(name in answer.value for name in ("Sore throat", "Earache", "Sprain")), answer.text
    assert "Hay fever" not in answer.value, answer.text


# injury: males of all ages, males under 18, females of all ages, females under 18
INJURIES = {"Sprain": (310, 120, 280, 140), "Fracture": (150, 70, 90, 35), "Burn": (60, 15, 55, 22)}


@pytest.fixture(scope="module")
def injuries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Injury", "Male all ages", "Male under 18", "Female all ages", "Female under 18"]] + \
        [[name, *map(str, figures)] for name, figures in INJURIES.items()]
    yield from _drawn(tmp_path_factory, "Table 4: Injuries treated by sex and age", rows, [40, 150, 250, 350, 450, 550])


def test_girls_and_boys_are_the_female_and_male_columns_and_an_age_bound_in_a_header_no_filter(
        injuries: Library) -> None:
    answer = ask_without_model(injuries, "Fractures treated: how many girls under 18?")
    assert answer.value == "35", answer.text
    answer = ask_without_model(injuries, "How many boys under 18 were treated for a burn?")
    assert answer.value == "15", answer.text


# species of tree felled: a row of all the other species, which is no total
FELLED = {"Oak": 120, "Ash": 95, "Birch": 60, "All other species": 240}


@pytest.fixture(scope="module")
def felled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Species", "Trees felled"]] + [[name, str(n)] for name, n in FELLED.items()]
    rows.append(["Total", str(sum(FELLED.values()))])
    yield from _drawn(tmp_path_factory, "Table 9: Trees felled by species", rows)


def test_a_row_of_all_other_kinds_is_a_row_not_a_total(felled: Library) -> None:
    answer = ask_without_model(felled, "Which species had the most trees felled?")
    assert answer.value == "All other species", answer.text


# incidents by kind, with categories printed among their parts (each the sum of the rows right below it), and a
# label wrapped onto a second line (its first line holds no figure: no heading)
INCIDENTS = [("Vehicle collisions", 412, 380), ("Car and car", 250, 231), ("Car and bicycle", 98, 101),
             ("Car and pedestrian", 64, 48), ("Falls from a height", None, None), ("or from a ladder", 310, 295),
             ("Weather damage", 150, 171), ("Flooding", 90, 120), ("Storm", 60, 51), ("Fires", 45, 39)]


@pytest.fixture(scope="module")
def incidents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Kind of incident", "Injured", "Treated"]] + [[name, str(a or ""), str(b or "")] for name, a, b in INCIDENTS]
    yield from _drawn(tmp_path_factory, "Table 5: Incidents attended, by kind", rows)


def test_a_category_printed_among_its_parts_keeps_its_parts(incidents: Library) -> None:
    answer = ask_without_model(incidents, "Which vehicle collisions injured more than 90 people?")
    assert set(answer.parts) == {"Car and car", "Car and bicycle"}, answer.text  # not the category's own row
    answer = ask_without_model(incidents, "Which weather damage had the most injured?")
    assert answer.value == "Flooding", answer.text


# farm: tractors, barns, hectares
FARMS = {"Hillside": (2, 1, 120), "Brookend": (3, 2, 210), "Mossgate": (2, 3, 95), "Fernlea": (1, 1, 60),
         "Oakridge": (4, 2, 340)}


@pytest.fixture(scope="module")
def farms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Farm", "Tractors", "Barns", "Hectares"]] + [[name, *map(str, figures)] for name, figures in FARMS.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Holdings in the valley survey", rows, [40, 200, 300, 400, 500])


def test_a_count_of_things_each_row_has_keeps_the_rows_holding_it(farms: Library) -> None:
    assert ask_without_model(farms, "How many farms have 2 tractors?").value == "2"
    assert ask_without_model(farms, "How many farms have two barns?").value == "2"
    assert ask_without_model(farms, "How many farms have 2 or more tractors?").value == "4"  # a bound, not a count


# region: domestic (%), imported (%), cases (n); a totals row named after the union
REGIONS = {"Northmark": (80.0, 20.0, 45), "Southdale": (100.0, 0.0, 150), "Westmoor": (50.0, 50.0, 55)}


@pytest.fixture(scope="module")
def regions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Region", "Domestic (%)", "Imported (%)", "Total (n)"]] + \
        [[name, f"{d:.1f}", f"{i:.1f}", str(n)] for name, (d, i, n) in REGIONS.items()]
    rows.append(["Union Total", "82.0", "18.0", str(sum(n for _, _, n in REGIONS.values()))])
    yield from _drawn(tmp_path_factory, "Table 7: Reported cases of fever by region and origin, 2019", rows,
                      [40, 160, 280, 400, 500])


def test_a_share_of_a_named_whole_is_of_the_counts_not_of_the_rows(regions: Library) -> None:
    question = "What share of the Union's reported cases of fever in 2019 were in Southdale?"
    planned = _plan(regions, question)
    assert planned is not None and planned.target is not None and planned.target.header.startswith("Total"), planned
    assert [c.values for c in planned.conditions] == [("Southdale",)]  # the totals row is the whole, not a filter
    answer = ask_code_first(regions, question)
    assert answer.value in ("", "60", "60%", "60.0", "60.00%"), answer.text  # 150 of 250, never 1 of 3 rows


# organism: a limit (ng/kg) each
LIMITS = {"Heron": "31", "Vole": "112", "Badger": "58", "Grebe": "27", "Stoat": "90"}


@pytest.fixture(scope="module")
def limits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Organism", "Limit (ng/kg)"]] + [[name, limit] for name, limit in LIMITS.items()]
    yield from _drawn(tmp_path_factory, "Table 3: Dietary limits for lead", rows, [40, 220, 340])


def test_a_ranking_asked_is_never_answered_by_listing_every_row(limits: Library) -> None:
    answer = ask_code_first(limits, "Which two animals have the lowest dietary limits for lead?")
    assert "lists" not in answer.text and "Vole" not in answer.text, answer.text  # the two lowest, or nothing


def test_the_one_text_column_holds_the_rows_of_a_table_the_question_names_by_its_title(limits: Library) -> None:
    answer = ask_without_model(limits, "Which two animals have the lowest dietary limits for lead?")
    assert set(answer.parts) == {"Grebe", "Heron"}, answer.text
    assert _plan(limits, "Which two animals have the lowest limits?") is None  # "animals": this table's rows or not


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Part of the paper", "Questions"], ["Texts read", ""], ["Fiction", "80"], ["Non-fiction", "52"],
            ["Skills tested", ""], ["Recall", "30"], ["Inference", "45"], ["Evaluation", "17"]]
    yield from _drawn(tmp_path_factory, "Table 9: Questions in the reading paper", rows, [40, 220, 340])


def test_rows_under_headings_are_ranked_under_the_heading_named_and_never_across(papers: Library) -> None:
    answer = ask_without_model(papers, "Which skill tested had the most questions?")
    assert "Inference" in answer.text and "Fiction" not in answer.text, answer.text
    assert _plan(papers, "Which part had the most questions?") is None  # under which heading: the words say none


@pytest.fixture(scope="module")
def worries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Worry", "Figure", "Quite a lot", "Not much"],
            ["Exams", "Count", "120", "60"], ["Exams", "Percentage", "66.7", "33.3"],
            ["Money", "Count", "40", "140"], ["Money", "Percentage", "22.2", "77.8"],
            ["Housing", "Count", "95", "85"], ["Housing", "Percentage", "52.8", "47.2"]]
    yield from _drawn(tmp_path_factory, "Table 4: What worries students", rows, [40, 160, 280, 400, 500])


def test_rows_of_a_count_and_a_percentage_per_item_are_never_ranked_or_added_together(worries: Library) -> None:
    planned = _plan(worries, "Which worry troubled the most students quite a lot?")
    assert planned is not None and [c.values for c in planned.conditions] == [("Count",)], planned
    answer = ask_without_model(worries, "Which worry troubled the most students quite a lot?")
    assert "Exams" in answer.text and "120" in answer.text and "%" not in answer.text, answer.text
    planned = _plan(worries, "Which worry had the highest percentage of students troubled quite a lot?")
    assert planned is None or [c.values for c in planned.conditions] == [("Percentage",)], planned
    # "which worry had the most": ranked by how many rows each has, one of each kind, ranks nothing
    assert _plan(worries, "Which worry had the most entries?") is None


def test_a_difference_of_two_columns_is_of_the_kind_of_row_asked(worries: Library) -> None:
    answer = ask_without_model(worries, "For money, how many fewer students worried quite a lot than not much?")
    assert answer.value == "100", answer.text  # 140 - 40 of the Count row, not the Count and Percentage rows added
    assert "fewer" in answer.text, answer.text


@pytest.mark.parametrize(("question", "limit"), [
    ("Which factor affected the exam marks of the most pupils quite a lot?", 1),
    ("What were the three complaints pupils suffered from most often?", 3),
    ("Which three kinds of bullying did pupils meet occasionally the most?", 3),
])
def test_a_ranking_however_far_its_superlative_is_from_the_rows_asked(question: str, limit: int) -> None:
    from core.answering.reading import read
    reading = read(question, [])
    assert reading.query is not None and reading.query.operation == "top" and reading.query.limit == limit


def test_an_average_over_the_n_rows_listed_reads_every_row_when_the_table_lists_n(limits: Library) -> None:
    planned = _plan(limits, "What is the average dietary limit for lead over the five animals listed?")
    assert planned is not None and planned.operation == "average" and not planned.conditions, planned
    answer = ask_without_model(limits, "What is the average dietary limit for lead over the five animals listed?")
    assert answer.value == f"{sum(int(v) for v in LIMITS.values()) / len(LIMITS):g}", answer.text
    assert _plan(limits, "What is the average dietary limit for lead over the six animals listed?") is None


@pytest.mark.parametrize(("question", "described"), [
    ("What is the average weight over the five breeds listed?", "average(line(weight))"),
    ("Which two ethnic/racial groups had the most pupils in 2019?", "top(pupils, by ethnic racial groups); 2019"),
])
def test_words_joined_by_a_slash_and_the_rows_an_average_runs_over_are_no_ratio(question: str, described: str) -> None:
    from core.answering.reading import read
    assert described in read(question, []).describe()


# year: pupils enrolled in nursery classes
NURSERY = {2011: 3_412, 2012: 3_530, 2013: 3_611, 2014: 3_705}


@pytest.fixture(scope="module")
def nursery(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Year", "Pupils enrolled"]] + [[str(y), f"{n:,}"] for y, n in NURSERY.items()]
    yield from _drawn(tmp_path_factory, "Table 8: Nursery class enrolment, 2011-2014", rows, [40, 160, 300])


def test_on_average_how_many_is_an_average_not_a_total(nursery: Library) -> None:
    from core.answering.reading import read
    assert read("On average, how many pupils were enrolled per year from 2011 to 2014?", []).describe().startswith(
        "computed; average(")
    answer = ask_code_first(nursery, "On average, how many pupils were enrolled per year from 2011 to 2014?")
    assert answer.value in ("", f"{sum(NURSERY.values()) / len(NURSERY):,g}"), answer.text


def test_a_change_foreseen_is_a_change() -> None:
    from core.answering.reading import read
    reading = read("By how much is district enrolment projected to grow from 2012 to 2020?", [])
    assert reading.measure is not None and reading.measure.op == "change", reading.describe()


# age group: residents
RESIDENTS = {"Under 10 years": 1_204, "10 - 19 years": 1_310, "20 - 29 years": 1_522, "30 - 39 years": 1_467,
             "40 - 49 years": 1_391, "50 years and over": 2_046}


@pytest.fixture(scope="module")
def residents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Age group", "Residents"]] + [[group, f"{n:,}"] for group, n in RESIDENTS.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Residents of Eastholm by age group", rows, [40, 200, 320])


def test_a_range_asked_keeps_the_groups_that_cover_it_exactly(residents: Library) -> None:
    planned = _plan(residents, "How many residents of Eastholm were aged 20 to 39 in total?")
    assert planned is not None and [c.values for c in planned.conditions] == [("20 - 29 years", "30 - 39 years")]
    answer = ask_without_model(residents, "How many residents of Eastholm were aged 20 to 39 in total?")
    assert answer.value == f"{1_522 + 1_467:,}", answer.text
    assert _plan(residents, "How many residents of Eastholm were aged 20 to 35 in total?") is None


def test_an_open_range_asked_keeps_the_groups_from_its_start_to_the_last_or_from_the_first(residents: Library) -> None:
    """"aged 40 and over" is the 40 - 49 group and the open "50 years and over"; "under 20" the groups from the first
    ("Under 10 years") to 19; "aged 45 and over" starts inside a group: no plan adds it up."""
    answer = ask_without_model(residents, "How many residents of Eastholm were aged 40 and over?")
    assert answer.value == f"{1_391 + 2_046:,}", answer.text
    answer = ask_without_model(residents, "How many Eastholm residents were under 20?")
    assert answer.value == f"{1_204 + 1_310:,}", answer.text
    assert _plan(residents, "How many residents of Eastholm were aged 45 and over?") is None


@pytest.fixture(scope="module")
def by_year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Ailment", "Course year 1st year", "Course year 2nd year", "Course year 3rd year"],
            ["Hay fever", "14", "22", "9"], ["Migraine", "30", "18", "11"], ["Insomnia", "25", "27", "16"]]
    yield from _drawn(tmp_path_factory, "Table 5: Ailments by course year", rows, [40, 160, 280, 400, 520])


def test_columns_under_one_heading_named_by_their_own_words_are_added_across(by_year: Library) -> None:
    answer = ask_without_model(by_year, "How many first and second year students together reported migraine?")
    assert answer.value == "48", answer.text


@pytest.fixture(scope="module")
def savers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Survey wave", "Months saved", "Freq.", "Percent"],
            ["Wave 2019", "None", "212", "21.2"], ["Wave 2019", "Some", "505", "50.5"], ["Wave 2019", "Every", "283", "28.3"]]
    yield from _drawn(tmp_path_factory, "Table 3: Saving habits. The frequency and the proportion of households by how "
                                        "often they saved", rows, [40, 160, 280, 400, 520])


def test_the_rows_of_a_frequency_table_are_no_things_counted(savers: Library) -> None:
    """A caption saying the table gives "the frequency and the proportion of households" says its figures count the
    households: "how many households" is no count of the table's rows (3), whatever else it reads."""
    answer = ask_code_first(savers, "How many households in the 2019 wave saved in some months?")
    assert answer.value in ("", "505"), answer.text


@pytest.fixture(scope="module")
def permits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Permit no.", "Company", "Town", "Units"], ["2021-014", "Harrow Builders", "Elmstead", "12"],
            ["2021-015", "Copse Homes", "Dunwich", "40"], ["2021-016", "Harrow Builders", "Dunwich", "8"]]
    yield from _drawn(tmp_path_factory, "Table 1: Building permits issued, 2021", rows, [40, 150, 300, 420, 520])


def test_which_company_a_numbered_row_names_is_read_off_that_row(permits: Library) -> None:
    """"Which company was granted permit 2021-015": the row whose number the question gives (no year 2021 asked),
    its company; "which firm obtained ..." too; "which company was granted the permit" names no row, and is not
    every company listed."""
    answer = ask_without_model(permits, "Which company was granted permit 2021-015?")
    assert answer.value == "Copse Homes", answer.text
    answer = ask_without_model(permits, "Which firm obtained permit 2021-016?")
    assert answer.value == "Harrow Builders", answer.text
    planned = _plan(permits, "Which company was granted the permit?")
    assert planned is None or planned.operation != "list"


def test_who_did_what_a_numbered_row_says_is_the_name_that_row_prints(permits: Library) -> None:
    """"Who obtained permit 2021-014": the one column saying who each row is (Company), of the row the number
    names; the most units asked by "who" ranks the same names."""
    answer = ask_without_model(permits, "Who obtained permit 2021-014?")
    assert answer.value == "Harrow Builders", answer.text
    answer = ask_without_model(permits, "Who obtained the most units?")
    assert answer.value == "Copse Homes", answer.text


# condition: (suffered from, followed treatment) as a count and as a percentage of pupils (made up)
CONDITIONS = {"Migraine": ((64, 30), (12.8, 6.0)), "Asthma": ((41, 38), (8.2, 7.6)), "Eczema": ((77, 52), (15.4, 10.4))}


@pytest.fixture(scope="module")
def conditions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Condition", "Figure", "Suffered from", "Followed treatment"]] + [
        [name, kind, f"{suffered:g}", f"{treated:g}"]
        for name, figures in CONDITIONS.items() for kind, (suffered, treated) in zip(("Count", "Percentage"), figures)]
    yield from _drawn(tmp_path_factory, "Table 6: Illnesses of pupils and their treatment", rows, [40, 160, 280, 400, 520])


def test_a_column_headed_by_a_verb_in_the_past_is_named_in_the_present(conditions: Library) -> None:
    answer = ask_without_model(conditions, "Which conditions did more than 50 pupils suffer from?")
    assert set(answer.parts) == {"Migraine", "Eczema"}, answer.text  # the Count rows past 50, never the Percentage ones


# measure: for each forecasting method compared (made up), as a paper's results table prints them
METHODS = ("Naive", "Holt", "Theta", "Prophet")
MEASURES = {"RMSE": (14.2, 9.8, 8.7, 11.5), "MAE": (10.1, 7.2, 6.9, 8.8), "No. of tuning knobs": (0, 2, 1, 12)}


@pytest.fixture(scope="module")
def forecasts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Measure", *METHODS]] + [[name, *(f"{v:g}" for v in figures)] for name, figures in MEASURES.items()]
    yield from _drawn(tmp_path_factory, "Table 3: Accuracy of the forecasting methods on the hold-out weeks", rows,
                      [40, 200, 280, 360, 440, 520])


def test_things_compared_across_the_top_are_ranked_and_listed_by_a_measure_down_the_side(forecasts: Library) -> None:
    """A results table prints the methods compared across the top and their measures down the side: "which method
    has the lowest RMSE" reads the RMSE row across the columns and names a column; "which methods have more than 1
    tuning knob" keeps the columns past the bound on the row the label "No. of tuning knobs" names."""
    answer = ask_without_model(forecasts, "Which method has the lowest RMSE?")
    assert answer.value == "Theta", answer.text
    answer = ask_without_model(forecasts, "Which methods have more than 1 tuning knob?")
    assert set(answer.parts) == {"Holt", "Prophet"}, answer.text
    answer = ask_without_model(forecasts, "Name the two methods with the highest MAE.")
    assert set(answer.parts) == {"Naive", "Prophet"}, answer.text


def test_a_row_compared_with_another_or_a_column_named_turns_no_table(forecasts: Library) -> None:
    """Two rows named ("a lower MAE than RMSE") are what the question compares, and a column named ("Holt") is one
    of the things compared picked out: the table is read as printed, never turned for them."""
    view = load_table_view(forecasts, forecasts.tables()[0])
    assert measures_across(view, "Which method has the lowest RMSE?") is not None
    assert measures_across(view, "Which methods had a lower MAE than RMSE?") is None
    assert measures_across(view, "Was the RMSE of Holt the lowest?") is None
    assert measures_across(view, "Which method is the most accurate?") is None


# buoy: distance from the harbour (km), drift (speed, km/h), depth of water (m) (made up)
BUOYS = {"Alpha": (3.2, 1.4, 18), "Bravo": (12.5, 0.6, 40), "Charlie": (7.8, 2.9, 25), "Delta": (21.0, 1.1, 62),
         "Echo": (4.4, 3.3, 12)}


@pytest.fixture(scope="module")
def buoys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Buoy", "Distance", "Velocity", "Depth"]] + [[name, f"{d:g}", f"{v:g}", str(m)] for name, (d, v, m) in BUOYS.items()]
    yield from _drawn(tmp_path_factory, "Table 9: Drifting buoys off the harbour", rows, [40, 200, 300, 400, 500])


def test_a_comparative_or_superlative_of_a_measure_reads_its_column(buoys: Library) -> None:
    """"Closer than 5" is a distance below 5, "drifting faster than 2" a speed (a Velocity column) above 2, "the two
    most distant" the two farthest, "deeper than 30" a depth above 30, and "how far away from" a distance."""
    answer = ask_without_model(buoys, "Which buoys lie closer than 6?")
    assert set(answer.parts) == {"Alpha", "Echo"}, answer.text
    answer = ask_without_model(buoys, "List the buoys drifting faster than 2")
    assert set(answer.parts) == {"Charlie", "Echo"}, answer.text
    answer = ask_without_model(buoys, "Name the two most distant buoys")
    assert set(answer.parts) == {"Delta", "Bravo"}, answer.text
    answer = ask_without_model(buoys, "How many buoys lie deeper than 30?")
    assert answer.value == "2", answer.text
    answer = ask_without_model(buoys, "How far away from the harbour is buoy Charlie?")
    assert answer.value == "7.8", answer.text


def test_the_unit_a_bound_is_said_in_is_no_column_left_unread(buoys: Library) -> None:
    """"Deeper than 30 metres", "a distance under 5 km": the unit says how the bound is measured, and the table's
    column of depths (distances) is read without it."""
    answer = ask_without_model(buoys, "Which buoys have a depth above 30 metres?")
    assert set(answer.parts) == {"Bravo", "Delta"}, answer.text
    answer = ask_without_model(buoys, "How many buoys have a distance under 5 km?")
    assert answer.value == "2", answer.text


# station: lowest temperature in March and in June (made up)
FROSTS = {"Ashby": (-6, 4), "Burnside": (-11, 2), "Cranford": (-3, 7), "Dalwood": (-8, 1)}


@pytest.fixture(scope="module")
def frosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Station", "March", "June"]] + [[name, str(a), str(b)] for name, (a, b) in FROSTS.items()]
    yield from _drawn(tmp_path_factory, "Table 5: Lowest temperatures at the weather stations", rows)


def test_a_superlative_of_what_the_table_measures_ranks_the_column_named(frosts: Library) -> None:
    """"The coldest June minimum" over a table of temperatures by month: the lowest of the June column (the superlative
    says how the table's measure is ranked, no column it leaves unread); "the warmest" the highest."""
    answer = ask_without_model(frosts, "Which station had the coldest June minimum?")
    assert answer.value == "Dalwood", answer.text
    answer = ask_without_model(frosts, "Which station had the warmest March minimum?")
    assert answer.value == "Cranford", answer.text


# kernel: speedup over the plain build, printed as a multiple (made up)
KERNELS = {"fft-radix": "3.40x", "matmul-tiled": "6.05x", "sort-bitonic": "1.75x", "scan-prefix": "2.60x",
           "hash-probe": "0.91x"}


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Kernel", "Speedup"]] + [[name, speedup] for name, speedup in KERNELS.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Kernels compiled with the new pass", rows)


def test_a_bound_said_as_a_multiple_keeps_the_rows_past_it(kernels: Library) -> None:
    """Speedups printed as multiples ("3.40x") are figures; "more than a 3x speedup" keeps those above 3, and the share
    of rows "above 2x" is of the rows past 2."""
    answer = ask_without_model(kernels, "Which kernels reached more than a 3x speedup?")
    assert set(answer.parts) == {"fft-radix", "matmul-tiled"}, answer.text
    answer = ask_without_model(kernels, "What percentage of kernels have speedups above 2x?")
    assert answer.value == "60%", answer.text
