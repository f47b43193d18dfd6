"""The library panel shows what each document is (issuer, type, period) and lets a person correct it."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from core.document_metadata import DocumentMetadata
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
    item = view.tree.topLevelItem(0)
    assert item is not None
    assert [item.text(c) for c in (ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN)] == ["3M COMPANY", "10-K", "FY2018"]
    header = view.tree.header()
    assert [header.logicalIndex(v) for v in range(4)] == [0, ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN]
    assert "$ million" in item.toolTip(ISSUER_COLUMN)
    assert not view.details_button.isEnabled()
    item.setSelected(True)
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


def test_a_large_library_reads_a_documents_tables_when_it_is_unfolded(qtbot: Any) -> None:
    from core.library import TableInfo

    view = LibraryView()
    qtbot.addWidget(view)
    asked: list[int] = []

    def tables(document_id: int) -> list[Any]:
        asked.append(document_id)
        return [TableInfo(10 + document_id, document_id, "r.pdf", f"t{document_id}", 3, 3, (0, 0, 1, 1), "Cash flows",
                          "", "", 1, 4, "", None)]  # type: ignore[arg-type]

    view.set_documents([Document(i, str(i), f"r{i}.pdf", f"/d/r{i}.pdf", "R", 5, "ready", "2024", table_count=1)
                        for i in (1, 2)], tables)
    first = view.tree.topLevelItem(0)
    assert first is not None and first.childCount() == 0 and asked == []
    first.setExpanded(True)
    assert asked == [1] and first.childCount() == 1 and first.child(0).text(0) == "Cash flows"
    assert first.child(0).text(1) == "p.3"
