"""Shared fixtures of the end-to-end tests: the real embedded model, loaded once per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from models.errors import ModelUnavailable
from models.weights import find_weights


@pytest.fixture(scope="module")
def chat() -> Iterator[object]:
    """The embedded 1.5B model (skips the module's tests when its weights are not installed)."""
    try:
        find_weights()
    except ModelUnavailable as exc:
        pytest.skip(f"embedded model weights are not installed: {exc}")
    from models.llm_embedded import EmbeddedChatModel

    yield EmbeddedChatModel()
