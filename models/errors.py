"""Errors raised by the model runtimes. ``UserFixable`` ones carry a message a person can act on."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.types import Usage


class ModelError(Exception):
    """A model runtime failed. ``usage`` is what the failed call cost (tokens, seconds), where it ran at all: a
    failed call is counted like any other."""

    user_fixable = False

    def __init__(self, message: str = "", usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class ModelUnavailable(ModelError):
    """The model cannot be used right now: server unreachable, model missing, weights not installed."""

    user_fixable = True


class ModelOutputError(ModelError):
    """The model answered with something that could not be used (invalid JSON despite the schema)."""


class ContextTooSmall(ModelError):
    """The prompt and the reply do not fit the model's context window (the server said so)."""

    user_fixable = True

    def __init__(self, message: str, context_tokens: int | None = None) -> None:
        super().__init__(message)
        self.context_tokens = context_tokens
        """The context size the server reported, when it said."""
