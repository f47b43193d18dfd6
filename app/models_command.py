"""``folio models``: which models a server offers, and whether one answers (a tiny call).

    folio models [--backend ollama|openai] [--base-url URL] [--ollama-host URL] [--model NAME] [--check]

Lists the models of the Ollama server or the OpenAI-compatible server (``/v1/models``), one per line;
``--check`` then asks the chosen model (``--model``, else the saved one, else the first listed) for one
word and says how long it took. Unset options come from the saved settings; the API key only from
``$FOLIO_OPENAI_API_KEY`` or the settings file. A server problem is one message on stderr, exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from app import messages
from app.chat_models import served_models, try_model
from app.settings import OPENAI_API_KEY_ENV, Settings, load_settings
from models.errors import ModelError


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``models`` on the CLI's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "models", help="list the models of an Ollama or OpenAI-compatible server; --check makes a tiny call")
    p.add_argument("--backend", choices=("ollama", "openai"), default=None,
                   help="which kind of server (default: the one in Settings when it is a server, else ollama)")
    p.add_argument("--base-url", default=None, metavar="URL", help="the OpenAI-compatible server's API root")
    p.add_argument("--ollama-host", default=None, metavar="URL")
    p.add_argument("--model", default=None, metavar="NAME", help="the model --check asks")
    p.add_argument("--check", action="store_true", help=f"ask the model for one word (key: ${OPENAI_API_KEY_ENV})")
    p.set_defaults(func=cmd_models)
    return p


def _settings(args: argparse.Namespace) -> Settings:
    saved = load_settings()
    backend = args.backend or (saved.backend if saved.backend in ("ollama", "openai") else "ollama")
    chosen = replace(saved, backend=backend)
    if args.base_url:
        chosen = replace(chosen, openai_base_url=args.base_url,
                         openai_model="" if args.base_url != saved.openai_base_url else saved.openai_model)
    if args.ollama_host:
        chosen = replace(chosen, ollama_host=args.ollama_host)
    if args.model:
        chosen = replace(chosen, **{"openai_model" if backend == "openai" else "ollama_model": args.model})
    return chosen.checked()


def cmd_models(args: argparse.Namespace) -> int:
    settings = _settings(args)
    try:
        names = served_models(settings)
        for name in names:
            print(name)
        if args.check:
            field = "openai_model" if settings.backend == "openai" else "ollama_model"
            if not getattr(settings, field) and names:
                settings = replace(settings, **{field: names[0]})
            print(try_model(settings))
    except ModelError as exc:
        sys.stderr.write(f"folio: {messages.describe(exc)}\n")
        return 2
    return 0
