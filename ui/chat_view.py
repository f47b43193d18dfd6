"""The chat panel: the conversation picker, the transcript (questions and answers, the answer
streaming in, numbered citations inside and under it, the reasoning steps to unfold, copy and
export), and the question box (Enter asks, Esc stops).

While an answer is being worked out its bubble shows the stage (searching, reading a table,
computing, checking against the text, writing) and the seconds taken so far, and the panel repeats
that line for the status bar (``progress_changed``). A finished answer says how far it can be
trusted (checked, not cross-checked, in conflict) and a refusal is shown as one. Stop frees the
panel at once, whatever the stage; the answer's job ends at its next check."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QElapsedTimer, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.controller import citation_label, citation_numbers
from app.messages import answer_kind, answer_note, plural
from app.qt_jobs import Job
from app.series import point_citation
from models.types import Answer, Step
from ui import style
from ui.chart_view import ChartView

log = logging.getLogger(__name__)
ChartFor = Callable[[Answer], Any]
"""The chart of an answer's series (``app.controller.Controller.answer_chart``), or None."""

_MARKER = re.compile(r"\[(\d+)\]")
STREAM_REFRESH_MS = 60
CLOCK_MS = 1000
NOTE_COLOURS = {"checked": "#2e9d57", "conflict": "#c77700"}
RESULT_ROWS_SHOWN = 6
INLINE_MARKERS = 6


def answer_markdown_with_links(text: str, citation_count: int) -> str:
    """The answer's Markdown with every valid ``[n]`` turned into a link to citation n."""

    def link(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return f"[\\[{number}\\]](cite:{number})" if 1 <= number <= citation_count else match.group(0)

    return _MARKER.sub(link, text)


def with_markers(text: str, citation_count: int) -> str:
    """The answer text, ending with its citation markers when the model wrote none inside it."""
    if not citation_count or citation_numbers(text, citation_count):
        return text
    shown = min(citation_count, INLINE_MARKERS)
    return text.rstrip() + " " + "".join(f"[{n}]" for n in range(1, shown + 1))


def steps_html(steps: Sequence[Step]) -> str:
    parts = []
    for number, step in enumerate(steps, 1):
        part = [f"<p><b>Step {number}.</b> {html.escape(step.subquery)}</p>"]
        if step.sql:
            part.append(f"<p style='margin-left:12px; font-family:monospace; white-space:pre-wrap'>"
                        f"{html.escape(step.sql)}</p>")
        for failure in step.failures:
            part.append(f"<p style='margin-left:12px; color:#8a5a00'>Tried and failed: {html.escape(failure)}</p>")
        if step.sql_error:
            part.append(f"<p style='margin-left:12px'>SQL error: {html.escape(step.sql_error)}</p>")
        if step.sql_columns:
            head = "".join(f"<th align='left'>{html.escape(str(c))}</th>" for c in step.sql_columns)
            rows = "".join(
                "<tr>" + "".join(f"<td>{html.escape('' if v is None else str(v))}</td>" for v in row) + "</tr>"
                for row in step.sql_result[:RESULT_ROWS_SHOWN]
            )
            more = len(step.sql_result) - RESULT_ROWS_SHOWN
            part.append(f"<table cellspacing='0' cellpadding='3' border='1' style='margin-left:12px'>"
                        f"<tr>{head}</tr>{rows}</table>" + (f"<p>\u2026 {plural(more, 'more row')}</p>" if more > 0 else ""))
        if step.intermediate_answer:
            part.append(f"<p style='margin-left:12px'>\u2192 {html.escape(step.intermediate_answer)}</p>")
        if step.conflict:
            part.append(f"<p style='margin-left:12px'><b>Sources disagree:</b> {html.escape(step.conflict)}</p>")
        parts.append("".join(part))
    return "".join(parts)


class ElidedButton(QPushButton):
    """A flat link-like button whose text shortens with an ellipsis instead of widening the chat."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.full_text = text
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setToolTip(text)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        available = max(20, self.width() - 16)
        self.setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, available))


class QuestionCard(QFrame):
    def __init__(self, question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("question")
        self.setStyleSheet(style.question_style(self))
        self.label = QLabel(question)
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.label)


class AnswerCard(QFrame):
    """One answer: streamed text while it is being written, then the answer with its sources."""

    citation_clicked = Signal(object, int)  # Citation, its number
    copy_requested = Signal(object)  # Answer
    export_requested = Signal(object)  # Answer
    progress_changed = Signal(str)  # "Reading Table 1: Budget… 12 s" while working, "" once done
    ask_in_requested = Signal(str, object)  # the question, the Alternative (document) to ask it in

    def __init__(self, parent: QWidget | None = None, chart_for: ChartFor | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card")
        self.setStyleSheet(style.card_style(self))
        self.chart_for = chart_for
        self.chart_view: ChartView | None = None
        self.answer: Answer | None = None
        self.steps: list[Step] = []
        self._streamed = ""
        self.stage = "Starting"
        self._elapsed = QElapsedTimer()
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_MS)
        self._clock.timeout.connect(self._show_progress)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.text.setTextFormat(Qt.TextFormat.MarkdownText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.text.setOpenExternalLinks(False)
        self.text.linkActivated.connect(self._on_link)
        self.read_as = QLabel()
        self.read_as.setWordWrap(True)
        self.read_as.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.read_as.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.read_as.setStyleSheet(f"color: {style.muted_colour(self)}; font-style: italic;")
        self.read_as.setToolTip("The question as it was read against the conversation before it. If that is not "
                                "what you meant, ask again in full.")
        self.read_as.hide()
        self.status = QLabel("Thinking\u2026")
        self.status.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.status.setWordWrap(True)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.note.hide()
        self.sources = QVBoxLayout()
        self.sources.setSpacing(0)
        self.source_buttons: list[ElidedButton] = []
        self.alternatives = QVBoxLayout()
        self.alternatives.setSpacing(0)
        self.alternative_buttons: list[ElidedButton] = []
        self.steps_button = QToolButton()
        self.steps_button.setCheckable(True)
        self.steps_button.setAutoRaise(True)
        self.steps_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.steps_button.setArrowType(Qt.ArrowType.RightArrow)
        self.steps_button.toggled.connect(self._on_steps_toggled)
        self.steps_button.hide()
        self.steps_label = QLabel()
        self.steps_label.setWordWrap(True)
        self.steps_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.steps_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.steps_label.hide()
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the answer and its sources as Markdown")
        self.copy_button.setAutoRaise(True)
        self.copy_button.clicked.connect(lambda: self.answer and self.copy_requested.emit(self.answer))
        self.export_button = QToolButton()
        self.export_button.setText("Export\u2026")
        self.export_button.setToolTip("Save the answer and its sources as a Markdown file")
        self.export_button.setAutoRaise(True)
        self.export_button.clicked.connect(lambda: self.answer and self.export_requested.emit(self.answer))
        self.footer = QHBoxLayout()
        self.footer.addWidget(self.steps_button)
        self.footer.addStretch(1)
        self.footer.addWidget(self.copy_button)
        self.footer.addWidget(self.export_button)
        self.copy_button.hide()
        self.export_button.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.addWidget(self.text)
        layout.addWidget(self.read_as)
        layout.addWidget(self.note)
        layout.addWidget(self.status)
        layout.addLayout(self.sources)
        layout.addLayout(self.alternatives)
        layout.addLayout(self.footer)
        layout.addWidget(self.steps_label)
        self.text.hide()
        self._refresh = QTimer(self)
        self._refresh.setSingleShot(True)
        self._refresh.timeout.connect(self._show_streamed)

    # -- while the answer is being written -------------------------------------------------------------

    def start_clock(self) -> None:
        """Show the stage with the seconds taken so far, refreshed every second until the answer ends."""
        self._elapsed.start()
        self._clock.start()
        self._show_progress()

    def stop_clock(self) -> None:
        if self._clock.isActive():
            self._clock.stop()
            self.progress_changed.emit("")

    @property
    def seconds(self) -> int:
        return int(self._elapsed.elapsed() / 1000) if self._elapsed.isValid() else 0

    def progress_text(self) -> str:
        return f"{self.stage}\u2026 {self.seconds} s"

    @Slot()
    def _show_progress(self) -> None:
        if self.answer is None and self._clock.isActive():
            self.status.setText(self.progress_text())
            self.progress_changed.emit(self.progress_text())

    def set_stage(self, stage: str) -> None:
        self.stage = stage.rstrip("\u2026")
        self._show_progress()

    def add_token(self, token: str) -> None:
        self._streamed += token
        if not self._refresh.isActive():
            self._refresh.start(STREAM_REFRESH_MS)  # many tokens, one repaint

    def _show_streamed(self) -> None:
        if self.answer is None:
            self.text.setText(self._streamed)
            self.text.show()

    def add_step(self, step: Step) -> None:
        self.steps.append(step)
        self._update_steps()

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def show_error(self, message: str) -> None:
        self.stop_clock()
        self._refresh.stop()
        self.status.setText(message)
        self.status.setStyleSheet(f"color: {style.error_colour(self)};")
        self.status.show()

    # -- the finished answer ---------------------------------------------------------------------------

    def set_answer(self, answer: Answer) -> None:
        took = self.seconds if self._clock.isActive() else None
        self.stop_clock()
        self._refresh.stop()
        self.answer = answer
        self.steps = list(answer.steps)
        refused = answer.status == "refused"
        text = answer.text if refused else with_markers(answer.text, len(answer.citations))
        self.text.setText(("**No answer found.** " if refused else "")
                          + answer_markdown_with_links(text, len(answer.citations)))
        self.text.show()
        self.status.hide()
        self.read_as.setText(f"Read as: {answer.read_as}" if answer.read_as else "")
        self.read_as.setVisible(bool(answer.read_as))
        self._show_chart(answer)
        note = " ".join(filter(None, [answer_note(answer), answer_kind(answer)]))
        if took is not None and not refused:
            note = f"{note} ({took} s)" if note else f"Answered in {took} s."
        self.note.setText(note)
        colour = NOTE_COLOURS.get(answer.status) or style.muted_colour(self)
        self.note.setStyleSheet(f"color: {colour};")
        self.note.setVisible(bool(note))
        self.setProperty("status", answer.status)
        for button in self.source_buttons:
            self.sources.removeWidget(button)
            button.deleteLater()
        self.source_buttons = []
        if answer.citations:
            heading = QLabel("Closest sources" if refused else "Sources")
            heading.setStyleSheet(f"color: {style.muted_colour(self)}; margin-top: 6px;")
            self.sources.addWidget(heading)
        for number, citation in enumerate(answer.citations, 1):
            button = ElidedButton(f"[{number}]  {citation_label(citation)}")
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setStyleSheet("text-align: left; padding: 2px 4px;")
            detail = " ".join(citation.snippet.split())[:300]
            button.setToolTip(f"{button.full_text}\n{detail}".strip())
            button.clicked.connect(lambda _=False, c=citation, n=number: self.citation_clicked.emit(c, n))
            self.sources.addWidget(button)
            self.source_buttons.append(button)
        self._show_alternatives(answer)
        self._update_steps()
        self.copy_button.show()
        self.export_button.show()

    def _show_chart(self, answer: Answer) -> None:
        """A small chart under the sentence when the answer is a series; a click on a point opens its cell."""
        if self.chart_view is not None:
            self.chart_view.deleteLater()
            self.chart_view = None
        try:
            chart = self.chart_for(answer) if self.chart_for is not None else None
        except Exception:  # a chart that cannot be made leaves the answer as it is
            log.warning("No chart for an answer", exc_info=True)
            chart = None
        if chart is None:
            return
        self.chart_view = ChartView(chart)
        self.chart_view.point_clicked.connect(
            lambda point: self.citation_clicked.emit(point_citation(answer, point), point.citation))
        layout = self.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(layout.indexOf(self.text) + 1, self.chart_view)

    def _show_alternatives(self, answer: Answer) -> None:
        """The other documents the question matched (the answer chose one among equals): a click asks the same
        question in that document."""
        while self.alternatives.count():
            item = self.alternatives.takeAt(0)
            if item is not None and (widget := item.widget()) is not None:
                widget.deleteLater()
        self.alternative_buttons = []
        if not answer.alternatives:
            return
        heading = QLabel("Also matching")
        heading.setStyleSheet(f"color: {style.muted_colour(self)}; margin-top: 6px;")
        self.alternatives.addWidget(heading)
        for alternative in answer.alternatives:
            button = ElidedButton(f"Ask in {alternative.name}")
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setStyleSheet(f"text-align: left; padding: 2px 4px; color: {style.link_colour(self)};")
            asked = answer.read_as or answer.question  # a follow-up is asked again as it was understood
            button.setToolTip(f"Ask \u201c{asked}\u201d again, in {alternative.name} only")
            button.clicked.connect(lambda _=False, a=alternative, q=asked: self.ask_in_requested.emit(q, a))
            self.alternatives.addWidget(button)
            self.alternative_buttons.append(button)

    def _update_steps(self) -> None:
        self.steps_button.setVisible(bool(self.steps))
        self.steps_button.setText(f"Steps ({len(self.steps)})")
        if self.steps_button.isChecked():
            self.steps_label.setText(steps_html(self.steps))

    @Slot(bool)
    def _on_steps_toggled(self, shown: bool) -> None:
        self.steps_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        if shown:
            self.steps_label.setText(steps_html(self.steps))
        self.steps_label.setVisible(shown)

    @Slot(str)
    def _on_link(self, link: str) -> None:
        if self.answer is not None and link.startswith("cite:"):
            number = int(link.split(":", 1)[1])
            if 1 <= number <= len(self.answer.citations):
                self.citation_clicked.emit(self.answer.citations[number - 1], number)


class ChatView(QWidget):
    ask_requested = Signal(str)
    cancel_requested = Signal()
    conversation_selected = Signal(int)
    new_conversation_requested = Signal()
    citation_clicked = Signal(object, int)  # Citation, number
    copy_requested = Signal(object)  # Answer
    export_requested = Signal(object)  # Answer
    progress_changed = Signal(str)  # the answer's stage and seconds for the status bar; "" when it ends
    ask_in_requested = Signal(str, object)  # a question to ask again in one document (an Alternative)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.conversation_id: int | None = None
        self.job: Job | None = None
        self.pending: AnswerCard | None = None
        self.cards: list[QWidget] = []
        self.chart_for: ChartFor | None = None  # set by the window: the chart of an answer's series

        self.conversations = QComboBox()
        self.conversations.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.conversations.setMinimumContentsLength(24)
        self.conversations.setPlaceholderText("New conversation")
        self.conversations.activated.connect(self._on_conversation_activated)
        self.new_button = QPushButton("New conversation")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.new_conversation_requested)
        top = QHBoxLayout()
        top.addWidget(self.conversations, 1)
        top.addWidget(self.new_button)

        self.transcript = QWidget()
        self.transcript_layout = QVBoxLayout(self.transcript)
        self.transcript_layout.setSpacing(style.SPACING)
        self.transcript_layout.setContentsMargins(style.SPACING, style.SPACING, style.SPACING, style.SPACING)
        self.hint = QLabel(
            "<p style='font-size:15px'><b>Ask about your documents</b></p>"
            "<p>For example: <i>What was the total budget in 2024?</i> or <i>Which department grew most?</i><br>"
            "Numbers from tables are computed with SQL; click a source to see it on its page.</p>"
        )
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setStyleSheet(f"color: {style.muted_colour(self)};")
        # The hint sits in the middle of an empty chat; messages then run from the top down.
        self.top_spacer = QWidget()
        self.top_spacer.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.transcript_layout.addWidget(self.top_spacer)
        self.transcript_layout.addWidget(self.hint)
        self.transcript_layout.addStretch(1)
        self.transcript_scroll = QScrollArea()
        self.transcript_scroll.setWidgetResizable(True)
        self.transcript_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.transcript_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.transcript_scroll.setWidget(self.transcript)
        self.transcript_scroll.verticalScrollBar().rangeChanged.connect(self._on_scroll_range_changed)

        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask a question about your documents and press Enter")
        self.question.setAcceptDrops(False)  # dropped files go to the window, which adds them
        self.question.setClearButtonEnabled(True)
        self.question.returnPressed.connect(self._on_ask)
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self._on_ask_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.question, 1)
        bottom.addWidget(self.ask_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING, style.SPACING, style.SPACING, style.SPACING)
        layout.addLayout(top)
        layout.addWidget(self.transcript_scroll, 1)
        layout.addLayout(bottom)
        self._stick_to_bottom = True

    # -- conversations ---------------------------------------------------------------------------------

    def set_conversations(self, conversations: Sequence[Any], current: int | None) -> None:
        self.conversations.blockSignals(True)
        self.conversations.clear()
        for conversation in conversations:
            self.conversations.addItem(conversation.title, conversation.id)
        index = self.conversations.findData(current) if current is not None else -1
        self.conversations.setCurrentIndex(index)
        self.conversations.blockSignals(False)

    @Slot(int)
    def _on_conversation_activated(self, index: int) -> None:
        conversation_id = self.conversations.itemData(index)
        if conversation_id is not None and conversation_id != self.conversation_id:
            self.conversation_selected.emit(int(conversation_id))

    def show_messages(self, conversation_id: int | None, messages: Sequence[Any]) -> None:
        """Replace the transcript with a stored conversation (or an empty one when None)."""
        self.conversation_id = conversation_id
        for card in self.cards:
            self.transcript_layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        self.pending = None
        for message in messages:
            if message.role == "user":
                self._add_card(QuestionCard(message.content))
            elif message.answer is not None:
                card = self._new_answer_card()
                card.set_answer(message.answer)
        self.hint.setVisible(not self.cards)
        self.top_spacer.setVisible(not self.cards)
        self._stick_to_bottom = True

    def _add_card(self, card: QWidget) -> None:
        self.hint.hide()
        self.top_spacer.hide()
        # Cards go before the trailing stretch so they stay at the top.
        self.transcript_layout.insertWidget(self.transcript_layout.count() - 1, card)
        self.cards.append(card)

    def _new_answer_card(self) -> AnswerCard:
        card = AnswerCard(chart_for=self.chart_for)
        card.citation_clicked.connect(self.citation_clicked)
        card.copy_requested.connect(self.copy_requested)
        card.export_requested.connect(self.export_requested)
        card.ask_in_requested.connect(self._on_ask_in)
        self._add_card(card)
        return card

    def answer_cards(self) -> list[AnswerCard]:
        return [card for card in self.cards if isinstance(card, AnswerCard)]

    # -- asking ----------------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.job is not None and self.job.running

    @Slot()
    def _on_ask(self) -> None:
        text = self.question.text().strip()
        if text and not self.busy:
            self.ask_requested.emit(text)

    @Slot(str, object)
    def _on_ask_in(self, question: str, alternative: Any) -> None:
        if not self.busy:
            self.ask_in_requested.emit(question, alternative)

    @Slot()
    def _on_ask_button(self) -> None:
        if self.busy:
            self.cancel_requested.emit()
        else:
            self._on_ask()

    def follow(self, job: Job, question: str) -> None:
        """Show ``question`` and the answer ``job`` produces as it arrives. The job's outcome names the
        conversation (possibly by a provisional key until it is saved; see ``conversation_saved``)."""
        self.job = job
        self._add_card(QuestionCard(question))
        self.pending = self._new_answer_card()
        self.pending.progress_changed.connect(self.progress_changed)
        self.pending.start_clock()
        self.question.clear()
        self.ask_button.setText("Stop")
        self.ask_button.setToolTip("Stop answering (Esc)")
        self._stick_to_bottom = True
        job.reported.connect(self._on_job_reported)
        job.progressed.connect(self._on_job_progressed)
        job.finished.connect(self._on_job_finished)
        job.failed.connect(self._on_job_failed)
        job.cancelled.connect(self._on_job_cancelled)
        job.ended.connect(self._on_job_ended)

    @Slot(str, object)
    def _on_job_reported(self, kind: str, value: object) -> None:
        if self.pending is None:
            return
        if kind == "token":
            self.pending.add_token(str(value))
        elif kind == "step" and isinstance(value, Step):
            self.pending.add_step(value)

    @Slot(object)
    def _on_job_progressed(self, event: Any) -> None:
        if self.pending is not None and event.message and event.stage not in ("step", "done"):
            self.pending.set_stage(event.message)

    @Slot(object)
    def _on_job_finished(self, outcome: Any) -> None:
        if self.pending is not None:
            self.pending.set_answer(outcome.answer)
        self.conversation_id = outcome.conversation_id

    @Slot(str, object)
    def _on_job_failed(self, message: str, error: object) -> None:
        if self.pending is not None:
            self.pending.show_error(message)

    @Slot()
    def _on_job_cancelled(self) -> None:
        if self.pending is not None:
            self.pending.show_error("Stopped.")

    @Slot()
    def _on_job_ended(self) -> None:
        if self.pending is not None:
            self.pending.stop_clock()
        self.pending = None
        self.ask_button.setText("Ask")
        self.ask_button.setToolTip("")
        self.question.setFocus()

    def stop(self) -> None:
        """Stop the answer being worked out, whatever its stage: the panel is free at once; the job ends
        (cancelled) at its next check, and nothing it still reports reaches the panel."""
        job = self.job
        if job is None or not job.running:
            return
        job.cancel()
        for signal, slot in ((job.reported, self._on_job_reported), (job.progressed, self._on_job_progressed),
                             (job.finished, self._on_job_finished), (job.failed, self._on_job_failed),
                             (job.cancelled, self._on_job_cancelled), (job.ended, self._on_job_ended)):
            signal.disconnect(slot)
        self._on_job_cancelled()
        self._on_job_ended()
        self.job = None

    def conversation_saved(self, key: int, conversation_id: int) -> None:
        """A provisional conversation key now has its saved id."""
        if self.conversation_id == key:
            self.conversation_id = conversation_id

    @Slot(int, int)
    def _on_scroll_range_changed(self, minimum: int, maximum: int) -> None:
        if self._stick_to_bottom:
            self.transcript_scroll.verticalScrollBar().setValue(maximum)

    def sizeHint(self) -> Any:
        hint = super().sizeHint()
        hint.setWidth(max(hint.width(), 520))
        return hint

