"""The library panel shows what each document is (issuer, type, period) and lets a person correct it."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from core.reports.document_metadata import DocumentMetadata
from models.types import Document
from ui.library_view import ISSUER_COLUMN, PERIOD_COLUMN, TYPE_COLUMN, DocumentDetailsDialog, LibraryView

pytestmark = pytest.mark.ui


def test_details_are_shown_and_a_correction_is_sent(qtbot: Any) -> None:
    view = LibraryView()
    qtbot.addWidget(view)
    details = DocumentMetadata(issuer="3M COMPANY", doc_type="10-K", period="FY2018", fiscal_year=2018,
                               currency="$", scale="million")
    view.set_documents([Document(7, "a", "3M_2018_10K.pdf", "/d/3M_2018_10K.pdf", "3M", 160, "ready", "2024-01-01")],
                       {}, {7: details})
    assert [view.document_index(0, c).data() for c in (ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN)] == [
        "3M COMPANY", "10-K", "FY2018"]
    header = view.tree.header()
    assert [header.logicalIndex(v) for v in range(4)] == [0, ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN]
    assert "$ million" in view.document_index(0, ISSUER_COLUMN).data(Qt.ItemDataRole.ToolTipRole)
    assert "3M COMPANY, 10-K, FY2018" in view.document_index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert not view.details_button.isEnabled()
    view.select_document(7)
    assert view.details_button.isEnabled()

    def correct() -> None:
        dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, DocumentDetailsDialog) and w.isVisible())
        dialog.edits["period"].setText("FY2019")
        dialog.accept()

    QTimer.singleShot(0, correct)
    with qtbot.waitSignal(view.details_changed, timeout=5000) as signal:
        view.details_button.click()
    assert signal.args == [7, {"period": "FY2019"}]


def test_a_large_library_is_filtered_by_issuer_type_and_period(qtbot: Any) -> None:
    view = LibraryView()
    qtbot.addWidget(view)
    documents, details = [], {}
    for i in range(40):
        issuer = ("Northfield City Council", "Acme Industries Inc.")[i % 2]
        kind, year = ("budget", "annual report")[i % 2], 2000 + i // 2
        documents.append(Document(i + 1, str(i), f"report{i}.pdf", f"/d/report{i}.pdf", "Report", 3, "ready", "2024"))
        details[i + 1] = DocumentMetadata(issuer=issuer, doc_type=kind, period=str(year), fiscal_year=year)
    view.set_documents(documents, {}, details)
    assert view.filter_edit.isVisibleTo(view) and view.visible_count() == 40
    view.filter_edit.setText("council 2010")
    assert view.visible_count() == 1
    view.filter_edit.setText("acme annual")
    assert view.visible_count() == 20
    view.set_documents(documents[:30], {}, details)  # a refresh keeps the filter
    assert view.visible_count() == 15
    view.filter_edit.clear()
    assert view.visible_count() == 30
    # The issuer, type and period lists offer what the library holds; they combine with the words.
    issuers = view.choices[ISSUER_COLUMN]
    assert [issuers.itemText(i) for i in range(issuers.count())] == ["All issuers", "Acme Industries Inc.",
                                                                     "Northfield City Council"]
    view.choose(ISSUER_COLUMN, "Northfield City Council")
    assert view.visible_count() == 15
    view.choose(PERIOD_COLUMN, "2003")
    assert view.visible_count() == 1 and view.document_index(0).data() == "report6.pdf"
    view.choose(PERIOD_COLUMN, "")
    view.filter_edit.setText("acme")
    assert view.visible_count() == 0
    view.filter_edit.clear()
    view.choose(ISSUER_COLUMN, "")
    # A click on a header sorts; the period sorts by year, latest first when descending.
    view.tree.sortByColumn(PERIOD_COLUMN, Qt.SortOrder.DescendingOrder)
    assert [view.document_index(r, PERIOD_COLUMN).data() for r in range(3)] == ["2014", "2014", "2013"]


def test_two_thousand_documents_list_at_once_and_read_nothing_more(qtbot: Any) -> None:
    view = LibraryView()
    qtbot.addWidget(view)
    asked: list[int] = []
    documents = [Document(i, str(i), f"Northfield_budget_{2000 + i % 25}_{i:05d}.pdf", f"/d/{i}.pdf", "Budget", 2,
                          "ready", "2024", table_count=1) for i in range(1, 2001)]
    view.set_documents(documents, lambda document_id: asked.append(document_id) or [])
    view.resize(340, 600)
    view.show()
    qtbot.waitExposed(view)
    assert view.document_count() == 2000 and view.visible_count() == 2000 and asked == []
    view.filter_edit.setText("2007")
    assert view.visible_count() == 80 and asked == []
    view.select_document(1007)
    assert view.selected_document_id() == 1007
    view.set_documents(documents[::-1], lambda document_id: [])  # a refresh keeps the selection and the filter
    assert view.selected_document_id() == 1007 and view.visible_count() == 80


def test_a_large_library_reads_a_documents_tables_when_it_is_unfolded(qtbot: Any) -> None:
    from core.library.store import TableInfo

    view = LibraryView()
    qtbot.addWidget(view)
    asked: list[int] = []

    def tables(document_id: int) -> list[Any]:
        asked.append(document_id)
        return [TableInfo(10 + document_id, document_id, "r.pdf", f"t{document_id}", 3, 3, (0, 0, 1, 1), "Cash flows",
                          "", "", 1, 4, "", None)]  # type: ignore[arg-type]

    view.set_documents([Document(i, str(i), f"r{i}.pdf", f"/d/r{i}.pdf", "R", 5, "ready", "2024", table_count=1)
                        for i in (1, 2)], tables)
    first = view.document_index(0)
    assert view.proxy.rowCount(first) == 0 and view.proxy.hasChildren(first) and asked == []
    view.tree.expand(first)
    assert asked == [1] and view.proxy.rowCount(first) == 1 and view.table_index(0, 0).data() == "Cash flows"
    assert view.table_index(0, 0, 1).data() == "p.3"


def test_the_name_keeps_its_room_and_columns_give_way_as_the_panel_narrows(qtbot: Any) -> None:
    from ui.library_view import NAME_COLUMN, NAME_MIN_WIDTH, STATUS_COLUMN

    view = LibraryView()
    qtbot.addWidget(view)
    documents = [Document(i, str(i), f"LOCKHEEDMARTIN_{2019 + i}_10K.pdf", f"/d/{i}.pdf", "10-K", 90, "ready", "2024")
                 for i in range(1, 4)]
    details = {i: DocumentMetadata(issuer="LOCKHEED MARTIN CORP", doc_type="statistics release", period=f"Q2 FY{2019 + i}",
                                   fiscal_year=2019 + i) for i in range(1, 4)}
    view.set_documents(documents, {}, details)
    view.resize(420, 500)
    view.show()
    qtbot.waitExposed(view)
    shown = [c for c in range(7) if not view.tree.isColumnHidden(c)]
    assert shown == [NAME_COLUMN, TYPE_COLUMN, PERIOD_COLUMN]  # no status column while every document is ready
    assert view.tree.columnWidth(NAME_COLUMN) >= NAME_MIN_WIDTH
    view.resize(260, 500)  # evidence opened: the period stays, the type gives way
    qtbot.waitUntil(lambda: view.tree.isColumnHidden(TYPE_COLUMN))
    assert not view.tree.isColumnHidden(PERIOD_COLUMN) and view.tree.columnWidth(NAME_COLUMN) >= NAME_MIN_WIDTH
    view.want_column(ISSUER_COLUMN, True)  # asked for, but there is no room for it here
    assert view.tree.isColumnHidden(ISSUER_COLUMN)
    view.resize(900, 500)
    qtbot.waitUntil(lambda: not view.tree.isColumnHidden(ISSUER_COLUMN))
    partial = Document(9, "9", "minutes.pdf", "/d/minutes.pdf", "Minutes", 3, "partial", "2024", note="page 2 unread")
    view.set_documents([*documents, partial], {}, details)
    assert not view.tree.isColumnHidden(STATUS_COLUMN)
    assert view.document_index(0).data(Qt.ItemDataRole.ToolTipRole).startswith("LOCKHEEDMARTIN_2020_10K.pdf\n10-K\n")


def test_the_period_list_offers_the_latest_first(qtbot: Any) -> None:
    view = LibraryView()
    qtbot.addWidget(view)
    periods = [("FY2018", 2018, None), ("Q2 FY2023", 2023, 2), ("FY2023", 2023, None), ("2019-20", 2020, None)]
    documents = [Document(i, str(i), f"r{i}.pdf", f"/d/r{i}.pdf", "R", 1, "ready", "2024") for i in range(1, 9)]
    details = {i: DocumentMetadata(issuer="Acme", doc_type="10-K", period=periods[i % 4][0], fiscal_year=periods[i % 4][1],
                                   quarter=periods[i % 4][2]) for i in range(1, 9)}
    view.set_documents(documents, {}, details)
    combo = view.choices[PERIOD_COLUMN]
    assert [combo.itemText(i) for i in range(combo.count())] == ["All periods", "Q2 FY2023", "FY2023", "2019-20",
                                                                 "FY2018"]
