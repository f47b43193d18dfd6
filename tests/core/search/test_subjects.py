"""Routing by what each document is about: BM25 over per-document profiles (title, opening, captions, headers,
row labels, pages), in a real library of invented reports and in the index alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.routing import _QUESTION_WORDS, library_documents, route_question
from core.search.subjects import DocumentProfile, SubjectIndex, document_profiles, question_terms
from tests.support.report_builder import Section, TableSpec, build_report

pytestmark = pytest.mark.unit


def _rainfall(path: Path) -> Path:
    stations = [["Kestrel Point", "41.2", "38.0", "55.1"], ["Marram Bay", "62.7", "58.3", "49.9"],
                ["Thornbury Fell", "88.4", "91.0", "77.6"], ["Sallow Marsh", "35.5", "30.2", "28.8"]]
    build_report(path, "Hydrological Bulletin: Monthly Readings",
                 [Section("Readings", ["Readings are taken at 09:00 each day and summed by month."],
                          [TableSpec("Table 1. Monthly totals (mm)", [["Station", "January", "February", "March"]],
                                     stations)])])
    return path


def _grants(path: Path) -> Path:
    grants = [["Orchard Lane Youth Club", "Ashby", "12,500"], ["Riverside Food Bank", "Colton", "8,000"],
              ["Heathfield Men's Shed", "Ashby", "4,750"], ["St Brigid's Choir", "Dunmore", "2,300"]]
    build_report(path, "Community Fund: Grants Awarded",
                 [Section("Awards", ["The fund awards grants to voluntary groups twice a year."],
                          [TableSpec("Grants awarded by the panel", [["Recipient", "Town", "Amount"]], grants)])])
    return path


def _traffic(path: Path) -> Path:
    airports = [["Northgate", "1,204,330", "18,220"], ["Easterby", "884,102", "9,870"],
                ["Port Wyn", "402,991", "3,118"]]
    build_report(path, "Regional Airports: Traffic Statistics",
                 [Section("Traffic", ["Passengers are counted on arrival and departure; freight in tonnes."],
                          [TableSpec("Passengers and freight by airport", [["Airport", "Passengers", "Freight (t)"]],
                                     airports)])])
    return path


@pytest.fixture(scope="module")
def subjects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import HashEmbedder

    folder = tmp_path_factory.mktemp("subjects")
    library = Library(folder / "lib" / "library.sqlite3")
    embedder = HashEmbedder()
    pdfs = [_rainfall(folder / "bulletin.pdf"), _grants(folder / "fund.pdf"), _traffic(folder / "airports.pdf")]
    ids = {r.path.stem: r.document_id for r in Ingestor(library, embedder).ingest_paths(pdfs)}
    yield library, embedder, ids, folder
    library.close()


def test_the_profile_holds_captions_headers_row_labels_and_pages(subjects: Any) -> None:
    library, _, ids, _ = subjects
    profile = document_profiles(library)[ids["bulletin"]]
    assert "Monthly Readings" in profile.title
    assert "Monthly totals" in profile.captions
    assert "February" in profile.headers
    assert "Thornbury Fell" in profile.labels and "41.2" not in profile.labels  # text values, not figures
    assert "09:00 each day" in profile.text


def test_a_question_naming_no_document_goes_to_the_one_whose_rows_or_captions_it_names(subjects: Any) -> None:
    library, _, ids, _ = subjects
    by_label = route_question("How much rain fell at Marram Bay?", library)  # a row label alone
    assert by_label.document_ids == (ids["bulletin"],) and by_label.decisive
    assert route_question("Which recipients in Ashby were given money?", library).document_ids == (ids["fund"],)
    assert route_question("How many tonnes of freight went through Easterby?", library).document_ids == \
        (ids["airports"],)
    assert route_question("What is the weather like?", library).document_ids is None  # nothing in any document


def test_the_index_is_kept_and_follows_the_documents_added_and_removed(subjects: Any) -> None:
    library, embedder, ids, folder = subjects
    first = library_documents(library)
    assert library_documents(library)[1] is first[1]
    question = "Which lighthouse keeper logged the most storm nights?"
    assert route_question(question, library).document_ids is None
    build_report(folder / "keepers.pdf", "Lighthouse Service: Keepers' Logbooks",
                 [Section("Logs", ["Each keeper logs storm nights and visibility."],
                          [TableSpec("Storm nights logged per keeper", [["Keeper", "Storm nights"]],
                                     [["A. Pennock", "14"], ["R. Vail", "9"]])])])
    [added] = Ingestor(library, embedder).ingest_paths([folder / "keepers.pdf"])
    assert route_question(question, library).document_ids == (added.document_id,)
    # The new document does not pull other questions away from theirs.
    assert route_question("How much rain fell at Marram Bay in February?", library).document_ids == (ids["bulletin"],)
    library.delete_document(added.document_id)
    assert route_question(question, library).document_ids is None
    assert len(library_documents(library)[0]) == 3


def test_a_word_that_names_a_document_weighs_more_than_one_in_its_pages() -> None:
    index = SubjectIndex({
        1: DocumentProfile(title="Ferry timetable", text="Sailings leave hourly; the harbour office sells tickets."),
        2: DocumentProfile(title="Harbour dues", text="Dues are charged per tonne; the ferry pays a flat rate."),
        3: DocumentProfile(title="Parking charges", text="Charges apply on weekdays."),
    })
    scores = index.scores(["ferry"])
    assert set(scores) == {1, 2} and scores[1] > scores[2]
    assert index.scores(["harbour"]).keys() == {1, 2} and max(index.scores(["harbour"]).items(),
                                                              key=lambda s: s[1])[0] == 2
    assert index.scores([]) == {} and index.scores(["cinema"]) == {}


def test_the_years_a_question_names_are_matched_against_the_years_a_document_covers() -> None:
    index = SubjectIndex({
        1: DocumentProfile(title="Crop survey", headers="Crop Hectares 2018 2019"),
        2: DocumentProfile(title="Crop survey", headers="Crop Hectares 2021 2022"),
    })
    terms = question_terms(["how", "many", "hectares", "of", "crop", "in", "2022", "at", "12", "sites"],
                           _QUESTION_WORDS)
    assert terms == ["hectares", "crop", "2022", "sites"]  # a year stays; a count does not name a document
    scores = index.scores(terms)
    assert scores[2] > scores.get(1, 0.0)


def test_documents_close_to_the_best_are_searched_too_and_named_in_the_answer() -> None:
    from core.reports.document_metadata import DocumentMetadata
    from core.search.routing import RoutedDocument, route

    def doc(i: int, name: str, captions: str, labels: str) -> RoutedDocument:
        return RoutedDocument(i, name, DocumentMetadata(), DocumentProfile(captions=captions, labels=labels))

    documents = [doc(1, "schools_north.pdf", "Pupils enrolled by school", "Ashgrove Primary Birchwood Primary"),
                 doc(2, "schools_south.pdf", "Pupils enrolled by school", "Cedar Park Primary Dunmore Primary"),
                 doc(3, "libraries.pdf", "Loans by branch", "Central Library Eastside Library"),
                 doc(4, "pools.pdf", "Swims by pool", "Lido Leisure Centre"),
                 doc(5, "parks.pdf", "Visits by park", "Jubilee Park Mill Meadow")]
    near = route("How many pupils were enrolled at Birchwood Primary?", documents)
    assert near.document_ids is not None and near.document_ids[0] == 1 and 2 in near.document_ids
    assert not near.decisive and near.note([1]).startswith("Answered from schools_north.pdf (also matching: ")
    # Words every document uses alike single none out: the whole library is searched.
    alike = [doc(i, f"report{i}.pdf", "Figures by quarter", f"Quarter {i}") for i in range(1, 7)]
    assert route("What were the figures by quarter?", alike).document_ids is None


def test_an_issuers_words_used_in_another_sense_give_way_to_what_the_question_is_about() -> None:
    from core.reports.document_metadata import DocumentMetadata
    from core.search.routing import RoutedDocument, route

    def doc(i: int, issuer: str, year: int | None, captions: str, labels: str) -> RoutedDocument:
        return RoutedDocument(i, f"doc{i}.pdf", DocumentMetadata(issuer=issuer, doc_type="report", fiscal_year=year),
                              DocumentProfile(captions=captions, labels=labels))

    documents = [doc(1, "us", 2011, "Enrolment by grade", "Kindergarten Grade 1 Grade 2"),
                 doc(2, "us", 1996, "Deaths by cause", "Stroke Coronary heart disease"),
                 doc(3, "us", 2007, "Hospital beds by county", "Alder County Birch County"),
                 doc(4, "Harbour Board", 2015, "Harbour dues by vessel class", "Trawler Ferry Tanker")]
    # "us" in lower case is a word, not a name: the harbour dues document is what the question is about.
    assert route("Can you tell us the harbour dues of a trawler?", documents).document_ids == (4,)
    # Written as a name it names those documents; of them, the one about what is asked (not the latest one).
    assert route("How many deaths from stroke were there in the US?", documents).document_ids == (2,)
    assert route("How many hospital beds did Birch County have in the US in 2011?", documents).document_ids == (3,)


def test_an_issuers_name_that_is_a_plain_word_of_many_documents_names_none_in_lower_case() -> None:
    from core.reports.document_metadata import DocumentMetadata
    from core.search.routing import RoutedDocument, route

    def doc(i: int, issuer: str, captions: str, labels: str) -> RoutedDocument:
        return RoutedDocument(i, f"doc{i}.pdf", DocumentMetadata(issuer=issuer, doc_type="report", fiscal_year=2020),
                              DocumentProfile(title=issuer, captions=captions, labels=labels))

    documents = [doc(1, "Ministry of Schooling", "Schooling budget by type of schooling",
                     "Distance schooling grants Evening schooling grants Teacher pay"),
                 doc(2, "Northshire Council", "Evening schooling courses: participants and women (%)",
                     "Evening schooling Distance schooling Summer schooling"),
                 doc(3, "Westvale Council", "Pupils in schooling by age", "Age 5 Age 6"),
                 doc(4, "Eastmoor Trust", "Adult schooling places", "Weekend schooling"),
                 doc(5, "Southport Board", "Harbour dues", "Trawler Ferry")]
    # "schooling" in lower case is what the question is about, which four issuers' documents say: it names no
    # issuer, and the document about participants in distance schooling comes first
    routed = route("Which type of distance schooling had the most participants?", documents)
    assert routed.document_ids is not None and routed.document_ids[0] == 2, routed
    # written as the issuer's name, it names the Ministry
    assert route("What did the Ministry of Schooling spend on teacher pay?", documents).document_ids == (1,)
