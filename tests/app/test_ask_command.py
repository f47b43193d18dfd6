"""``folio ask`` end to end through the Ollama path: a loopback server speaking Ollama's API, a library
holding a drawn report embedded with the real MiniLM model, JSON and human output, and a server
that hangs up mid-answer."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from app import wiring
from app.ask_command import add_parser
from app.chat_models import make_chat_model
from models.errors import ModelUnavailable
from models.llm_ollama import OllamaChatModel
from tests.core.answering.test_answering_library import TABLE_NAME, build_report_library
from tests.support.ollama_server import LoopbackOllama, ollama_server  # noqa: F401

pytestmark = pytest.mark.e2e

QUESTION = "What was the total 2019 spending on roads and parks?"
GOOD_SQL = f"SELECT SUM(y2019) AS total FROM {TABLE_NAME} WHERE department IN ('Roads', 'Parks')"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("asklib")
    fixture = build_report_library(directory, wiring.shared_embedder())
    fixture.runner.close()
    fixture.library.close()
    return directory


def run_ask(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="folio")
    sub = parser.add_subparsers(dest="command")
    library_opt = argparse.ArgumentParser(add_help=False)
    library_opt.add_argument("--library", default=argparse.SUPPRESS)
    add_parser(sub, library_opt)
    args = parser.parse_args(["ask", *argv])
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def scripted(server: LoopbackOllama, *replies: dict[str, Any]) -> None:
    server.queue_replies(*(json.dumps(r) for r in replies))


def test_ask_json_through_ollama(library: Path, ollama_server: LoopbackOllama,  # noqa: F811
                                 capsys: pytest.CaptureFixture[str]) -> None:
    scripted(ollama_server,
             {"sql": "SELECT SUM(y2019) FROM budget WHERE department IN ('Roads', 'Parks')"},  # wrong table name
             {"sql": GOOD_SQL},
             {"source": "sql", "text_answer": "", "conflict": False})
    code, out, err = run_ask(capsys, "--library", str(library), "--backend", "ollama", "--ollama-host",
                             ollama_server.url, "--json", QUESTION)
    assert code == 0, err
    payload = json.loads(out)
    assert payload["answer"] == ("Roads, 2019 and Parks, 2019 add up to 200.5 million; "
                                 "source: City Budget Report 2019, p. 1, Table 1.")
    assert payload["value"] == "200.5 million" and payload["status"] == "unchecked"
    assert payload["llm_calls"] == 3 and payload["prompt_tokens"] > 0 and payload["seconds"] >= 0
    assert payload["steps"][0]["sql"] == GOOD_SQL and payload["steps"][0]["sql_result"] == [[200.5]]
    sql_citation = next(c for c in payload["citations"] if c.get("sql"))
    assert sql_citation["document"] == "budget_report.pdf" and sql_citation["page"] == 1
    assert {(c["row"], c["column"]) for c in sql_citation["cells"]} >= {(1, "y2019"), (2, "y2019")}
    assert all(len(c["bbox"]) == 4 for c in sql_citation["cells"])
    requests = ollama_server.chat_requests
    assert len(requests) == 3 and all("format" in r for r in requests)  # schema-constrained JSON
    assert "no such table: budget" in requests[1]["messages"][-1]["content"]  # the error went back


def test_ask_prints_answer_and_numbered_sources(library: Path, ollama_server: LoopbackOllama,  # noqa: F811
                                                capsys: pytest.CaptureFixture[str]) -> None:
    scripted(ollama_server, {"sql": GOOD_SQL},
             {"source": "sql", "text_answer": "", "conflict": False})
    code, out, _ = run_ask(capsys, "--library", str(library), "--backend", "ollama", "--ollama-host",
                           ollama_server.url, "--ollama-model", "qwen2.5-coder:1.5b", QUESTION)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Roads, 2019 and Parks, 2019 add up to 200.5 million")
    assert lines[1] == ("Note: Not cross-checked: computed from the table; no passage states this figure. "
                        "Answered as a computed figure.")
    assert (f"[1] City Budget Report 2019, p. 1, Table 1: Budget by department (SQL: {GOOD_SQL}); "
            "cells: Roads, 2019: 120.5; Parks, 2019: 80") in out


def test_naive_mode_over_ollama(library: Path, ollama_server: LoopbackOllama,  # noqa: F811
                                capsys: pytest.CaptureFixture[str]) -> None:
    ollama_server.queue_replies("200.5 million")
    code, out, _ = run_ask(capsys, "--library", str(library), "--backend", "ollama", "--ollama-host",
                           ollama_server.url, "--mode", "naive", "--json", QUESTION)
    assert code == 0
    payload = json.loads(out)
    assert payload["mode"] == "naive" and payload["llm_calls"] == 1 and payload["answer"] == "200.5 million"
    assert len(ollama_server.chat_requests) == 1 and "format" not in ollama_server.chat_requests[0]


def test_server_down_mid_answer_exits_2_with_a_message(library: Path, ollama_server: LoopbackOllama,  # noqa: F811
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    scripted(ollama_server, {"sql": GOOD_SQL})

    def hang_up(body: dict[str, Any]) -> str:
        ollama_server.drop_after_chunks = 0
        return json.dumps({"source": "sql", "text_answer": "", "conflict": False})

    ollama_server.reply_with(hang_up)
    code, out, err = run_ask(capsys, "--library", str(library), "--backend", "ollama", "--ollama-host",
                             ollama_server.url, QUESTION)
    assert code == 2 and out == ""
    assert err.splitlines()[-1].startswith("folio: The Ollama server stopped answering") and "Traceback" not in err


def test_ollama_not_running_is_a_clear_error(library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_ask(capsys, "--library", str(library), "--backend", "ollama", "--ollama-host",
                           "http://127.0.0.1:9", QUESTION)
    assert code == 2 and "not reachable" in err


def test_backend_choice(ollama_server: LoopbackOllama) -> None:  # noqa: F811
    chosen = make_chat_model("ollama", ollama_host=ollama_server.url)
    assert isinstance(chosen, OllamaChatModel) and chosen.model == "qwen2.5-coder:1.5b"  # not the embedder
    auto = make_chat_model("auto", ollama_host=ollama_server.url, ollama_model="qwen2.5-coder:1.5b")
    assert isinstance(auto, OllamaChatModel)
    with pytest.raises(ModelUnavailable):
        make_chat_model("ollama", ollama_host="http://127.0.0.1:9")
    with pytest.raises(ValueError):
        make_chat_model("cloud")


# -- an OpenAI-compatible server ---------------------------------------------------------------------

KEY = "sk-cli-test-0b6f2d4e"


@pytest.fixture
def openai_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private config directory (the CLI reads the saved settings) and the key in the environment."""
    from app.settings import CONFIG_ENV, OPENAI_API_KEY_ENV

    directory = tmp_path / "config"
    monkeypatch.setenv(CONFIG_ENV, str(directory))
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    return directory


def test_ask_json_through_an_openai_compatible_server(library: Path, openai_env: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.openai_server import serve_openai

    with serve_openai(api_key=KEY) as server:
        server.queue_replies(json.dumps({"sql": GOOD_SQL}),
                             json.dumps({"source": "sql", "text_answer": "", "conflict": False}))
        code, out, err = run_ask(capsys, "--library", str(library), "--backend", "openai", "--base-url",
                                 server.url, "--model", "llama-3.1-8b-instruct", "--json", QUESTION)
        requests = server.chat_requests
        headers = [r.headers.get("Authorization") for r in server.requests]
    assert code == 0, err
    payload = json.loads(out)
    assert payload["value"] == "200.5 million" and payload["model"] == "llama-3.1-8b-instruct (OpenAI-compatible)"
    assert payload["answer"].startswith("Roads, 2019 and Parks, 2019 add up to 200.5 million")
    assert payload["steps"][0]["sql"] == GOOD_SQL  # free SQL: the backend declares it can write it
    assert payload["llm_calls"] == 2 and payload["prompt_tokens"] == sum(
        sum(len(m["content"].split()) for m in r["messages"]) for r in requests)
    assert all(r["response_format"]["type"] == "json_schema" for r in requests)
    assert all(r["model"] == "llama-3.1-8b-instruct" for r in requests)
    assert headers == [f"Bearer {KEY}"] * len(headers)
    assert KEY not in out and KEY not in err


def test_ask_openai_uses_the_saved_server_and_the_first_served_model(library: Path, openai_env: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from app.settings import Settings, save_settings
    from tests.support.openai_server import serve_openai

    with serve_openai(api_key=KEY) as server:
        save_settings(Settings(backend="openai", openai_base_url=server.url))
        server.queue_replies("200.5 million")
        code, out, err = run_ask(capsys, "--library", str(library), "--backend", "openai", "--mode", "naive",
                                 "--json", QUESTION)
        assert code == 0, err
        assert json.loads(out)["model"] == "qwen2.5-coder-32b-instruct (OpenAI-compatible)"
        assert [r.path for r in server.requests] == ["/v1/models", "/v1/chat/completions"]


def test_ask_openai_failures_are_one_line_without_the_key(library: Path, openai_env: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from app.settings import OPENAI_API_KEY_ENV
    from tests.support.openai_server import serve_openai

    with serve_openai(api_key=KEY) as server:
        server.queue_replies(json.dumps({"sql": GOOD_SQL}))
        server.drop_after_chunks = 0
        code, out, err = run_ask(capsys, "--library", str(library), "--backend", "openai", "--base-url",
                                 server.url, "--model", "llama-3.1-8b-instruct", QUESTION)
        assert code == 2 and out == "" and "Traceback" not in err
        assert "broke while llama-3.1-8b-instruct was replying" in err.splitlines()[-1]

        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-wrong-9")
        code, _, err = run_ask(capsys, "--library", str(library), "--backend", "openai", "--base-url",
                               server.url, QUESTION)
        assert code == 2 and "refused the API key (401 Unauthorized)" in err and "sk-wrong-9" not in err

    code, _, err = run_ask(capsys, "--library", str(library), "--backend", "openai", QUESTION)
    assert code == 2 and "No model server address is set" in err


def test_models_command_lists_and_checks(openai_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import run
    from tests.support.openai_server import serve_openai

    with serve_openai(api_key=KEY) as server:
        server.queue_replies("OK")
        code = run(["models", "--backend", "openai", "--base-url", server.url, "--check"])
        out, err = capsys.readouterr()
        assert code == 0, err
        lines = out.splitlines()
        assert lines[:2] == ["qwen2.5-coder-32b-instruct", "llama-3.1-8b-instruct"]
        assert lines[2].startswith(f"qwen2.5-coder-32b-instruct (OpenAI-compatible) answered on this computer "
                                   f"(port {server.port}) in ")
        assert server.chat_requests[-1]["max_tokens"] == 4
        code = run(["models", "--backend", "openai", "--base-url", server.url, "--model", "gpt-9", "--check"])
        _, err = capsys.readouterr()
        assert code == 2 and "gpt-9 is not served" in err


def test_openai_backend_choice(openai_env: Path) -> None:
    from app.chat_models import chat_model_for
    from app.settings import Settings
    from models.llm_openai import OpenAIChatModel
    from tests.support.openai_server import serve_openai

    with serve_openai(models=("bge-m3", "mistral-small"), api_key=KEY) as server:
        chosen = make_chat_model("openai", openai_base_url=server.url, openai_api_key=KEY)
        assert isinstance(chosen, OpenAIChatModel) and chosen.model == "mistral-small"  # not the embedder
        from_settings = chat_model_for(Settings(backend="openai", openai_base_url=server.url, openai_model="x"))
        assert isinstance(from_settings, OpenAIChatModel) and from_settings.model == "x"
        assert [r.path for r in server.requests] == ["/v1/models"]  # building sends nothing else
    # "auto" never turns to an OpenAI-compatible server on its own.
    auto = make_chat_model("auto", openai_base_url="http://gpu-box:8000/v1", openai_model="x")
    assert not isinstance(auto, OpenAIChatModel)
