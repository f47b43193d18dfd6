"""``folio chat`` and ``folio conversations``: a conversation with the library on the command line.

    folio chat [--library DIR] [--conversation ID] [--mode ...] [--backend ...] [--base-url URL] [--model NAME]
    folio conversations [--library DIR]

``chat`` reads one question per line from stdin (with line editing on a terminal) until end of input (Ctrl-D),
answers each with its sources as ``folio ask`` prints them, and keeps the model and the library open in between.
Each question is read against the ones before it in the session (a follow-up such as "and in 2017?" or "what
about its net income?" carries their issuer, period and measure over; the answer says how it was read), and the
session is saved as a conversation, as the window saves its own; ``--conversation ID`` goes on with a stored
one. ``conversations`` lists the stored conversations with their ids.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from app import messages, wiring
from app.ask_command import (
    add_model_options,
    chat_model_from_args,
    print_answer,
    report_progress,
    save_exchange,
    stored_conversation,
)
from app.paths import library_dir
from core.errors import FolioError, UserError
from core.jobs import JobContext
from core.library.conversations import ConversationStore
from models.errors import ModelError


def add_parsers(subparsers: Any, library_opt: argparse.ArgumentParser) -> None:
    """Register ``chat`` and ``conversations`` on the CLI's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "chat", parents=[library_opt],
        help="ask questions one per line (Ctrl-D ends); each may follow up the ones before it")
    p.add_argument("--conversation", metavar="ID",
                   help="go on with a stored conversation (its id, as `folio conversations` lists them)")
    add_model_options(p)
    p.set_defaults(func=cmd_chat)
    p = subparsers.add_parser("conversations", parents=[library_opt], help="list the stored conversations")
    p.set_defaults(func=cmd_conversations)


def questions(stream: TextIO, prompt: str = "> ") -> Iterator[str]:
    """The questions typed, one per line, until end of input; blank lines are skipped. On a terminal each is
    read with line editing after a prompt."""
    while True:
        if stream.isatty():
            try:
                line = input(prompt)
            except EOFError:
                sys.stderr.write("\n")
                return
        else:
            line = stream.readline()
            if not line:
                return
        if line.strip():
            yield line.strip()


def cmd_chat(args: argparse.Namespace) -> int:
    directory = library_dir(getattr(args, "library", None))
    saved: int | None = None
    with wiring.open_library(directory) as library:
        store = ConversationStore(library.conn)
        saved = stored_conversation(store, args.conversation)
        earlier = store.questions(saved) if saved is not None else []
        try:
            chat = chat_model_from_args(args)
            with wiring.answerer(directory, library, chat, mode=args.mode, sql_style=args.sql_style) as answerer:
                sys.stderr.write("Ask about your documents, one question a line; a question may follow up the one "
                                 "before it. Ctrl-D ends.\n")
                for question in questions(sys.stdin):
                    try:
                        answer = answerer.answer(question, JobContext(report_progress), earlier=earlier)
                    except UserError as exc:  # this question failed; the session goes on
                        sys.stderr.write(f"folio: {messages.describe(exc)}\n")
                        continue
                    print_answer(answer)
                    sys.stdout.write("\n")
                    sys.stdout.flush()
                    earlier.append(answer.read_as or answer.question)
                    saved = save_exchange(store, saved, answer)
        except (ModelError, FolioError) as exc:
            sys.stderr.write(f"folio: {messages.describe(exc)}\n")
            return 2
        finally:
            if saved is not None:
                sys.stderr.write(f"Saved as conversation {saved} (folio chat --conversation {saved} goes on "
                                 f"with it).\n")
    return 0


def cmd_conversations(args: argparse.Namespace) -> int:
    with wiring.open_library(library_dir(getattr(args, "library", None))) as library:
        conversations = ConversationStore(library.conn).conversations()
    if not conversations:
        print("No conversations yet.")
    for conversation in conversations:
        asked = conversation.message_count // 2
        print(f"[{conversation.id}] {conversation.title}  ({messages.plural(asked, 'question')}, "
              f"{conversation.updated_at[:16].replace('T', ' ')})")
    return 0
