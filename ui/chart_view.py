"""A small chart under an answer: a line across periods, or bars for several lines of one period or a ranking,
drawn with QPainter from an ``app.series.Chart`` (the SQL result the answer cites). Hovering a point shows its
figure; clicking it emits ``point_clicked`` so the window opens its cell on the page. ``chart_png`` draws the same
chart into a PNG for the answer's Markdown export.

Drawn by hand rather than with QtCharts or pyqtgraph: QtCharts ships in PySide6-Addons, a second, far larger wheel
than the PySide6-Essentials Folio runs on, and pyqtgraph is another package imported at start-up; a chart of a
few points needs neither."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QMouseEvent, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

COLOURS = ("#2f6fb0", "#d9822b", "#3a9d5d", "#b34a6a", "#7b5cb8", "#8a8a3a")
HEIGHT = 190
MARKER = 4.5
HIT = 9.0
"""Pixels around a point's marker that still count as clicking it."""


def nice_step(span: float, ticks: int = 4) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) dividing ``span`` into about ``ticks`` parts."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def axis_text(value: float, step: float) -> str:
    decimals = 0 if step >= 1 else min(4, max(0, -math.floor(math.log10(step)) + (0 if step * 10 % 10 == 0 else 1)))
    return f"{value:,.{decimals}f}"


def figure_text(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}".rstrip("0").rstrip(".")


class ChartView(QWidget):
    """One answer's chart. ``chart`` is an ``app.series.Chart``."""

    point_clicked = Signal(object)  # app.series.ChartPoint

    def __init__(self, chart: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = chart
        self.setMinimumHeight(HEIGHT)
        self.setMaximumHeight(HEIGHT + 40)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setToolTip("")
        self.setAccessibleName(f"Chart: {', '.join(s.name for s in chart.series)}")
        self._hits: list[tuple[QRectF, Any]] = []

    def sizeHint(self) -> Any:
        hint = super().sizeHint()
        hint.setHeight(HEIGHT)
        return hint

    # -- geometry ----------------------------------------------------------------------------------------

    def _range(self) -> tuple[float, float, float]:
        values = [p.value for p in self.chart.points]
        low, high = min(values), max(values)
        if self.chart.kind == "bar" or low > 0 and low < 0.5 * high:
            low, high = min(low, 0.0), max(high, 0.0)  # bars stand on zero
        if high == low:
            high, low = high + (abs(high) or 1) * 0.1, low - (abs(low) or 1) * 0.1
        step = nice_step(high - low)
        return math.floor(low / step) * step, math.ceil(high / step) * step, step

    def _plot_area(self, rect: QRectF, metrics: QFontMetrics, bottom: float, top: float, step: float) -> QRectF:
        ticks = [bottom + i * step for i in range(round((top - bottom) / step) + 1)]
        left = max(metrics.horizontalAdvance(axis_text(t, step)) for t in ticks) + 10
        legend = metrics.height() + 6 if len(self.chart.series) > 1 or self.chart.unit else 0
        below = (2 if self.chart.kind == "bar" else 1) * metrics.height() + 10  # a row's label may take two lines
        return QRectF(rect.left() + left, rect.top() + 6 + legend, rect.width() - left - 12,
                      rect.height() - 6 - legend - below)

    # -- drawing -----------------------------------------------------------------------------------------

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        try:
            self.paint(painter, QRectF(self.rect()))
        finally:
            painter.end()

    def paint(self, painter: QPainter, rect: QRectF) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        muted = palette.color(QPalette.ColorRole.PlaceholderText)
        grid_colour = palette.color(QPalette.ColorRole.Mid)
        grid_colour.setAlpha(90)
        metrics = QFontMetrics(self.font())
        bottom, top, step = self._range()
        area = self._plot_area(rect, metrics, bottom, top, step)

        def y_of(value: float) -> float:
            return area.bottom() - (value - bottom) / (top - bottom) * area.height()

        # Grid lines and the y axis's figures.
        painter.setFont(self.font())
        value = bottom
        while value <= top + step / 2:
            y = y_of(value)
            painter.setPen(QPen(grid_colour if abs(value) > step / 1000 else muted, 1))
            painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
            painter.setPen(muted)
            painter.drawText(QRectF(rect.left(), y - metrics.height() / 2, area.left() - rect.left() - 6,
                                    metrics.height()), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                             axis_text(value, step))
            value += step

        labels = list(self.chart.labels)
        slot = area.width() / max(1, len(labels))
        # The x axis's labels, shortened to their slot.
        painter.setPen(muted)
        lines = 2 if self.chart.kind == "bar" else 1
        for i, label in enumerate(labels):
            box = QRectF(area.left() + i * slot + 2, area.bottom() + 4, slot - 4, lines * metrics.height())
            wrapped = metrics.boundingRect(box.toRect(), int(Qt.TextFlag.TextWordWrap), label)
            if wrapped.height() > box.height() or wrapped.width() > box.width():
                label = metrics.elidedText(label, Qt.TextElideMode.ElideMiddle, int(slot) - 4)
            painter.drawText(box, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
                                      | Qt.TextFlag.TextWordWrap), label)
        # The legend (series names, the unit) above the plot.
        x = area.left()
        if len(self.chart.series) > 1:
            for n, series in enumerate(self.chart.series):
                colour = QColor(COLOURS[n % len(COLOURS)])
                painter.fillRect(QRectF(x, rect.top() + 6 + metrics.height() / 2 - 4, 8, 8), colour)
                painter.setPen(text_colour)
                name = metrics.elidedText(series.name, Qt.TextElideMode.ElideRight, 140)
                painter.drawText(QPointF(x + 12, rect.top() + 6 + metrics.ascent()), name)
                x += 12 + metrics.horizontalAdvance(name) + 14
        if self.chart.unit:
            painter.setPen(muted)
            painter.drawText(QRectF(x, rect.top() + 6, area.right() - x, metrics.height()),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), self.chart.unit)

        self._hits = []
        position = {label: i for i, label in enumerate(labels)}
        count = len(self.chart.series)
        for n, series in enumerate(self.chart.series):
            colour = QColor(COLOURS[n % len(COLOURS)])
            if self.chart.kind == "line":
                centres = [(QPointF(area.left() + (position[p.label] + 0.5) * slot, y_of(p.value)), p)
                           for p in series.points]
                path = QPainterPath()
                for i, (centre, _) in enumerate(centres):
                    if i == 0:
                        path.moveTo(centre)
                    else:
                        path.lineTo(centre)
                painter.setPen(QPen(colour, 2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPath(path)
                painter.setBrush(colour)
                for centre, point in centres:
                    painter.drawEllipse(centre, MARKER, MARKER)
                    self._hits.append((QRectF(centre.x() - HIT, centre.y() - HIT, 2 * HIT, 2 * HIT), point))
            else:
                width = min(48.0, slot * 0.7 / count)
                zero = y_of(max(bottom, min(0.0, top)))
                for point in series.points:
                    left = area.left() + position[point.label] * slot + (slot - width * count) / 2 + n * width
                    y = y_of(point.value)
                    bar = QRectF(left, min(y, zero), width - 2, max(1.0, abs(zero - y)))
                    painter.fillRect(bar, colour)
                    self._hits.append((bar.adjusted(-2, -HIT, 2, HIT), point))

    # -- points ------------------------------------------------------------------------------------------

    def point_at(self, position: QPointF) -> Any:
        """The point drawn at ``position`` (widget pixels), or None."""
        for area, point in self._hits:
            if area.contains(position):
                return point
        return None

    def point_position(self, point: Any) -> QPointF:
        """Where ``point`` is drawn (the centre of its marker or bar), in widget pixels."""
        if not self._hits:
            self.grab()  # lays the points out
        return next(area.center() for area, p in self._hits if p == point)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        point = self.point_at(event.position())
        self.setCursor(Qt.CursorShape.PointingHandCursor if point is not None else Qt.CursorShape.ArrowCursor)
        if point is not None:
            unit = f" {self.chart.unit}" if self.chart.unit else ""
            where = "; click to see its cell on the page" if point.cell is not None else ""
            QToolTip.showText(event.globalPosition().toPoint(), f"{point.label}: {figure_text(point.value)}{unit}{where}",
                              self)
        else:
            QToolTip.hideText()
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        point = self.point_at(event.position())
        if point is not None and event.button() == Qt.MouseButton.LeftButton:
            self.point_clicked.emit(point)
            event.accept()
            return
        super().mousePressEvent(event)


def chart_png(chart: Any, width: int = 640, height: int = HEIGHT + 30) -> bytes:
    """The chart drawn into a PNG (on a white background, for a document)."""
    view = ChartView(chart)
    palette = view.palette()
    palette.setColor(QPalette.ColorRole.Window, QColor("white"))
    palette.setColor(QPalette.ColorRole.WindowText, QColor("#202020"))
    palette.setColor(QPalette.ColorRole.PlaceholderText, QColor("#606060"))
    palette.setColor(QPalette.ColorRole.Mid, QColor("#b0b0b0"))
    view.setPalette(palette)
    view.setAutoFillBackground(True)
    view.setFixedSize(width, height)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    view.grab().save(buffer, "PNG")
    buffer.close()
    view.deleteLater()
    return bytes(data.data())
