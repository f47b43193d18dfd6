"""Conversations on the command line: ``folio ask --conversation`` reads a follow-up against the questions stored
in the conversation and saves the exchange to it; ``folio chat`` carries over within its session (questions from
stdin until end of input) and saves it as a conversation; ``folio conversations`` lists them. The library holds
two generated reports of invented companies; a scripted chat model stands in for the model and fails the test if
it is called (code answers these questions)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from app import ask_command, chat_command, cli
from core.library.conversations import ConversationStore
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.support.statements import Figures, build_two_company_library

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Figures]]:
    path, figures = build_two_company_library(tmp_path_factory.mktemp("two"), HashEmbedder())
    return path.parent, figures


@pytest.fixture
def library(two: tuple[Path, list[Figures]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the two companies' library for this test, answered with the hash embedder and no model."""
    directory = tmp_path / "library"
    directory.mkdir()
    source = Library(two[0] / "library.sqlite3")
    source.conn.execute(f"VACUUM INTO '{directory / 'library.sqlite3'}'")
    source.close()
    chat = ScriptedChat()
    monkeypatch.setattr(ask_command, "chat_model_from_args", lambda args: chat)
    monkeypatch.setattr(chat_command, "chat_model_from_args", lambda args: chat)
    monkeypatch.setattr("app.wiring.shared_embedder", HashEmbedder)
    return directory


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_in_a_conversation_carries_over_and_saves(library: Path, two: tuple[Path, list[Figures]],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    northgate, alder = two[1]
    code, out, err = run(capsys, "ask", "--library", str(library), "--conversation", "new",
                         "What was Northgate's operating profit in 2020?")
    assert code == 0, err
    assert "Saved in conversation 1." in err and "Read as" not in out
    code, out, err = run(capsys, "ask", "--library", str(library), "--conversation", "1", "--json", "and in 2018?")
    assert code == 0, err
    payload: dict[str, Any] = json.loads(out)
    assert payload["question"] == "and in 2018?"
    assert payload["read_as"] == "What was Northgate's operating profit in 2018?"
    assert payload["value"] == f"{northgate.lines['operating income'][2018]:,.0f} thousand"
    code, out, err = run(capsys, "ask", "--library", str(library), "--conversation", "1", "and for Alder?")
    assert code == 0, err
    assert out.splitlines()[1] == "Read as: What was Alder's operating profit in 2018?"
    assert f"{alder.lines['operating income'][2018]:,.0f} thousand" in out.splitlines()[0]
    with Library(library / "library.sqlite3") as stored:
        assert ConversationStore(stored.conn).questions(1) == [
            "What was Northgate's operating profit in 2020?", "What was Northgate's operating profit in 2018?",
            "What was Alder's operating profit in 2018?"]
    code, out, err = run(capsys, "ask", "--library", str(library), "--conversation", "7", "and in 2019?")
    assert code == 2 and "no conversation '7'" in err and "folio conversations" in err


def test_chat_carries_over_within_the_session_and_is_listed(library: Path, two: tuple[Path, list[Figures]],
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    northgate, alder = two[1]
    monkeypatch.setattr("sys.stdin", io.StringIO("What was Alder's revenue in 2019?\n\nwhat about net income?\n"
                                                 "Compare Northgate's and Alder's net income in 2019\n"))
    code, out, err = run(capsys, "chat", "--library", str(library))
    assert code == 0, err
    assert "Read as: What was Alder's net income in 2019?" in out
    assert f"{alder.lines['net income'][2019]:,.0f} thousand" in out
    difference = northgate.lines["net income"][2019] - alder.lines["net income"][2019]
    assert f"| Difference | {difference:+,.0f} thousand | |" in out
    assert "Saved as conversation 1" in err
    code, out, err = run(capsys, "conversations", "--library", str(library))
    assert code == 0 and out.startswith("[1] What was Alder's revenue in 2019?  (3 questions, ")
