"""Running core jobs on a thread pool and turning what they report into Qt signals.

A job is a plain callable ``work(ctx, report) -> result``: ``ctx`` is a ``core.jobs.JobContext``
(progress and cancellation, no Qt) and ``report(kind, value)`` passes anything else the job wants
the window to hear as it goes (an ingested file's result, a streamed token, a reasoning step).

Every job ends in exactly one of ``finished(result)``, ``failed(message, error)`` or ``cancelled()``:
the worker catches every exception, and a job ends ``cancelled`` when its work raised ``Cancelled``
(work that returns normally has finished, even when a cancel arrived too late to stop it). All of a job's signals are emitted on the main thread, in the
order the worker produced them, because the worker only ever posts events to a relay object whose
queued connection delivers them to the ``Job`` living on the main thread.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any, cast

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from app import messages
from core.errors import Cancelled, UserError
from core.jobs import CancelToken, JobContext
from models.errors import ModelError
from models.types import ProgressEvent

log = logging.getLogger(__name__)

Report = Callable[[str, Any], None]
Work = Callable[[JobContext, Report], Any]

_ids = itertools.count(1)


class _Relay(QObject):
    """Carries events from the worker thread to the main thread (a queued connection)."""

    posted = Signal(str, object)


class Job(QObject):
    """One submitted piece of work, as the window sees it."""

    progressed = Signal(object)  # ProgressEvent
    reported = Signal(str, object)  # kind, value: whatever the job reports besides progress
    finished = Signal(object)  # the work's return value
    failed = Signal(str, object)  # a message for people, the exception
    cancelled = Signal()
    ended = Signal()  # after any of the three above

    def __init__(self, kind: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.id = next(_ids)
        self.kind = kind
        self.token = CancelToken()
        self.outcome: str | None = None  # "finished" | "failed" | "cancelled" once ended
        self.result: Any = None
        self.error_message = ""
        self._relay = _Relay()
        self._relay.posted.connect(self._on_posted)

    @property
    def running(self) -> bool:
        return self.outcome is None

    def cancel(self) -> None:
        """Ask the job to stop at its next check; it then ends with ``cancelled``."""
        self.token.cancel()

    @Slot(str, object)
    def _on_posted(self, kind: str, value: object) -> None:
        if self.outcome is not None:
            return
        if kind == "progress":
            self.progressed.emit(value)
        elif kind == "report":
            name, payload = cast("tuple[str, object]", value)
            self.reported.emit(name, payload)
        else:
            self.outcome = kind
            if kind == "finished":
                self.result = value
                self.finished.emit(value)
            elif kind == "failed":
                message, error = cast("tuple[str, BaseException]", value)
                self.error_message = message
                self.failed.emit(message, error)
            else:
                self.cancelled.emit()
            self.ended.emit()


class _Worker(QRunnable):
    def __init__(self, job: Job, work: Work) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._job = job
        self._work = work
        self._relay = job._relay

    def run(self) -> None:
        post = self._relay.posted.emit
        token = self._job.token

        def on_progress(event: ProgressEvent) -> None:
            post("progress", event)

        def report(kind: str, value: Any) -> None:
            post("report", (kind, value))

        try:
            result = self._work(JobContext(on_progress, token), report)
        except Cancelled:
            post("cancelled", None)
        except BaseException as exc:  # the window must always hear the end, whatever happened
            if token.cancelled and not isinstance(exc, (MemoryError, OSError)):
                post("cancelled", None)
            else:
                if not isinstance(exc, (UserError, ModelError)):
                    log.exception("job %s failed", self._job.kind)  # a bug: keep its traceback
                post("failed", (messages.describe(exc), exc))
        else:
            # Work that returns normally finished, even if a cancel came too late to stop it: the
            # window must be told what really happened (a file added just before Esc is added).
            post("finished", result)


class JobRunner(QObject):
    """Submits jobs to a thread pool and keeps track of those still running."""

    job_started = Signal(object)  # Job

    def __init__(self, max_threads: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._jobs: list[Job] = []

    def submit(self, kind: str, work: Work) -> Job:
        job = Job(kind, self)
        self._jobs.append(job)
        job.ended.connect(self._on_job_ended)
        self.job_started.emit(job)
        self.pool.start(_Worker(job, work))
        return job

    @Slot()
    def _on_job_ended(self) -> None:
        self._jobs = [job for job in self._jobs if job.running]

    def running(self, kind: str | None = None) -> list[Job]:
        return [job for job in self._jobs if job.running and (kind is None or job.kind == kind)]

    def cancel_all(self) -> None:
        for job in self.running():
            job.cancel()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel everything and wait for the workers; True when they all stopped in time."""
        self.cancel_all()
        return bool(self.pool.waitForDone(timeout_ms))
