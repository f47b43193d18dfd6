"""Routing: a question's issuer and period choose the documents before any table or passage is searched,
and the filing of the period asked is preferred to a later filing's comparative column."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from core.answering import Answerer
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.reports.document_metadata import DocumentMetadata
from core.search.retrieval import Retriever
from core.search.routing import (
    Route,
    RoutedDocument,
    allowed_documents,
    issuer_names,
    question_scope,
    route,
    route_by_passages,
    with_issuer_names,
)
from core.search.subjects import DocumentProfile
from core.sql.runner import SqlRunner
from tests.core.answering.test_answering_library import ScriptedChat
from tests.support.report_builder import Section, TableSpec, build_report

pytestmark = pytest.mark.unit

FILINGS = Path(__file__).resolve().parents[4] / "shared" / "bench" / "financebench-dev"


def _doc(i: int, issuer: str, doc_type: str, year: int, quarter: int | None = None, summary: str = "") -> RoutedDocument:
    period = f"Q{quarter} FY{year}" if quarter else f"FY{year}"
    return RoutedDocument(i, f"doc{i}.pdf", DocumentMetadata(issuer, doc_type, period, year, quarter, summary=summary))


SEC_LIBRARY = [
    _doc(1, "3M COMPANY", "10-K", 2018), _doc(2, "3M COMPANY", "10-K", 2022),
    _doc(3, "ADOBE SYSTEMS INCORPORATED", "10-K", 2015), _doc(4, "ADOBE SYSTEMS INCORPORATED", "10-K", 2016),
    _doc(5, "ADOBE INC.", "10-K", 2022),
    _doc(6, "BEST BUY CO., INC.", "10-K", 2023), _doc(7, "BEST BUY CO., INC.", "10-Q", 2024, 2),
    _doc(8, "AMCOR PLC", "10-K", 2023), _doc(9, "AMCOR PLC", "10-Q", 2023, 2), _doc(10, "AMCOR PLC", "8-K", 2022),
    _doc(11, "GENERAL MILLS, INC.", "10-K", 2019), _doc(12, "GENERAL MILLS, INC.", "10-K", 2020),
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was the FY2018 dividend payout (in USD thousands) for 3M?", (1,)),
        ("Was 3M a high-margin business judging by its FY2022 results?", (2,)),
        ("How did Adobe's gross profit change between FY2015 and FY2016?", (4,)),
        ("Did Best Buy's Inventories & Receivables fall between FY 2023 and Q2 of FY2024?", (7,)),
        ("What made up AMCOR's accrued interest as of Q2 of FY2023 close?", (9,)),
        ("What did AMCOR announce in its 8k filing of 1st July 2022?", (10,)),
        ("What was General Mills's FY2020 quick ratio?", (12,)),
        # No FY2021 filing: the FY2022 filing's comparative column is the nearest that holds it.
        ("What was Adobe's revenue in fiscal 2021?", (5,)),
        # Two issuers named: one filing each.
        ("Compare 3M's and General Mills's capex in FY2019 and FY2018", (11,)),
    ],
)
def test_the_filing_of_the_issuer_and_period_asked(question: str, expected: tuple[int, ...]) -> None:
    assert route(question, SEC_LIBRARY).document_ids == expected


def test_the_filing_of_the_period_beats_a_later_filings_comparatives() -> None:
    library = [_doc(1, "Acme Corp", "10-K", 2017), _doc(2, "Acme Corp", "10-K", 2018), _doc(3, "Acme Corp", "10-K", 2019)]
    assert route("Acme capex in FY2018?", library).document_ids == (2,)
    assert route("Acme capex in FY2018?", [library[0], library[2]]).document_ids == (3,)  # comparatives, said why
    assert "comparatives" in route("Acme capex in FY2018?", [library[0], library[2]]).reason
    assert route("Acme capex in FY2014?", library).document_ids == (1, 2, 3)  # nothing holds it: the issuer's all


def test_the_capitalised_head_of_a_compound_word_names_no_issuer() -> None:
    """An issuer read as "Non-recourse Lending Partners" is not named by the "Non" of "Non-current liabilities", nor
    "Long Harbour Ferries" by "Long-term debt"; "Long Harbour" written as a name still names it."""
    labels = ("Non-current liabilities Long-term debt Revenue Cost of sales Current liabilities Trade payables "
              "Inventories Cash")
    library = [dataclasses.replace(d, profile=DocumentProfile(labels=labels)) for d in (
        _doc(1, "Non-recourse Lending Partners", "annual report", 2019),
        _doc(2, "Long Harbour Ferries", "annual report", 2019), _doc(3, "Acme Corp", "annual report", 2019),
        _doc(4, "Borealis Foods plc", "annual report", 2019))]
    assert route("By how much did Non-current liabilities move from 2018 to 2019?", library).document_ids != (1,)
    assert route("What was the average Long-term debt in 2019?", library).document_ids != (2,)
    assert route("What was the revenue of Long Harbour in 2019?", library).document_ids == (2,)


def test_a_question_naming_nothing_searches_everything_and_several_matches_are_said() -> None:
    assert route("What is the operating margin?", SEC_LIBRARY).document_ids is None
    amcor = route("What industry does AMCOR primarily operate in?", SEC_LIBRARY)
    # No period asked: the annual report answers, the issuer's other documents are offered instead.
    assert amcor.document_ids == (8,) and set(amcor.matched) == {8, 9, 10} and not amcor.decisive
    assert [a.document_id for a in amcor.alternatives([8])] == [9, 10]
    assert amcor.note([8]) == ("Answered from AMCOR PLC, 10-K, FY2023 (also matching: AMCOR PLC, 10-Q, Q2 FY2023; "
                               "AMCOR PLC, 8-K, FY2022).")
    assert route("What is the FY2018 capex for 3M?", SEC_LIBRARY).note([1]) == ""  # named exactly: nothing to say


def test_councils_are_named_by_their_place_and_years_by_their_span() -> None:
    councils = [_doc(1, "Springfield City Council", "budget", 2024), _doc(2, "Springfield City Council", "budget", 2025),
                _doc(3, "Shelbyville Borough Council", "budget", 2025)]
    assert route("How much did Springfield budget for roads in 2024-25?", councils).document_ids == (2,)
    assert route("Shelbyville's library spending, second quarter of 2025", councils).document_ids == (3,)
    scope = question_scope("Q2 of FY2024 versus FY 2023 and fiscal 2019-20")
    assert (scope.year, scope.quarter) == (2024, 2) and {2023, 2020} <= set(scope.years)


# -- a generated library: three issuers, three years, one cash-flow statement each --------------------------------

ISSUERS = ("Acme Industries Inc.", "Borealis Foods plc", "Cobalt Mining Corp")


def _filing(path: Path, issuer: str, year: int) -> Path:
    seed = sum(map(ord, issuer)) + year
    capex = [f"({(seed * k) % 900 + 100:,})" for k in (3, 5)]
    table = TableSpec("Consolidated statement of cash flows (in millions of dollars)",
                      [["", f"{year}", f"{year - 1}"]],
                      [["Net cash from operating activities", f"{seed % 700 + 1200:,}", f"{seed % 650 + 1100:,}"],
                       ["Purchases of property, plant and equipment", *capex],
                       ["Net cash used in investing activities", f"({seed % 500 + 900:,})", f"({seed % 400 + 800:,})"]])
    build_report(path, f"{issuer} Annual Report {year}",
                 [Section("Cash flows", [f"{issuer} invested in its plants during fiscal {year}."], [table])])
    return path


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import HashEmbedder

    folder = tmp_path_factory.mktemp("routing")
    embedder = HashEmbedder()
    library = Library(folder / "lib" / "library.sqlite3")
    pdfs = [_filing(folder / f"{issuer.split()[0]}_{year}.pdf", issuer, year)
            for issuer in ISSUERS for year in (2017, 2018, 2019) if (issuer, year) != (ISSUERS[2], 2018)]
    results = Ingestor(library, embedder).ingest_paths(pdfs)
    ids = {r.path.stem: r.document_id for r in results}
    yield library, embedder, ids
    library.close()


def test_metadata_then_routing_on_generated_reports(generated: Any) -> None:
    library, embedder, ids = generated
    found = library.document_metadata()[ids["Borealis_2018"]]
    assert (found.issuer, found.doc_type, found.fiscal_year, found.currency, found.scale) == \
        ("Borealis Foods plc", "annual report", 2018, "$", "million")
    assert allowed_documents("What was Borealis Foods' capital expenditure in FY2018?", library) == [ids["Borealis_2018"]]
    # Cobalt has no 2018 report: its 2019 report's comparative column is the one that holds it.
    assert allowed_documents("What was Cobalt's capex in 2018?", library) == [ids["Cobalt_2019"]]
    retriever = Retriever(library.conn, embedder)
    retriever.limit_to(allowed_documents("Purchases of property, plant and equipment of Acme in 2017", library))
    chunks = retriever.search("Purchases of property, plant and equipment", k=8)
    assert chunks and {c.document_id for c in chunks} == {ids["Acme_2017"]}
    assert {c.document_id for c in retriever.search("Purchases of property, plant and equipment", k=8, wide=True)} \
        == {ids["Acme_2017"]}  # a route by issuer is never widened
    retriever.limit_to([ids["Acme_2017"]], widens=True)  # a route by subject: a wide search may look everywhere
    assert {c.document_id for c in retriever.search("Purchases of property, plant and equipment", k=8)} == \
        {ids["Acme_2017"]}
    assert len({c.document_id for c in retriever.search("Purchases of property, plant and equipment", k=20,
                                                         wide=True)}) > 1
    retriever.limit_to(None)
    assert len({c.document_id for c in retriever.search("Purchases of property, plant and equipment", k=20)}) > 1


def test_the_answer_reads_the_routed_filing_and_says_so_when_several_match(generated: Any) -> None:
    library, embedder, ids = generated
    runner = SqlRunner(library.path)
    retriever = Retriever(library.conn, embedder)

    def reply(messages: Any, schema: Any) -> str:
        return json.dumps({"action": "answer", "text": "See the cash-flow statement.", "source": "text",
                           "text_answer": "", "conflict": False, "operation": "none", "row": "", "rows": [],
                           "column": "", "sql": ""})

    chat = ScriptedChat(fallback=reply)
    answer = Answerer(library, retriever, runner, chat).answer("What were Acme's purchases of property, plant and "
                                                               "equipment in FY2018?")
    assert answer.citations and {c.document_id for c in answer.citations} == {ids["Acme_2018"]}
    assert "Answered from" not in answer.text
    several = Answerer(library, retriever, runner, chat).answer("What were Borealis purchases of property, plant and "
                                                                "equipment?")
    assert {c.document_id for c in several.citations} <= {ids[f"Borealis_{y}"] for y in (2017, 2018, 2019)}
    assert several.text.startswith("See the cash-flow statement. Answered from Borealis Foods plc, annual report, 20")
    runner.close()


@pytest.mark.skipif(not FILINGS.is_dir(), reason="the FinanceBench dev filings (../shared) are not here")
def test_real_filings_route_each_dev_question_to_its_filing() -> None:
    import pymupdf

    from core.reports.document_metadata import read_metadata
    from core.reports.document_title import document_title

    documents = []
    for i, pdf in enumerate(sorted(FILINGS.glob("*.pdf")), start=1):
        with pymupdf.open(pdf) as doc:
            pages = [doc.load_page(n).get_text() for n in range(min(12, doc.page_count))]
            documents.append(RoutedDocument(i, pdf.name, read_metadata(document_title(doc, pdf), pdf.name, pages, [], [],
                                                                      body="\n".join(pages))))
    by_name = {d.name: d.id for d in documents}
    questions = [json.loads(line) for line in (FILINGS / "questions.jsonl").read_text().splitlines() if line.strip()]
    right = 0
    for q in questions:
        routed = route(q["question"], documents)
        right += routed.document_ids is not None and routed.document_ids[0] == by_name[f"{q['doc_name']}.pdf"]
    assert right / len(questions) >= 0.9, right


def test_a_search_inside_documents_reads_their_id_ranges_or_the_whole_match_alike(generated: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import core.search.retrieval

    library, embedder, ids = generated
    retriever = Retriever(library.conn, embedder)
    inside = [ids["Acme_2018"], ids["Cobalt_2019"], ids["Borealis_2017"]]
    by_ranges = retriever.bm25("purchases of property plant equipment invested", 10, inside)
    monkeypatch.setattr(core.search.retrieval, "MAX_RANGE_QUERIES", 0)
    whole = retriever.bm25("purchases of property plant equipment invested", 10, inside)
    assert by_ranges == whole and len(by_ranges) >= 3
    assert {c.document_id for c in library.chunks([c.chunk_id for c in whole])} <= set(inside)


def test_a_document_of_unknown_period_is_never_ruled_out_by_the_period() -> None:
    office = "Calder Statistics Office"
    library = [_doc(1, office, "report", 2013),
               RoutedDocument(2, "population.pdf", DocumentMetadata(issuer=office, doc_type="report")),
               _doc(3, office, "report", 2002)]
    assert route("What was the population growth in 2001?", library).document_ids == (3, 2)


def test_a_period_alone_does_not_route_among_several_organisations_reports() -> None:
    # Reports of several organisations, or whose issuer could not be read: each may hold the year asked, and
    # a misread period (an excerpt's "2017/18") must not rule the right one out.
    unread = [_doc(1, "", "report", 2019), _doc(2, "", "10-K", 2018), _doc(3, "", "report", 2019)]
    assert route("What was the change in profit before taxation from 2018 to 2019?", unread).document_ids is None
    mixed = [_doc(1, "Calder City Council", "budget", 2019), _doc(2, "Acme Corp", "10-K", 2018)]
    assert route("What was spent on roads in 2019?", mixed).document_ids is None


def test_years_beyond_one_filings_comparatives_bring_their_own_filing() -> None:
    library = [_doc(1, "Acme Corp", "10-K", 2015), _doc(2, "Acme Corp", "10-K", 2018), _doc(3, "Acme Corp", "10-K", 2022)]
    assert route("How did Acme's capex change from FY2015 to FY2022?", library).document_ids == (3, 1)
    assert route("How did Acme's capex change from FY2021 to FY2022?", library).document_ids == (3,)  # comparatives
    assert route("Acme's capex in FY2014, FY2018 and FY2022", library).document_ids == (3, 2, 1)  # 2014: comparatives
    assert route("Acme's capex in FY2011 and FY2022", library).document_ids == (3,)  # no filing holds 2011


def test_the_issuer_the_question_names_most_fully_wins() -> None:
    library = [_doc(1, "Calder City Council", "budget", 2022), _doc(2, "Calder Statistics Office", "statistics release", 2022)]
    assert route("What were Calder Statistics Office's school places in 2022?", library).document_ids == (2,)
    assert route("What did Calder City Council spend on roads in 2022?", library).document_ids == (1,)
    assert route("Calder's statistical bulletin for 2022: school places", library).document_ids == (2,)


def test_the_other_matching_report_is_offered_and_asking_there_cites_only_it(tmp_path: Path) -> None:
    from tests.conftest import HashEmbedder

    embedder = HashEmbedder()
    library = Library(tmp_path / "lib" / "library.sqlite3")
    pdfs = [_filing(tmp_path / f"Acme_{year}.pdf", ISSUERS[0], year) for year in (2018, 2019)]
    ids = {r.path.stem: r.document_id for r in Ingestor(library, embedder).ingest_paths(pdfs)}
    runner = SqlRunner(library.path)
    retriever = Retriever(library.conn, embedder)

    def reply(messages: Any, schema: Any) -> str:
        return json.dumps({"action": "answer", "text": "See the cash-flow statement.", "source": "text",
                           "text_answer": "", "conflict": False, "operation": "none", "row": "", "rows": [],
                           "column": "", "sql": ""})

    question = "What were Acme's purchases of property, plant and equipment?"
    answer = Answerer(library, retriever, runner, ScriptedChat(fallback=reply)).answer(question)
    used = {c.document_id for c in answer.citations}
    assert len(used) == 1 and used <= set(ids.values())
    [other] = [i for i in ids.values() if i not in used]
    assert [a.document_id for a in answer.alternatives] == [other]
    assert answer.alternatives[0].name.startswith("Acme Industries Inc., annual report, 20")
    assert answer.to_json()["alternatives"] == [{"document_id": other, "name": answer.alternatives[0].name}]

    again = Answerer(library, retriever, runner, ScriptedChat(fallback=reply)).answer(question, documents=[other])
    assert again.citations and {c.document_id for c in again.citations} == {other}
    assert again.alternatives == () and "Answered from" not in again.text  # asked there: nothing more to offer
    runner.close()
    library.close()


def test_a_question_naming_no_issuer_or_period_is_routed_by_what_each_document_is_about() -> None:
    """Twelve documents of different kinds, none named: the question's subject words (weighted by how few
    documents use them) pick the register of layoff notices, not the crime report that shares "reported"."""
    def doc(i: int, name: str, captions: str) -> RoutedDocument:
        return RoutedDocument(i, name, DocumentMetadata(summary=name), DocumentProfile(captions=captions))

    documents = [
        doc(1, "warn_notices.pdf", "Register of layoff notices Company City Notice date Employees affected"),
        doc(2, "crime_weekly.pdf", "Weekly crime report Offense Reported Cleared Burglary Theft"),
        doc(3, "crop_report.pdf", "Harvest report Crop Hectares Yield tonnes per hectare"),
        doc(4, "tariff.pdf", "Energy tariff label Unit rate Standing charge"),
        doc(5, "airline_stats.pdf", "Airline traffic statistics Passengers Freight tonnes Airport"),
    ]
    route = route_question_words("How many employees were affected by layoff notices in Dayton?", documents)
    assert route.document_ids == (1,) and route.decisive
    # A year in a register's question is a column of its rows, not the period of one organisation's report.
    dated = route_question_words("How many employees were affected by layoff notices in 2015?", documents)
    assert dated.document_ids == (1,)
    shared = route_question_words("How many tonnes were recorded?", documents)  # two documents speak of tonnes
    assert set(shared.document_ids or ()) == {3, 5} and not shared.decisive
    assert route_question_words("What was recorded?", documents).document_ids is None  # no subject: everything


def route_question_words(question: str, documents: list) -> Any:  # type: ignore[type-arg]
    from core.search.routing import route

    return route(question, documents)


def test_a_trading_symbol_in_capitals_reads_as_its_issuer() -> None:
    metadata = {1: DocumentMetadata(issuer="ACME WIDGETS, INC.", ticker="ACW"),
                2: DocumentMetadata(issuer="NORTHWIND TRADERS CORPORATION", ticker="NWT"),
                3: DocumentMetadata(issuer="EPSILON HOLDINGS", ticker="EPS")}
    assert with_issuer_names("What was ACW's capex in 2021?", metadata) == "What was Acme Widgets's capex in 2021?"
    assert with_issuer_names("NWT vs ACW operating margin FY22", metadata) == \
        "Northwind Traders vs Acme Widgets operating margin FY22"
    # lower case, inside another word or a note number, and capitals that mean something else are left alone
    for question in ("What was acw's capex?", "What did ACW31 notes pay?", "What was diluted EPS in 2021?"):
        assert with_issuer_names(question, metadata) == question


@pytest.mark.parametrize(("issuer", "names"), [
    ("Lockheed Martin Corporation", ["lockheed martin", "lockheed"]),
    ("Country heading Cohesion fund", ["country heading cohesion fund"]),  # a table's header read as an issuer
    ("Table 1 Student enrollment by age", ["table 1 student enrollment by age"]),
])
def test_a_plain_document_word_is_no_issuer_s_name_alone(issuer: str, names: list[str]) -> None:
    assert issuer_names(issuer) == names


def test_a_question_routed_nowhere_goes_to_the_document_of_most_of_its_nearest_passages() -> None:
    nowhere = Route(None, "its subject fits many documents alike")
    names = {1: "fleet.pdf", 2: "budget.pdf", 3: "survey.pdf"}
    route = route_by_passages(nowhere, [2, 1, 2, 3, 2, 1], names)
    assert route.document_ids == (2,) and route.by_subject and not route.decisive
    assert route.matched[0] == 2 and "budget.pdf" in route.reason
    assert route_by_passages(nowhere, [2, 1, 3, 1, 2], names).document_ids is None  # no majority: everywhere
    named = Route((3,), "the issuer named")
    assert route_by_passages(named, [2, 2, 2], names) is named  # a route by its words stays


def test_words_no_document_uses_let_the_passages_nearest_in_meaning_choose() -> None:
    # a report on transport says "cars" once in its text; the table of car models prints only "hp" and their names
    transport = RoutedDocument(1, "transport.pdf", DocumentMetadata(), DocumentProfile(
        title="Regional transport survey", headers="Mode Trips Share", labels="Bus Rail Cycling",
        text="Most trips were made by bus; cars were excluded from the survey."))
    models = RoutedDocument(2, "models.pdf", DocumentMetadata(), DocumentProfile(
        headers="mpg cyl hp wt", labels="Mazda RX4 Datsun 710 Valiant"))
    donors = RoutedDocument(3, "donors.pdf", DocumentMetadata(), DocumentProfile(
        headers="Aportante Monto", labels="Lorenzo Perez Ana Gomez"))
    documents = [transport, models, donors]
    names = {d.id: d.name for d in documents}
    asked = route("which cars have over 300 horsepower", documents)
    assert asked.document_ids == (1,) and asked.unknown == ("horsepower",), asked
    chosen = route_by_passages(asked, [2, 2, 1, 2, 3], names)
    assert chosen.document_ids == (2, 1) and not chosen.decisive, chosen  # the meaning's first, the words' after
    # a name the chosen document prints in a row label routes it, whatever other word no document uses
    named = route("how much did Lorenzo donate", documents)
    assert named.document_ids == (3,) and named.unknown == (), named
    assert route_by_passages(named, [1, 1, 1, 2, 2], names) is named
