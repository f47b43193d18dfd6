"""Regenerate resources/sample_report.pdf, the small fictional report shipped for a first try of Folio.

"Northwind Regional Council — Annual Report 2024": a few pages of prose with four tables (a ruled
budget by department in $ thousands, a borderless headcount table, a percent table of service
indicators, a ruled capital works table), so a new user can ask "What was the total budget in 2024?"
or "Which department grew most?". Totals and changes are computed here, so the prose and the tables
agree. Run: ``python packaging/make_sample_report.py [output.pdf]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(REPO))

from tests.support.report_builder import BuildResult, Heading, TableSpec, build_report

TITLE = "Northwind Regional Council \u2014 Annual Report 2024"
OUTPUT = REPO / "resources" / "sample_report.pdf"

# Operating budget by department, $ thousands: (department, 2023, 2024).
BUDGET = [
    ("Roads and Transport", 48_250, 51_870),
    ("Water and Wastewater", 39_400, 42_115),
    ("Waste Management", 17_960, 18_420),
    ("Parks and Recreation", 12_830, 14_905),
    ("Libraries and Culture", 6_410, 6_380),
    ("Community Services", 15_275, 17_640),
    ("Planning and Building", 8_120, 8_455),
    ("Emergency Management", 4_390, 5_210),
    ("Corporate Services", 21_560, 20_985),
]

# Staff at 30 June: (department, 2023, 2024, vacancies).
HEADCOUNT = [
    ("Roads and Transport", 212, 219, 6),
    ("Water and Wastewater", 148, 151, 4),
    ("Waste Management", 96, 94, 2),
    ("Parks and Recreation", 121, 133, 5),
    ("Libraries and Culture", 64, 62, 1),
    ("Community Services", 142, 155, 9),
    ("Planning and Building", 58, 61, 3),
    ("Emergency Management", 27, 31, 2),
    ("Corporate Services", 176, 168, 4),
]

# Service indicators: (indicator, target %, 2023 %, 2024 %).
INDICATORS = [
    ("Potholes repaired within 5 working days", 90.0, 84.5, 91.2),
    ("Drinking water samples meeting standards", 100.0, 99.8, 100.0),
    ("Household waste diverted from landfill", 55.0, 48.3, 52.7),
    ("Building consents issued within 20 days", 95.0, 88.1, 93.6),
    ("Library items issued digitally", 30.0, 26.4, 31.9),
    ("Residents satisfied with parks", 85.0, 82.0, 86.5),
    ("Calls answered within 60 seconds", 80.0, 71.2, 77.8),
]

# Capital works, $ thousands: (project, budget, spent to 30 June 2024, status).
CAPITAL = [
    ("Harbour Road bridge renewal", 12_400, 9_860, "On track"),
    ("Eastside reservoir upgrade", 8_750, 8_910, "Complete"),
    ("Millbrook library extension", 3_200, 1_145, "Delayed"),
    ("Cycleway network stage 2", 5_600, 2_980, "On track"),
    ("Recycling centre sorting line", 2_150, 2_090, "Complete"),
    ("Stormwater pipes, Kowhai Street", 1_980, 640, "On track"),
]


def _thousands(value: int) -> str:
    return f"({abs(value):,})" if value < 0 else f"{value:,}"


def _change(before: float, after: float) -> str:
    percent = (after - before) / before * 100
    return f"({abs(percent):.1f}%)" if percent < 0 else f"{percent:.1f}%"


def build(path: Path = OUTPUT) -> BuildResult:
    total_2023 = sum(b for _, b, _ in BUDGET)
    total_2024 = sum(a for _, _, a in BUDGET)
    fastest = max(BUDGET, key=lambda row: (row[2] - row[1]) / row[1])
    staff_2023 = sum(row[1] for row in HEADCOUNT)
    staff_2024 = sum(row[2] for row in HEADCOUNT)
    met = sum(1 for _, target, _, now in INDICATORS if now >= target)
    met_before = sum(1 for _, target, before, _ in INDICATORS if before >= target)
    shrank = [name for name, before, after in BUDGET if after < before]
    grew_most = sorted(HEADCOUNT, key=lambda row: row[2] - row[1], reverse=True)[:2]

    budget = TableSpec(
        caption="Table 1: Operating budget by department ($ thousands)",
        header=[["Department", "2023", "2024", "Change"]],
        rows=[[name, _thousands(before), _thousands(after), _change(before, after)] for name, before, after in BUDGET]
        + [["Total", _thousands(total_2023), _thousands(total_2024), _change(total_2023, total_2024)]],
        ruled=True,
    )
    headcount = TableSpec(
        caption="Table 2: Staff by department (headcount)",
        header=[["", "Headcount at 30 June", "", "Vacancies"], ["Department", "2023", "2024", ""]],
        rows=[[name, f"{before:,}", f"{after:,}", f"{open_:,}"] for name, before, after, open_ in HEADCOUNT]
        + [["Total", f"{staff_2023:,}", f"{staff_2024:,}", f"{sum(row[3] for row in HEADCOUNT):,}"]],
        ruled=False,
    )
    indicators = TableSpec(
        caption="Table 3: Service performance indicators (%)",
        header=[["Indicator", "Target", "2023", "2024"]],
        rows=[[name, f"{target:.0f}%", f"{before:.1f}%", f"{now:.1f}%"] for name, target, before, now in INDICATORS],
        ruled=True,
        col_widths=[3.2, 1, 1, 1],
    )
    capital = TableSpec(
        caption="Table 4: Major capital works ($ thousands)",
        header=[["Project", "Budget", "Spent to 30 June 2024", "Status"]],
        rows=[[name, _thousands(cost), _thousands(spent), status] for name, cost, spent, status in CAPITAL],
        ruled=True,
        col_widths=[3.0, 1.1, 1.6, 1.1],
    )

    blocks = [
        ("This report describes what Northwind Regional Council did in the year ended 30 June 2024, what it "
        "cost, and how well our services performed against the targets set in the Long-Term Plan. The council "
        "serves about 184,000 residents across the coastal towns of Millbrook, Eastside and Harbourview and "
        "the farming districts inland. Northwind is a fictional council; this report is a sample for Folio."),
        Heading("1. Message from the Chief Executive"),
        ("It was a year of catching up. Storm damage from the winter of 2023 kept road crews busy well into "
        "spring, and the Harbour Road bridge renewal, our largest project, passed the halfway mark. At the same "
        "time we held the line on corporate costs, which fell for the second year in a row, so that more of "
        "every rates dollar went to front-line services."),
        ("Recruitment remained difficult in engineering and community roles, but we ended the year with more "
        "staff than we started with and fewer vacancies than at any time since 2021. I thank our staff, our "
        "elected members and the many community groups who worked with us."),
        Heading("2. Where the money went"),
        ("The operating budget covers the day-to-day running of council services. It is funded mainly by rates "
        "(71%), fees and charges (18%) and government grants (11%). Table 1 compares the budget of each "
        "department in 2024 with the year before; amounts are in thousands of dollars."),
        budget,
        (f"The total operating budget rose from ${total_2023:,} thousand in 2023 to ${total_2024:,} thousand in "
        f"2024, an increase of {_change(total_2023, total_2024)}. {fastest[0]} grew fastest, by "
        f"{_change(fastest[1], fastest[2])}, as new sports fields and the Eastside playground opened. "
        f"{' and '.join(shrank)} were the only departments to spend less than in 2023."),
        Heading("3. Our people"),
        ("Table 2 shows the number of staff employed in each department on 30 June, and the positions that were "
        "vacant on that date. Headcount includes permanent and fixed-term staff but not contractors."),
        headcount,
        (f"Overall headcount grew from {staff_2023:,} to {staff_2024:,}. Most of the growth was in "
        f"{grew_most[0][0]}, where a new housing support team was set up, and in {grew_most[1][0]}."),
        Heading("4. Service performance"),
        (f"We report seven indicators of service quality to residents. In 2024 we met {met} of the "
        f"{len(INDICATORS)} targets, against {met_before} in 2023. Table 3 lists each indicator with its target and "
        "the result in the last two years, as percentages."),
        indicators,
        ("Call answering remains below target after the move to a new telephone system in March; the contact "
        "centre has since added evening shifts. Waste diversion improved after kerbside food scrap collection "
        "was extended to Harbourview."),
        Heading("5. Capital works"),
        ("Capital spending builds and renews the assets that services depend on: roads, bridges, pipes, "
        "libraries and parks. Table 4 shows progress on the six largest projects at 30 June 2024."),
        capital,
        ("The Eastside reservoir upgrade finished slightly over budget because of higher steel prices. The "
        "Millbrook library extension is running about six months late after the main contractor went into "
        "receivership; a new contractor started work in May."),
        Heading("6. Looking ahead"),
        ("The 2025 budget, adopted in June, keeps the average rates increase to 4.9%. Priorities for the coming "
        "year are finishing the Harbour Road bridge, starting stage 3 of the cycleway network, and lifting "
        "call answering performance to target. We will report on all of these in next year's annual report."),
    ]
    return build_report(path, TITLE, blocks, running_header=TITLE)


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else OUTPUT
    result = build(path)
    print(f"wrote {result.path} ({result.page_count} pages, {len(result.tables)} tables, "
          f"{result.seconds * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
