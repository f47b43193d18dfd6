"""``folio ask``: answer one question from the library, with numbered sources or as one JSON object.

    folio ask [--library DIR] [--conversation ID|new] [--mode tablerag|naive]
              [--backend auto|embedded|ollama|openai] [--base-url URL] [--model NAME] [--json] "question"

Progress goes to stderr; the answer and its sources (or ``Answer.to_json()``) to stdout. A model or
library problem becomes one clear message on stderr and exit code 2. With ``--backend openai`` the
server's base URL and model default to the saved settings (the model: else the first one it serves);
the API key comes from ``$FOLIO_OPENAI_API_KEY`` or the settings file, never from the command line,
where other users could read it.

The embedded model is kept loaded between questions by a warm model process on a Unix socket (no
network port), which ends itself after ten idle minutes (``FOLIO_WARM_MODEL_SECONDS``; 0 turns it off);
the window, which keeps its model loaded while open, is the fastest way to ask many questions.

With ``--conversation`` the question is asked in a stored conversation: it is read against the questions asked
there before (a follow-up such as "and in 2017?" carries their issuer, period and measure over, and the answer
says how it was read), and the exchange is saved to it, as the window saves its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from app import messages, wiring
from app.chat_models import BACKENDS, make_chat_model
from app.paths import library_dir
from app.settings import OPENAI_API_KEY_ENV, load_settings, openai_api_key
from core.errors import FolioError, UserError
from core.jobs import JobContext
from core.library.conversations import ConversationStore
from core.sql.runner import json_value
from models.errors import ModelError
from models.llm_ollama import DEFAULT_HOST
from models.protocols import ChatModel
from models.types import Answer, Citation, ProgressEvent


def add_parser(subparsers: Any, library_opt: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Register ``ask`` on the CLI's subparsers; ``library_opt`` is the shared ``--library`` parent."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "ask", parents=[library_opt], help="answer a question from the library, with sources"
    )
    p.add_argument("question", metavar="QUESTION", help="the question, in quotes")
    p.add_argument("--conversation", metavar="ID",
                   help="ask in a stored conversation (its id, as `folio conversations` lists them, or 'new'): the "
                        "question may follow up the ones before it ('and in 2017?'), and the exchange is saved to it")
    add_model_options(p)
    p.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    p.set_defaults(func=cmd_ask)
    return p


def add_model_options(p: argparse.ArgumentParser) -> None:
    """The options that choose how questions are answered (mode, backend, server, model, SQL style)."""
    p.add_argument("--mode", choices=("tablerag", "naive"), default="tablerag",
                   help="tablerag: SQL over the tables plus text (default); naive: one call over retrieved chunks")
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="auto: Ollama when --ollama-model is given and reachable, else the embedded model; "
                        "openai: an OpenAI-compatible server (vLLM, llama-server, LM Studio, ...)")
    p.add_argument("--ollama-host", default=DEFAULT_HOST, metavar="URL",
                   help=f"the Ollama server to use (default: {DEFAULT_HOST})")
    p.add_argument("--ollama-model", default=None, metavar="NAME", help="default: the first installed chat model")
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="with --backend openai: the server's API root, e.g. http://gpu-box:8000/v1 "
                        "(default: the one in Settings)")
    p.add_argument("--model", default=None, metavar="NAME",
                   help=f"with --backend openai: one of the server's /v1/models (default: the one in Settings, "
                        f"else the first served); the API key is read from ${OPENAI_API_KEY_ENV} or Settings")
    p.add_argument("--sql-style", choices=("auto", "structured", "free"), default="auto",
                   help="structured: the model picks operations and cells (small models); free: it writes SQL")


def report_progress(event: ProgressEvent) -> None:
    if event.stage != "step" and event.message:
        message = event.message.rstrip("\u2026")
        sys.stderr.write(f"{message}\u2026\n" if event.stage != "done" else f"{message}.\n")


def chat_model_from_args(args: argparse.Namespace) -> ChatModel:
    if args.backend != "openai":
        chat = make_chat_model(args.backend, ollama_host=args.ollama_host, ollama_model=args.ollama_model)
        return _kept_warm(chat)
    saved = load_settings()
    base_url = args.base_url or saved.openai_base_url
    # A model saved for another server is no guide: fall back to it only for the saved server.
    model = args.model or (saved.openai_model if base_url == saved.openai_base_url else None)
    return make_chat_model("openai", openai_base_url=base_url, openai_model=model,
                           openai_api_key=openai_api_key(saved))


def _kept_warm(chat: ChatModel) -> ChatModel:
    """The embedded model runs in the warm model process (started if needed) so the next question finds
    it loaded; in this process when that is switched off or cannot be reached (see ``app/warm_model.py``)."""
    from models.llm_embedded import EmbeddedChatModel

    if not isinstance(chat, EmbeddedChatModel):
        return chat
    from app.warm_model import warm_chat_model

    def say(message: str) -> None:
        sys.stderr.write(f"{message}\n")

    return warm_chat_model(chat, say=say) or chat


def cmd_ask(args: argparse.Namespace) -> int:
    directory = library_dir(getattr(args, "library", None))
    try:
        with wiring.open_library(directory) as library:
            store = ConversationStore(library.conn)
            conversation = stored_conversation(store, args.conversation)
            earlier = store.questions(conversation) if conversation is not None else []
            chat = chat_model_from_args(args)
            with wiring.answerer(directory, library, chat, mode=args.mode, sql_style=args.sql_style) as answerer:
                answer = answerer.answer(args.question, JobContext(report_progress), earlier=earlier)
            if args.conversation:
                saved = save_exchange(store, conversation, answer)
                sys.stderr.write(f"Saved in conversation {saved}.\n")
    except (ModelError, FolioError) as exc:
        sys.stderr.write(f"folio: {messages.describe(exc)}\n")
        return 2
    if args.json:
        json.dump(answer.to_json(), sys.stdout, ensure_ascii=False, indent=1, default=json_value)  # BLOBs in SQL results
        sys.stdout.write("\n")
    else:
        print_answer(answer)
    return 0


def stored_conversation(store: ConversationStore, wanted: str | None) -> int | None:
    """The id of the stored conversation ``--conversation`` names (None for none, or for "new": it is created
    when its first answer is saved); a ``UserError`` for one the library does not hold."""
    if not wanted or wanted.strip().lower() == "new":
        return None
    if not wanted.strip().isdigit() or store.get(int(wanted)) is None:
        raise UserError(f"This library holds no conversation {wanted!r}; `folio conversations` lists them, and "
                        f"--conversation new starts one.")
    return int(wanted)


def save_exchange(store: ConversationStore, conversation: int | None, answer: Answer) -> int:
    """Save a question and its answer in a conversation (a new one when None); its id."""
    conversation = conversation if conversation is not None else store.create().id
    store.add_question(conversation, answer.question)
    store.add_answer(conversation, answer)
    return conversation


def describe_source(citation: Citation) -> str:
    """One line per source: "Budget 2014-15, p. 1, Table 3: Demands for grants (SQL: ...)", or the passage's
    opening; sources saved before they had labels read "report.pdf p.3 — table budget_p3"."""
    if citation.label:
        if citation.kind == "table" and citation.sql:
            detail = f" (SQL: {' '.join(citation.sql.split())})"
            if citation.cells:
                detail += f"; cells: {citation.snippet}"
            return citation.label + detail
        return f"{citation.label} — \"{citation.snippet}\"" if citation.kind == "text" else citation.label
    where = f"{citation.document} {citation.place}"
    if citation.kind == "table" and citation.table:
        detail = f"table {citation.table}"
        if citation.sql:
            detail += f" (SQL: {' '.join(citation.sql.split())})"
            if citation.cells:
                detail += f"; cells: {', '.join(f'{c.column}={c.text}' for c in citation.cells[:8])}"
        return f"{where} — {detail}"
    return f"{where} — \"{citation.snippet}\""


def print_answer(answer: Answer, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    out.write(answer.text.strip() + "\n")
    if answer.read_as:
        out.write(f"Read as: {answer.read_as}\n")
    note = " ".join(filter(None, [messages.answer_note(answer), messages.answer_kind(answer)]))
    if note:
        out.write(f"Note: {note}\n")
    if answer.citations:
        out.write("\nSources:\n")
        for i, citation in enumerate(answer.citations, 1):
            out.write(f"[{i}] {describe_source(citation)}\n")
    usage = answer.usage
    reused = f" ({usage.reused_tokens} read from the model's cache)" if usage.reused_tokens else ""
    sys.stderr.write(f"{usage.calls} model call(s), {usage.prompt_tokens} prompt tokens{reused}, {usage.seconds:.1f} s\n")
