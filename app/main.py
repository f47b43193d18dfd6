"""Start-up: ``folio`` with a command runs the command line; without one it opens the window, after
checking that there is a display to open it on and that the system libraries Qt's X11 plugin needs are
installed (without them Qt aborts with a core dump instead of a message)."""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Mapping, Sequence

QT_XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xcb-icccm": "libxcb-icccm4", "xcb-keysyms": "libxcb-keysyms1"}
"""Libraries Qt 6's xcb platform plugin loads (name for ``find_library`` -> Debian/Ubuntu package)."""
NO_WINDOW_HINT = ("Use `folio --screenshot out.png [--ask \"question\"]` to render the window offscreen, "
                  "or the command line (`folio ask \"question\"`; see `folio --help`).")


def display_problem(environ: Mapping[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why the window cannot open here, in one line, or None when it can (or Qt was told what to use)."""
    environ = os.environ if environ is None else environ
    if not platform.startswith("linux") or environ.get("QT_QPA_PLATFORM"):
        return None
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        return f"no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). {NO_WINDOW_HINT}"
    if environ.get("WAYLAND_DISPLAY"):
        return None
    missing = [package for library, package in QT_XCB_LIBRARIES.items() if ctypes.util.find_library(library) is None]
    if missing:
        return (f"the window needs system libraries that are missing: {', '.join(missing)}. Install them with "
                f"`sudo apt-get install {' '.join(QT_XCB_LIBRARIES.values())}`. {NO_WINDOW_HINT}")
    return None

from models.embedding import switch_off_telemetry

# First thing, before anything imports onnxruntime (pymupdf does): see models/embedding.py.
switch_off_telemetry()


def main(argv: Sequence[str] | None = None) -> int:
    from app import cli

    args = list(sys.argv[1:] if argv is None else argv)
    code = cli.run(args)
    if code >= 0:
        return code
    parsed = cli.build_parser().parse_args(args)
    problem = None if getattr(parsed, "screenshot", None) else display_problem()
    if problem:
        sys.stderr.write(f"folio: {problem}\n")
        return 2
    from app.gui import run_gui

    return run_gui(parsed)


if __name__ == "__main__":
    # Ingestion extracts pages in worker processes started with "spawn". In a PyInstaller bundle each
    # worker is this same executable: freeze_support runs the worker and exits before main() starts.
    import multiprocessing

    multiprocessing.freeze_support()
    sys.exit(main())
