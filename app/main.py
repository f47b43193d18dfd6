"""Start-up: ``folio`` with a command runs the command line; without one it opens the window."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from models.embedding import switch_off_telemetry

# First thing, before anything imports onnxruntime (pymupdf does): see models/embedding.py.
switch_off_telemetry()


def main(argv: Sequence[str] | None = None) -> int:
    from app import cli

    args = list(sys.argv[1:] if argv is None else argv)
    code = cli.run(args)
    if code >= 0:
        return code
    from app.gui import run_gui

    return run_gui(cli.build_parser().parse_args(args))


if __name__ == "__main__":
    # Ingestion extracts pages in worker processes started with "spawn". In a PyInstaller bundle each
    # worker is this same executable: freeze_support runs the worker and exits before main() starts.
    import multiprocessing

    multiprocessing.freeze_support()
    sys.exit(main())
