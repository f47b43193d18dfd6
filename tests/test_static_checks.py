"""The linters the project is held to, run as tests so CI enforces them: ruff over the code and the
tests, mypy over the packages (its scope is ``[tool.mypy] files`` in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e .[dev])")
    return found


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([_tool("ruff"), "check", "--quiet", "app", "core", "models", "ui", "tests", "packaging"],
                            cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = subprocess.run([_tool("mypy")], cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
