"""The real all-MiniLM-L6-v2 ONNX embedder (no fakes): shapes, unit length, meaning; its int8 graph, and its
vectors beside the float graph's that an older Folio used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.embedding import MiniLMEmbedder, find_model_files
from tests.support.embedders import FloatMiniLMEmbedder

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    find_model_files()  # raises with a clear message if the set-up did not install the model
    MiniLMEmbedder().model_file()  # and if it did not make the int8 model
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


def test_the_model_computes_in_int8(embedder: MiniLMEmbedder) -> None:
    """The package's graph casts its int8 weights to float; the set-up's graph multiplies integers."""
    import onnx

    def ops(path: Path) -> set[str]:
        return {node.op_type for node in onnx.load(str(path), load_external_data=False).graph.node}

    assert "MatMulInteger" not in ops(find_model_files()[0])
    assert {"MatMulInteger", "DynamicQuantizeLinear"} <= ops(embedder.model_file())
    assert embedder.name != FloatMiniLMEmbedder.name  # other vectors, so another name in the library


def test_int8_vectors_are_near_the_float_ones_on_report_text(embedder: MiniLMEmbedder, samples: Path) -> None:
    import pymupdf

    texts: list[str] = []
    for pdf in sorted(samples.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            if doc.needs_pass:
                continue
            texts += [" ".join(b[4].split()) for page in doc for b in page.get_text("blocks") if len(b[4].split()) >= 8]
    assert len(texts) >= 40
    new = embedder.embed(texts)
    old = FloatMiniLMEmbedder().embed(texts)
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
    cosine = np.sum(new * old, axis=1)
    assert cosine.min() > 0.98 and cosine.mean() > 0.99
