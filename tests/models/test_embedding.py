"""The real all-MiniLM-L6-v2 ONNX embedder (no fakes): shapes, unit length, meaning."""

from __future__ import annotations

import numpy as np
import pytest

from models.embedding import MiniLMEmbedder, find_model_files

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    find_model_files()  # raises with a clear message if the set-up did not install the model
    return MiniLMEmbedder()


def test_vectors_are_unit_length_and_batch_independent(embedder: MiniLMEmbedder) -> None:
    texts = ["Total revenue in 2019", "a", "The council spent more on roads than on parks. " * 20]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    alone = embedder.embed([texts[0]])[0]
    assert float(alone @ vectors[0]) > 0.9999


def test_similar_meanings_score_higher(embedder: MiniLMEmbedder) -> None:
    query, close, far = embedder.embed(
        ["How much did the company earn in 2019?", "Revenue for fiscal year 2019 was $1.2 billion.", "The cat sat on the mat."]
    )
    assert float(query @ close) > float(query @ far) + 0.2


def test_empty_input(embedder: MiniLMEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_batches_group_similar_lengths_within_the_token_budget() -> None:
    from models.embedding import BATCH_SIZE, BATCH_TOKENS, _batches

    lengths = [5, 300, 7, 120, 120, 6, 9, 250] + [3] * 70
    batches = _batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= BATCH_SIZE
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= BATCH_TOKENS
    # Sorted by length: the long texts are not padded into the short ones' batches.
    assert any(set(b) == {3, 4} for b in batches)


def test_calls_from_two_threads_give_the_same_vectors(embedder: MiniLMEmbedder) -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"Revenue of region {i} rose by {i} percent in the year to June." * (1 + i % 4) for i in range(24)]
    alone = embedder.embed(texts)
    with ThreadPoolExecutor(2) as pool:
        halves = list(pool.map(embedder.embed, [texts[:12], texts[12:]]))
    assert np.allclose(np.vstack(halves), alone, atol=1e-5)
