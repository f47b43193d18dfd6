"""The folders are the architecture: imports flow ui -> app -> core -> models, never back.

Scans every module's imports (including ones inside functions) with ``ast``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("models", "core", "app", "ui")
QT_MODULES = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "qtpy")
# What each layer may import from the project.
ALLOWED = {
    "models": {"models"},
    "core": {"core", "models"},
    "app": {"app", "core", "models", "ui"},  # app builds the window (ui) and wires core into it
    "ui": {"ui", "app", "models"},
}
# The UI gets data through app/, never from storage, SQL, retrieval or HTTP directly.
UI_FORBIDDEN_MODULES = ("sqlite3", "pysqlite3", "sqlite_vec", "core", "http", "urllib", "requests", "httpx", "ollama",
                        "app.wiring")


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def modules(layer: str) -> list[Path]:
    return sorted((REPO / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_imports_flow_one_way(layer: str) -> None:
    violations = []
    for path in modules(layer):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top in LAYERS and top not in ALLOWED[layer]:
                violations.append(f"{path.relative_to(REPO)} imports {name}")
    assert not violations, "\n".join(violations)


@pytest.mark.parametrize("layer", ["core", "models"])
def test_engine_never_imports_qt(layer: str) -> None:
    bad = [f"{p.relative_to(REPO)} imports {n}" for p in modules(layer) for n in imports_of(p)
           if n.split(".")[0] in QT_MODULES]
    assert not bad, "\n".join(bad)


def test_ui_never_touches_storage_sql_or_http() -> None:
    bad = [f"{p.relative_to(REPO)} imports {n}" for p in modules("ui") for n in imports_of(p)
           if any(n == m or n.startswith(m + ".") for m in UI_FORBIDDEN_MODULES)]
    assert not bad, "\n".join(bad)


def test_the_scanner_sees_violations(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import os\ndef f():\n    from PySide6 import QtCore\n    import core.library.store\n")
    assert imports_of(sample) == ["os", "PySide6", "core.library.store"]


def test_only_the_gui_start_up_module_of_app_builds_widgets() -> None:
    """app/ is the seam: only app/gui.py (start-up) may import ui/, so the engine side never needs Qt."""
    bad = [f"{p.relative_to(REPO)} imports {n}" for p in modules("app") if p.name != "gui.py"
           for n in imports_of(p) if n.split(".")[0] == "ui"]
    assert not bad, "\n".join(bad)


# The engine's rooms (core/<room>/) and what each may import of the others: the folders are the pipeline.
ROOMS: dict[str, set[str]] = {
    "reports": set(),
    "library": {"reports"},
    "search": {"library", "reports"},
    "sql": {"library", "reports"},
    "ingest": {"library", "reports"},
    "answering": {"search", "sql", "library", "reports"},
}
CORE_TOP_MODULES = {"__init__", "jobs", "errors"}
"""The only modules at core/'s top: what every room shares."""


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "core" and parts[1] in ROOMS else None


def test_every_core_module_lives_in_a_room() -> None:
    loose = [p.relative_to(REPO).as_posix() for p in (REPO / "core").glob("*.py") if p.stem not in CORE_TOP_MODULES]
    unknown = [p.name for p in (REPO / "core").iterdir() if p.is_dir() and p.name not in ROOMS and p.name != "__pycache__"]
    assert not loose and not unknown, f"modules outside a room: {loose}; folders that are not rooms: {unknown}"


def test_rooms_import_one_way() -> None:
    violations = []
    for path in modules("core"):
        own = _room(".".join(path.relative_to(REPO).with_suffix("").parts))
        for name in imports_of(path):
            other = _room(name)
            if own and other and other != own and other not in ROOMS[own]:
                violations.append(f"{path.relative_to(REPO)} ({own}) imports {name} ({other})")
            if own is None and other is not None and path.stem in CORE_TOP_MODULES:
                violations.append(f"{path.relative_to(REPO)} (shared by every room) imports {name}")
    assert not violations, "\n".join(violations)


def test_each_room_says_what_it_owns_and_may_import() -> None:
    for room in ROOMS:
        doc = ast.get_docstring(ast.parse((REPO / "core" / room / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"core/{room}/__init__.py must say what the room owns and may import"


def test_the_room_check_sees_a_violation() -> None:
    assert _room("core.answering.loop") == "answering" and _room("core.jobs") is None
    assert "answering" not in ROOMS["search"] and "ingest" not in ROOMS["answering"]
