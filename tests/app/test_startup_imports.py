"""Start-up stays light: importing the window's modules and building the window over a library must not
import the extraction stack (camelot, opencv, pandas, pymupdf and the onnxruntime it pulls in), the ONNX
embedder or the LLM runtime. They load on the first ingestion or question. Each check runs in a fresh
interpreter, since this test process has long imported all of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.controller import ACCEPTED_SUFFIXES
from core.ingest.ingestor import INGESTED_SUFFIXES

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("camelot", "cv2", "pandas", "pymupdf", "fitz", "onnxruntime", "tokenizers", "llama_cpp",
         "models.embedding", "models.llm_embedded", "core.ingest.ingestor", "core.ingest.extraction", "core.answering")

REPORT_HEAVY = f"""
import json, sys
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def heavy_modules_after(code: str, tmp_path: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen",
           "FOLIO_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-c", code + REPORT_HEAVY], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_window_loads_no_extraction_embedder_or_llm(tmp_path: Path) -> None:
    assert heavy_modules_after("import app.gui", tmp_path) == []


def test_building_the_window_loads_none_of_them_either(tmp_path: Path) -> None:
    code = f"""
from app.gui import make_application
from app.controller import Controller
from app.settings import Settings
from ui.main_window import MainWindow
application = make_application()
controller = Controller({str(tmp_path / 'library')!r}, Settings())
window = MainWindow(controller)
window.show()
application.processEvents()
window.close()
controller.close()
"""
    assert heavy_modules_after(code, tmp_path) == []


def test_the_check_sees_a_heavy_import(tmp_path: Path) -> None:
    assert {"core.ingest.extraction", "core.ingest.ingestor", "pymupdf"} <= set(
        heavy_modules_after("import app.gui\nimport core.ingest.ingestor", tmp_path))


def test_the_window_accepts_what_ingestion_reads() -> None:
    assert ACCEPTED_SUFFIXES == tuple(sorted(INGESTED_SUFFIXES))
