"""Shared fixtures: a deterministic hash embedder for fast tests, temporary libraries, sample paths."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from models.embedding import switch_off_telemetry

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# `folio ask` run by tests answers in its own process: a warm model process would outlive the test
# (tests/app/test_warm_model.py starts and stops its own).
os.environ.setdefault("FOLIO_WARM_MODEL_SECONDS", "0")
switch_off_telemetry()  # the test process imports onnxruntime (through pymupdf) too

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLES = SHARED / "samples"
BENCH = SHARED / "bench"


class HashEmbedder:
    """Bag-of-words vectors from hashed tokens: deterministic, instant, and similar texts score higher."""

    name = "hash-embedder"
    dimension = 384

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in re.findall(r"\w+", text.lower()):
                bucket = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "little")
                out[i, bucket % self.dimension] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
            if not norm:
                out[i, 0] = 1.0
        return out


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"sample PDFs not found at {SAMPLES} (the shared folder is absent)")
    return SAMPLES


@pytest.fixture
def library_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "library"
    directory.mkdir()
    yield directory
