"""Charts as SVG geometry: each chart is computed here in user units and drawn by a template macro
(templates/charts.html), so the report needs no script and no chart library to show it.

Every chart also carries the numbers it draws, for its text alternative (a table beside it).
Colours come with a second cue (a dash pattern and a marker shape), so no line is told apart by
colour alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ._formats import rating_text

# Eight colours that stay apart for the common colour-vision deficiencies (Okabe and Ito, 2008),
# darkened where needed to keep 3:1 contrast against white.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#8a6d00", "#56b4e9", "#000000", "#e69f00")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "12 3 3 3")
MARKERS = ("circle", "square", "diamond", "triangle")


@dataclass(frozen=True)
class Tick:
    """A labelled position on an axis."""

    at: float
    """The position in the SVG's user units."""
    label: str


@dataclass(frozen=True)
class Box:
    """The plot area inside the SVG, in user units."""

    width: float
    height: float
    left: float
    right: float
    top: float
    bottom: float

    @property
    def inner_width(self) -> float:
        return self.right - self.left

    @property
    def inner_height(self) -> float:
        return self.bottom - self.top


def nice_ticks(low: float, high: float, *, count: int = 6) -> list[float]:
    """About `count` round values (steps of 1, 2 or 5 times a power of ten) covering [low, high].

    >>> nice_ticks(1171.2, 1834.4)
    [1100.0, 1200.0, 1300.0, 1400.0, 1500.0, 1600.0, 1700.0, 1800.0, 1900.0]
    >>> nice_ticks(0, 1, count=4)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(3, 3)
    [2.0, 2.5, 3.0, 3.5, 4.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"axis ends must be finite, not {low!r} and {high!r}")
    if high < low:
        low, high = high, low
    if high == low:
        low, high = low - 1, high + 1
    # The finest round step whose ticks, from below `low` to above `high`, number at most count + 2.
    power = 10 ** math.floor(math.log10((high - low) / max(count, 1)))
    for step in (multiple * power for multiple in (1, 2, 5, 10, 20, 50, 100)):
        first = math.floor(low / step + 1e-9)
        last = math.ceil(high / step - 1e-9)
        if last - first <= count + 2:
            break
    ticks = [float(round(index * step, 10)) for index in range(first, last + 1)]
    return ticks


def _label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def _scale(low: float, high: float, start: float, end: float) -> Callable[[float], float]:
    span = (high - low) or 1.0
    return lambda value: round(start + (value - low) / span * (end - start), 2)


# --- intervals: a dot and a bar per row ---------------------------------------------------------

@dataclass(frozen=True)
class IntervalRow:
    """One row of an interval chart: the estimate as a dot, its interval as a bar."""

    label: str
    y: float
    low: float
    high: float
    point: float
    """Positions in user units."""
    text: str
    """What a screen reader and a tooltip say: the numbers."""


@dataclass(frozen=True)
class IntervalChart:
    """Estimates with intervals, one row each (the standings' ratings)."""

    box: Box
    rows: Sequence[IntervalRow]
    ticks: Sequence[Tick]
    axis_label: str
    reference: float | None
    """Where a reference value (the average rating) falls, if shown."""
    reference_label: str | None = None
    """What the legend calls the reference line (`average, 1500`)."""
    legend_y: float = 0.0
    """Where the legend's row sits, under the axis's label."""


def interval_chart(rows: Sequence[tuple[str, float, float, float]], *, axis_label: str,
                   reference: float | None = None, width: float = 720, row_height: float = 28) -> IntervalChart:
    """Rows of (label, estimate, low, high), drawn top to bottom in the order given."""
    values = [value for _, point, low, high in rows for value in (point, low, high)]
    if reference is not None:
        values.append(reference)
    ticks = nice_ticks(min(values), max(values)) if values else [0.0, 1.0]
    bottom = 12 + row_height * max(len(rows), 1)
    box = Box(width=width, height=bottom + 76, left=150, right=width - 20, top=12, bottom=bottom)
    x = _scale(ticks[0], ticks[-1], box.left, box.right)
    drawn = [IntervalRow(label=label, y=round(box.top + row_height * (index + 0.5), 2), low=x(low), high=x(high),
                         point=x(point), text=f"{label}: {rating_text(point)} "
                                             f"(95% interval {rating_text(low)} to {rating_text(high)})")
             for index, (label, point, low, high) in enumerate(rows)]
    return IntervalChart(box=box, rows=drawn, ticks=[Tick(x(value), _label(value)) for value in ticks],
                         axis_label=axis_label, reference=None if reference is None else x(reference),
                         reference_label=None if reference is None else f"average, {_label(reference)}",
                         legend_y=bottom + 62)


# --- lines: one series per bot over a shared x axis ---------------------------------------------

@dataclass(frozen=True)
class Series:
    """One line of a line chart."""

    name: str
    colour: str
    dash: str
    marker: str
    points: str
    """The polyline's points attribute, "x,y x,y ..."."""
    markers: Sequence[tuple[float, float]]
    last: tuple[float, float] | None
    """Where the line ends."""
    label_y: float = 0.0
    """Where its label goes, beside its end, clear of the other labels."""


@dataclass(frozen=True)
class LineChart:
    """Lines over a numeric x axis (a bot's rating as sessions accumulate)."""

    box: Box
    series: Sequence[Series]
    x_ticks: Sequence[Tick]
    y_ticks: Sequence[Tick]
    x_label: str
    y_label: str


def line_chart(xs: Sequence[float], lines: Sequence[tuple[str, Sequence[float | None]]], *, x_label: str,
               y_label: str, width: float = 720, height: float = 320) -> LineChart:
    """Lines of y values (None where a line has no value) over the shared `xs`."""
    ys = [y for _, values in lines for y in values if y is not None]
    x_ticks = nice_ticks(min(xs, default=0), max(xs, default=1), count=6)
    y_ticks = nice_ticks(min(ys, default=0), max(ys, default=1))
    box = Box(width=width, height=height, left=64, right=width - 110, top=14, bottom=height - 46)
    x = _scale(x_ticks[0], x_ticks[-1], box.left, box.right)
    y = _scale(y_ticks[0], y_ticks[-1], box.bottom, box.top)
    series = []
    for index, (name, values) in enumerate(lines):
        placed = [(x(at), y(value)) for at, value in zip(xs, values, strict=True) if value is not None]
        # A marker on every point would crowd a long line: about a dozen per line tell the lines apart.
        every = max(1, len(placed) // 12)
        series.append(Series(name=name, colour=PALETTE[index % len(PALETTE)], dash=DASHES[index % len(DASHES)],
                             marker=MARKERS[index % len(MARKERS)],
                             points=" ".join(f"{px},{py}" for px, py in placed),
                             markers=placed[::every], last=placed[-1] if placed else None))
    return LineChart(box=box, series=_spread_labels(series, gap=13),
                     x_ticks=[Tick(x(value), _label(value)) for value in x_ticks],
                     y_ticks=[Tick(y(value), _label(value)) for value in y_ticks], x_label=x_label, y_label=y_label)


def _spread_labels(series: list[Series], *, gap: float) -> list[Series]:
    # Lines that end close together would print their names over one another: push the labels
    # apart, top to bottom, keeping each as near its line's end as the gap allows.
    ends = sorted((line.last[1], index) for index, line in enumerate(series) if line.last is not None)
    placed: dict[int, float] = {}
    previous = -math.inf
    for y, index in ends:
        placed[index] = max(y, previous + gap)
        previous = placed[index]
    return [line if line.last is None else replace(line, label_y=placed[index]) for index, line in enumerate(series)]


# --- histograms ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bar:
    """One bin of a histogram."""

    x: float
    y: float
    width: float
    height: float
    low: float
    high: float
    count: int
    text: str


@dataclass(frozen=True)
class Histogram:
    """Counts of values in equal bins (a bot's decision latencies per session)."""

    box: Box
    bars: Sequence[Bar]
    x_ticks: Sequence[Tick]
    y_ticks: Sequence[Tick]
    x_label: str
    y_label: str


def histogram(values: Sequence[float], *, x_label: str, y_label: str, unit: str = "", bins: int = 12,
              width: float = 640, height: float = 240) -> Histogram:
    """Bin `values` into about `bins` equal bins between round ends and draw a bar per bin."""
    edges = nice_ticks(min(values, default=0), max(values, default=1), count=bins)
    low, high = edges[0], edges[-1]
    step = edges[1] - edges[0]
    counts = [0] * (len(edges) - 1)
    for value in values:
        counts[min(max(int((value - low) / step), 0), len(counts) - 1)] += 1
    count_ticks = [tick for tick in nice_ticks(0, max(max(counts, default=1), 1), count=4) if tick == int(tick)]
    box = Box(width=width, height=height, left=56, right=width - 16, top=12, bottom=height - 46)
    x = _scale(low, high, box.left, box.right)
    y = _scale(0, count_ticks[-1], box.bottom, box.top)
    bars = []
    for index, count in enumerate(counts):
        start, end = edges[index], edges[index + 1]
        top = y(count)
        bars.append(Bar(x=x(start), y=top, width=round(x(end) - x(start), 2), height=round(box.bottom - top, 2),
                        low=start, high=end, count=count, text=f"{start:g} to {end:g}{unit}: {count}"))
    return Histogram(box=box, bars=bars, x_ticks=[Tick(x(value), _label(value)) for value in edges],
                     y_ticks=[Tick(y(value), _label(value)) for value in count_ticks],
                     x_label=x_label, y_label=y_label)


# --- heat colours -------------------------------------------------------------------------------

def heat_colour(share: float) -> str:
    """A light background for a score share in [0, 1]: red below ½, white at ½, green above; light
    enough that dark text on it keeps a contrast above 7:1.

    >>> heat_colour(0.5), heat_colour(0), heat_colour(1)
    ('#ffffff', '#f4a3a3', '#9fdcae')
    """
    share = min(max(share, 0.0), 1.0)
    if share < 0.5:
        target, weight = (0xF4, 0xA3, 0xA3), (0.5 - share) * 2
    else:
        target, weight = (0x9F, 0xDC, 0xAE), (share - 0.5) * 2
    channels = (round(255 + (goal - 255) * weight) for goal in target)
    return "#" + "".join(f"{channel:02x}" for channel in channels)
