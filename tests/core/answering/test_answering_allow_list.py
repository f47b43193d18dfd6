"""The SQL a model writes while answering reads only the tables extracted from documents: asking for the
library's own tables (documents and their file paths, saved conversations) is refused, the refusal goes
back to the model, and the repaired statement answers. ``folio sql`` keeps reading everything."""

from __future__ import annotations

import pytest

from core.answering import Answerer
from core.errors import SqlRefused
from tests.core.answering.test_answering_library import TABLE_NAME, ReportFixture, ScriptedChat, report  # noqa: F401

pytestmark = pytest.mark.unit

SQL_OK = {"source": "sql", "text_answer": "", "conflict": False}


def test_model_sql_on_documents_or_conversations_is_refused_and_repaired(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "What was the total 2019 spending on road maintenance and new playgrounds?"  # labels say neither: SQL
    chat.queue(
        {"sql": "SELECT path FROM documents"},
        {"sql": f"SELECT (SELECT COUNT(*) FROM conversations), SUM(y2019) FROM {TABLE_NAME}"},
        {"sql": f"SELECT SUM(y2019) FROM {TABLE_NAME} WHERE department IN ('Roads', 'Parks')"},
        SQL_OK,
    )
    answer = Answerer(report.library, report.retriever, report.runner, chat, sql_style="free").answer(question)  # type: ignore[arg-type]

    assert "Reading table documents is not allowed" in chat.prompt(1)
    assert "Reading table conversations is not allowed" in chat.prompt(2)
    assert answer.value == "200.5 million" and answer.text.startswith("Roads, 2019 and Parks, 2019 add up to 200.5 million")
    (step,) = answer.steps
    assert step.sql is not None and "department IN" in step.sql and step.sql_error is None
    assert str(report.pdf.parent) not in str(answer.to_json())  # no file path reached the answer

    # The runner now holds the allow-list; a runner of its own (as `folio sql` makes) reads everything.
    with pytest.raises(SqlRefused, match="documents"):
        report.runner.run("SELECT file_name FROM documents")
    assert report.runner.run("SELECT COUNT(*) FROM sqlite_master").rows[0][0] > 0
