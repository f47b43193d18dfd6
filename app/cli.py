"""The command line: ``folio ingest | tables | library | sql | export | ask | chat | conversations | models``, used by people, scripts and the
benchmarks. Progress goes to stderr, results to stdout; the exit code is non-zero when anything failed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from app import messages, wiring
from app.ask_command import add_parser as add_ask_parser
from app.chat_command import add_parsers as add_chat_parsers
from app.messages import plural
from app.models_command import add_parser as add_models_parser
from app.paths import library_dir
from core.errors import FolioError, UserError
from core.jobs import JobContext
from core.sql.runner import display_value, json_value
from models.types import ProgressEvent


class ProgressPrinter:
    """Writes progress events to stderr: one updating line on a terminal, a line per stage otherwise."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr  # looked up now: sys.stderr may have been replaced since import
        self.tty = self.stream.isatty()
        self._last: tuple[str | None, str] | None = None

    def __call__(self, event: ProgressEvent) -> None:
        where = f"{event.document}: " if event.document else ""
        amount = f" [{event.done}/{event.total}]" if event.total else ""
        line = f"{where}{event.stage}{amount} {event.message}".rstrip()
        if self.tty:
            self.stream.write("\r\033[K" + line[:150])
            if event.stage == "done":
                self.stream.write("\n")
            self.stream.flush()
            return
        key = (event.document, event.stage)
        if key != self._last:
            self._last = key
            self.stream.write(line + "\n")


def _print_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up when called, so a redirected stdout is used
    text_rows = [[display_value(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in text_rows]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    out.writelines("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() + "\n" for row in text_rows)


def cmd_ingest(args: argparse.Namespace) -> int:
    directory = library_dir(args.library)
    paths = [Path(p) for p in args.paths]
    with wiring.open_library(directory) as library:
        ingestor = wiring.make_ingestor(library)
        ctx = JobContext(ProgressPrinter())
        results = ingestor.ingest_paths(paths, ctx, passwords=_expand_passwords(paths, args.password))
        failed = [r for r in results if r.status in ("failed", "cancelled")]
        added = [r for r in results if r.status == "added"]
        for r in results:
            mark = {"added": "added  ", "skipped": "skipped", "failed": "FAILED ", "cancelled": "stopped"}[r.status]
            sys.stderr.write(f"{mark} {r.path}: {r.message}\n")
        totals = library.counts()
        counted = ", ".join(plural(n, w) for n, w in ((sum(r.pages for r in added), "page"),
                                                     (sum(r.chunks for r in added), "chunk"),
                                                     (sum(r.tables for r in added), "table")))
        held = ", ".join(plural(totals[k], w) for k, w in (("documents", "document"), ("pages", "page"),
                                                            ("chunks", "chunk"), ("tables", "table")))
        print(f"{len(added)} added ({counted}), {len(results) - len(added) - len(failed)} already present, "
              f"{len(failed)} failed. Library {library.path}: {held}.")
    return 1 if failed or not results else 0


def _expand_passwords(paths: Sequence[Path], password: str | None) -> dict[Path, str] | None:
    if not password:
        return None
    from core.ingest.ingestor import expand_paths

    return {p: password for p in expand_paths(paths)}


def cmd_tables(args: argparse.Namespace) -> int:
    from core.ingest.extraction import extract_tables
    from core.ingest.pdf_reader import open_pdf

    path = Path(args.file)
    open_pdf(path, args.password).close()  # clear errors for bad input before extraction starts
    tables = extract_tables(path, password=args.password)
    if args.json:
        json.dump([t.to_json() for t in tables], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    for i, table in enumerate(tables, 1):
        print(f"Table {i}: page {table.page}, {table.n_rows} rows x {table.n_cols} columns, "
              f"{plural(table.header_rows, 'header row')}, by {table.extractor}" + (f" — {table.caption}" if table.caption else ""))
        width = table.n_cols
        header = [" / ".join(filter(None, (table.rows[r][c] for r in range(table.header_rows)))) or f"col_{c + 1}"
                  for c in range(width)]
        _print_table(header, [list(r) for r in table.rows[table.header_rows:]])
        print()
    if not tables:
        print("No tables found.")
    return 0


def cmd_library(args: argparse.Namespace) -> int:
    directory = library_dir(args.library)
    with wiring.open_library(directory) as library:
        documents = library.documents()
        tables = library.tables()
        if args.json:
            payload = [
                {
                    "id": d.id, "file_name": d.file_name, "title": d.title, "pages": d.page_count, "status": d.status,
                    "note": d.note, "sha256": d.sha256, "chunks": d.chunk_count,
                    "tables": [t.schema.to_json() | {"rows": t.row_count, "last_page": t.last_page}
                               for t in tables if t.document_id == d.id],
                }
                for d in documents
            ]
            json.dump({"library": str(library.path), "documents": payload}, sys.stdout, ensure_ascii=False, indent=1)
            sys.stdout.write("\n")
            return 0
        print(f"Library {library.path}: {len(documents)} document(s)")
        for d in documents:
            unit = "sheet" if d.kind == "sheet" else "page"
            print(f"\n[{d.id}] {d.file_name} — {d.title} ({plural(d.page_count, unit)}, "
                  f"{plural(d.table_count, 'table')}, {d.status})"
                  + (f"\n    {d.note}" if d.note else ""))
            for t in (t for t in tables if t.document_id == d.id):
                pages = f"p.{t.page}" + (f"-{t.last_page}" if t.last_page != t.page else "")
                if d.kind == "sheet":
                    pages = f"sheet {library.page_label(d.id, t.page)}"
                print(f"    {t.name}  ({pages}, {t.row_count} rows{', unit ' + t.unit if t.unit else ''})"
                      + (f"  {t.caption or t.heading}" if (t.caption or t.heading) else ""))
                for c in t.schema.columns:
                    print(f"        {c.name:<24} {c.type:<8} {c.unit:<10} e.g. {', '.join(c.examples)}")
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    directory = library_dir(args.library)
    with wiring.open_library(directory):
        pass  # creates and migrates the library if needed, so the read-only connection can open it
    runner = wiring.make_sql_runner(directory, max_rows=args.max_rows)
    try:
        result = runner.run(args.query)
    finally:
        runner.close()
    if args.json:
        json.dump({"columns": list(result.columns), "rows": [[json_value(v) for v in r] for r in result.rows],
                   "truncated": result.truncated, "limited_by": result.limited_by or None}, sys.stdout,
                  ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        _print_table(result.columns, result.rows)
        if result.limited_by == "bytes":
            print(f"... (first {len(result.rows)} rows shown: a result is limited to "
                  f"{runner.max_result_bytes // (1 << 20)} MB)")
        elif result.truncated:
            print(f"... (first {len(result.rows)} rows shown)")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from core.library.export import export_format, export_tables, tables_to_export

    directory = library_dir(args.library)
    out = Path(args.out)
    fmt = export_format(out, args.format)
    with wiring.open_library(directory) as library:
        tables = tables_to_export(library, args.document, args.table)
        written = export_tables(library, tables, fmt, out, JobContext(ProgressPrinter()), contents=not args.table)
    where = written[0] if len(written) == 1 else out
    print(f"Exported {plural(len(tables), 'table')} to {where}" + (f" ({plural(len(written), 'file')})"
                                                                     if len(written) > 1 else ""))
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def window_size(text: str) -> tuple[int, int]:
    """ "1366x768" -> (1366, 768), for ``--size``."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size like 1366x768, not {text!r}") from None
    if not (320 <= width <= 8000 and 240 <= height <= 8000):
        raise argparse.ArgumentTypeError(f"{text} is not a window size (320x240 to 8000x8000)")
    return width, height


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="folio", description="Ask questions about your PDF reports, offline.")
    parser.add_argument("--library", metavar="DIR", help="library directory (default: $FOLIO_LIBRARY or your data directory)")
    parser.add_argument("--screenshot", metavar="PATH", help="start the window offscreen, save a PNG of it and exit")
    parser.add_argument("--ask", metavar="QUESTION", help="with --screenshot: ask this first and wait for the answer")
    parser.add_argument("--size", metavar="WxH", type=window_size, default=None,
                        help="with --screenshot: the window's size in pixels (default: 1360x820)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    library_opt = argparse.ArgumentParser(add_help=False)
    library_opt.add_argument("--library", metavar="DIR", default=argparse.SUPPRESS, help="library directory")

    p = sub.add_parser("ingest", parents=[library_opt],
                       help="add PDF files, spreadsheets (.xlsx .xls .ods), CSV files or folders to the library")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="PDF, spreadsheet or CSV files, or folders searched for them")
    p.add_argument("--password", help="password for encrypted PDFs")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("tables", help="extract the tables of a PDF without storing them")
    p.add_argument("file", metavar="FILE.pdf", help="the PDF to read")
    p.add_argument("--json", action="store_true", help="print a JSON list of tables")
    p.add_argument("--password", help="password for an encrypted PDF")
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("library", parents=[library_opt], help="list documents and their tables")
    p.add_argument("--json", action="store_true", help="print the documents and their tables' schemas as JSON")
    p.set_defaults(func=cmd_library)

    p = sub.add_parser("sql", parents=[library_opt], help="run read-only SQL over the library")
    p.add_argument("query", metavar="SQL", help="one read-only SQLite statement, in quotes (see `folio library`)")
    p.add_argument("--json", action="store_true", help="print {columns, rows, truncated} as JSON")
    p.add_argument("--max-rows", type=_positive_int, default=200, metavar="N", help="show at most N rows (default: 200)")
    p.set_defaults(func=cmd_sql)

    p = sub.add_parser("export", parents=[library_opt],
                       help="write a table, or every table of a document, as CSV or an Excel workbook")
    p.add_argument("out", metavar="OUT", help="the file to write (a folder for a document's tables as CSV)")
    p.add_argument("--document", metavar="NAME", help="every table of this document (file name, id or title)")
    p.add_argument("--table", metavar="NAME", help="this table (its SQL name, as `folio library` lists it, or id)")
    p.add_argument("--format", choices=("csv", "xlsx"), help="csv or xlsx (default: from OUT's extension)")
    p.set_defaults(func=cmd_export)

    add_ask_parser(sub, library_opt)
    add_chat_parsers(sub, library_opt)
    add_models_parser(sub)
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        return -1  # the caller starts the window
    try:
        return int(args.func(args))
    except UserError as exc:
        sys.stderr.write(f"folio: {messages.describe(exc)}\n")
        return 2
    except FolioError as exc:
        sys.stderr.write(f"folio: {messages.describe(exc)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("folio: interrupted\n")
        return 130
