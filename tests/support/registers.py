"""Register-style public documents that are not financial statements, drawn with the report builder.

Three kinds people drop into Folio and ask about row by row:

- ``build_notice_register``: a state labour department's register of layoff notices, one row per notice
  (number, date received, company, city, type, effective date, employees affected), about a hundred
  rows running over three pages under a repeated header, with the rules in prose above it;
- ``build_referendum_results``: a town's official referendum results, one ballot question per page, each
  printed as the same table of polling stations (registered electors, yes, no, blank, total, turnout)
  with a totals row;
- ``build_harvest_report``: a provincial harvest report printed in European number format
  (``27.715,5``), whose main table has a two-row header (a crop over its area and production columns),
  and a livestock table beside it.

The names and figures are made up from a seeded generator (varied, not shaped to any question) and
are the same for a seed; ``tests/bench/bench_tables.py`` puts them in its library, and the golds of
``tests/bench/data/tables_*.jsonl`` were read off the pages they draw.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from tests.support.report_builder import Block, BuildResult, Heading, PageBreak, TableSpec, build_report

# --------------------------------------------------------------------------------------------------
# A register of layoff notices
# --------------------------------------------------------------------------------------------------

_EMPLOYERS = (
    "Harlow Foods Inc.", "Brightwater Logistics LLC", "Cedar Ridge Medical Center", "Northgate Plastics Corp.",
    "Silverline Call Services", "Tamarack Paper Mill", "Quincy Tool & Die Co.", "Redfern Retail Group",
    "Oakmont Hotel & Suites", "Pioneer Aerospace Components", "Lakeshore Printing Co.", "Vantage Home Furnishings",
    "Bellweather Bakeries", "Granite Textiles Ltd.", "Summit Freight Systems", "Meadowbrook Nursing Home",
    "Ironwood Castings", "Blue Heron Seafood", "Crescent Pharmacy Stores", "Westfield Auto Parts",
    "Evergreen Call Center", "Kingsley Office Supply", "Maple Leaf Dairy Co-op", "Orion Semiconductor",
    "Prairie Wind Energy", "Riverbend Furniture", "Sterling Bank Operations", "Trident Marine Services",
    "Union Street Brewery", "Valley Fresh Produce", "Whitman Glass Works", "Yorktown Cinemas",
)
_CITIES = ("Fairview", "Riverton", "Ashland", "Milford", "Clayton", "Georgetown", "Salem", "Madison",
           "Franklin", "Greenville", "Oxford", "Dover")
_NOTICE_TYPES = ("Layoff", "Layoff", "Layoff", "Closure", "Closure", "Relocation")


def notice_rows(seed: int = 2015, count: int = 96) -> list[list[str]]:
    """The register's rows in the order notices were received over one year."""
    rng = random.Random(seed)
    # A few employers file again and again (a plant closing in stages), most once or twice.
    weights = [rng.choice((1, 1, 1, 2, 2, 3, 6)) for _ in _EMPLOYERS]
    home = {name: rng.choice(_CITIES) for name in _EMPLOYERS}
    start = dt.date(2015, 1, 2)
    days = sorted(rng.randrange(0, 362) for _ in range(count))
    rows = []
    for number, offset in enumerate(days, 1):
        employer = rng.choices(_EMPLOYERS, weights)[0]
        # A chain may close a site in another city than its home one.
        city = home[employer] if rng.random() < 0.75 else rng.choice(_CITIES)
        kind = rng.choice(_NOTICE_TYPES)
        employees = max(4, int(rng.lognormvariate(4.2, 0.85)))
        received = start + dt.timedelta(days=offset)
        effective = received + dt.timedelta(days=rng.choice((60, 60, 61, 63, 67, 74, 90)))
        rows.append([f"2015-{number:03d}", received.strftime("%m/%d/%Y"), employer, city, kind,
                     effective.strftime("%m/%d/%Y"), f"{employees:,}"])
    return rows


def build_notice_register(path: Path, seed: int = 2015) -> BuildResult:
    """The layoff-notice register of one year (about three pages)."""
    rows = notice_rows(seed)
    total = sum(int(r[6].replace(",", "")) for r in rows)
    intro = [
        ("The Worker Adjustment and Retraining Notification (WARN) Act requires an employer with 100 or more "
         "full-time employees to give 60 calendar days' written notice before a plant closing or a mass layoff. "
         "Notices are sent to the affected workers, to the chief elected official of the local government and "
         "to the State Dislocated Worker Unit, which publishes this register."),
        (f"This register lists the {len(rows)} notices received between January 1 and December 31, 2015, in "
         f"the order they were received. Together they reported {total:,} employees affected. The number of "
         "employees affected is the employer's estimate at the time of the notice; later amendments are not "
         "shown. A notice of type Relocation moves the work to another site more than 50 miles away."),
        ("Questions about a notice may be addressed to the Rapid Response team at the Department of Labor "
         "and Workforce Development, which offers information sessions to affected workers within two weeks "
         "of receiving a notice."),
    ]
    table = TableSpec(
        "WARN notices received in 2015",
        [["Notice no.", "Date received", "Company", "City", "Type", "Effective date", "Employees affected"]],
        rows, ruled=True, col_widths=[1.0, 1.15, 3.1, 1.25, 1.05, 1.15, 1.1])
    return build_report(path, "State Dislocated Worker Unit: Register of WARN Notices, 2015",
                        [Heading("About this register"), *intro, table],
                        running_header="Department of Labor and Workforce Development")


# --------------------------------------------------------------------------------------------------
# Referendum results: one table of one layout per page
# --------------------------------------------------------------------------------------------------

_STATIONS = ("1 Town Hall", "2 Saint-Roch School", "3 Les Tilleuls Community Centre", "4 Harbour Fire Station",
             "5 Old Mill Library", "6 Parc Montclair Pavilion", "7 Sainte-Anne Church Hall",
             "8 North Ridge Gymnasium", "9 Postal votes")
_BALLOT_QUESTIONS = (
    "Question 1: Should the town build a covered market hall on Place du Marché?",
    "Question 2: Should the tram line be extended to Les Tanneries?",
    "Question 3: Should the municipal swimming pool open on Sundays all year?",
    "Question 4: Should parking on the harbour front be limited to residents in summer?",
    "Question 5: Should the town merge its fire service with Saint-Aubin's?",
)


def referendum_tables(seed: int = 2023) -> list[tuple[str, list[list[str]]]]:
    """Per ballot question, its caption and its rows (stations, then the totals row)."""
    rng = random.Random(seed)
    registered = [rng.randint(1_400, 3_900) for _ in _STATIONS[:-1]] + [rng.randint(900, 1_400)]
    base_turnout = [rng.uniform(0.48, 0.72) for _ in _STATIONS]
    tables = []
    for caption in _BALLOT_QUESTIONS:
        leaning = rng.uniform(0.32, 0.68)
        rows, totals = [], [0, 0, 0, 0, 0]
        for station, electors, turnout in zip(_STATIONS, registered, base_turnout):
            voted = int(electors * min(0.9, max(0.3, turnout + rng.uniform(-0.05, 0.05))))
            blank = int(voted * rng.uniform(0.01, 0.05))
            yes = int((voted - blank) * min(0.9, max(0.1, leaning + rng.uniform(-0.12, 0.12))))
            no = voted - blank - yes
            figures = [electors, yes, no, blank, voted]
            totals = [t + f for t, f in zip(totals, figures)]
            rows.append([station, *[f"{f:,}" for f in figures], f"{voted / electors * 100:.1f}"])
        rows.append(["Total", *[f"{f:,}" for f in totals], f"{totals[4] / totals[0] * 100:.1f}"])
        tables.append((caption, rows))
    return tables


def build_referendum_results(path: Path, seed: int = 2023) -> BuildResult:
    """The official results, one ballot question per page."""
    header = [["Polling station", "Registered", "Yes", "No", "Blank", "Total votes", "Turnout (%)"]]
    widths = [3.2, 1.2, 1.0, 1.0, 0.9, 1.2, 1.1]
    tables = referendum_tables(seed)
    blocks: list[Block] = [
        ("Official results of the local referendum held on Sunday 14 May 2023, as proclaimed by the "
         "returning officer on 15 May 2023. Five questions were put to the electors of the town; each page "
         "gives the results of one question by polling station. Postal votes are counted as a station of "
         "their own. A question is approved when the yes votes exceed the no votes; blank ballots are counted "
         "in the total votes but not in the result."),
    ]
    for number, (caption, rows) in enumerate(tables):
        if number:
            blocks.append(PageBreak())
        blocks.append(Heading(f"Results of question {number + 1}"))
        blocks.append(TableSpec(caption, header, rows, ruled=True, col_widths=widths))
        blocks.append("Certified by the returning officer. Figures by polling station are final.")
    return build_report(path, "Town of Belmont Harbour: Local Referendum of 14 May 2023, Official Results",
                        blocks, running_header="Belmont Harbour Town Clerk's Office")


# --------------------------------------------------------------------------------------------------
# A harvest report in European number format
# --------------------------------------------------------------------------------------------------

_PROVINCES = ("Noordveld", "Westerhoek", "Zuidmeer", "Oostland", "Heidebroek", "Kempenaar", "Rivierenzand",
              "Duinkust", "Polderwaard", "Hoogveen", "Maasdal", "Bosrand")
_CROPS = (("Wheat", 6.4, 9.6), ("Barley", 5.2, 8.1), ("Maize", 8.5, 12.4))


def european(value: float, decimals: int = 0) -> str:
    """A number as the report prints it: dots between thousands, a decimal comma."""
    text = f"{value:,.{decimals}f}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def harvest_tables(seed: int = 2023) -> tuple[list[list[str]], list[list[str]], dict[str, float]]:
    """The crop table's rows, the livestock table's rows and the totals the prose quotes."""
    rng = random.Random(seed)
    crop_rows, livestock_rows = [], []
    totals = {f"{crop} {part}": 0.0 for crop, _, _ in _CROPS for part in ("area", "production")}
    for province in _PROVINCES:
        row = [province]
        for crop, low, high in _CROPS:
            area = round(rng.uniform(800, 42_000) * (0.4 if crop == "Maize" and rng.random() < 0.4 else 1), 1)
            production = int(area * rng.uniform(low, high))
            totals[f"{crop} area"] += area
            totals[f"{crop} production"] += production
            row += [european(area, 1), european(production)]
        crop_rows.append(row)
        cattle, pigs = rng.uniform(8, 160), rng.uniform(20, 900)
        sheep, poultry = rng.uniform(1, 40), rng.uniform(150, 6_500)
        livestock_rows.append([province, *[european(v, 1) for v in (cattle, pigs, sheep, poultry)]])
    crop_rows.append(["Total", *[european(totals[f"{c} {p}"], 1 if p == "area" else 0)
                                 for c, _, _ in _CROPS for p in ("area", "production")]])
    return crop_rows, livestock_rows, totals


def build_harvest_report(path: Path, seed: int = 2023) -> BuildResult:
    """The harvest report: prose, the crop table under a two-row header, the livestock table."""
    crop_rows, livestock_rows, totals = harvest_tables(seed)
    header = [["Province", "Wheat", "", "Barley", "", "Maize", ""],
              ["", "Area (ha)", "Production (t)", "Area (ha)", "Production (t)", "Area (ha)", "Production (t)"]]
    wheat_yield = totals["Wheat production"] / totals["Wheat area"]
    blocks: list[Block] = [
        Heading("1. Summary"),
        (f"The 2023 harvest was brought in under dry conditions in the south and a wet August in the north. "
         f"Wheat was grown on {european(totals['Wheat area'], 1)} ha and production reached "
         f"{european(totals['Wheat production'])} t, an average yield of {european(wheat_yield, 2)} t/ha. "
         f"Barley covered {european(totals['Barley area'], 1)} ha. Maize, sown late after the spring rains, "
         f"gave {european(totals['Maize production'])} t."),
        ("Figures are provisional and based on the June crop survey of 4.812 holdings and on the deliveries "
         "registered by collecting merchants up to 31 October 2023. Areas are in hectares, production in "
         "tonnes at standard moisture; numbers are printed with a decimal comma."),
        Heading("2. Arable crops"),
        TableSpec("Table 1: Area and production of cereals by province, 2023", header, crop_rows, ruled=True,
                  col_widths=[1.6, 1.15, 1.3, 1.15, 1.3, 1.15, 1.3]),
        Heading("3. Livestock"),
        ("Livestock numbers are those of the census of 1 December 2023 and are given in thousands of head."),
        TableSpec("Table 2: Livestock by province, 1 December 2023 (thousand head)",
                  [["Province", "Cattle", "Pigs", "Sheep", "Poultry"]], livestock_rows, ruled=False),
    ]
    return build_report(path, "Provincial Statistics Office: Harvest Report 2023", blocks,
                        running_header="Provincial Statistics Office \u2014 Agriculture")
