"""The pieces every part of the exposition is made of: families created from the catalogue,
groups of them rendered together, and whether a source's values are current."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.export.catalogue import METRICS
from ndbtop.export.lines import Row, new_family
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import ON_DEMAND, STALE_AFTER, STALE_FLOOR, SourceState
from ndbtop.sanitise import sanitise


class Families:
    """The families of one exposition, created as their first sample arrives."""

    def __init__(self) -> None:
        self._by_name: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}

    def add(self, name: str, labels: Iterable[str], value: float) -> None:
        """Add one sample of the metric ``name`` (as the catalogue names it); its label
        values are shown as the screen shows them (:func:`ndbtop.sanitise.sanitise`)."""
        family = self._by_name.get(name)
        if family is None:
            family = self._by_name[name] = new_family(name)
        family.add_metric([sanitise(v) for v in labels], value)

    def __iter__(self) -> Iterator[Metric]:
        for name in sorted(self._by_name, key=_ORDER.__getitem__):
            yield self._by_name[name]


_ORDER = {m.name: i for i, m in enumerate(METRICS)}
"""The catalogue's order of the metrics, in which an exposition lists its families."""


def source_up(snapshot: ClusterSnapshot, name: str, now: float) -> bool:
    """Whether a source's values are current: connected and not stale (a source read on
    demand, :data:`ON_DEMAND`, has no refresh interval: connected is current)."""
    status = snapshot.source(name)
    return (
        status is not None
        and status.state is SourceState.CONNECTED
        and (name in ON_DEMAND or not status.stale(now, snapshot.interval))
    )


def fresh(last_ok: float | None, now: float, interval: float) -> bool:
    """Whether data of monotonic time ``last_ok`` is still current (the sources' rule)."""
    return last_ok is not None and now - last_ok <= max(STALE_AFTER * interval, STALE_FLOOR)


@dataclass(frozen=True, **SLOTS)
class Group:
    """Families made from a few parts of a snapshot (``inputs``), rendered together: a
    scrape renders again only the groups whose inputs changed (:func:`same_inputs`).
    No two groups of one exposition make the same family."""

    name: str
    inputs: tuple[object, ...]
    build: Callable[[Families], None]
    rows: Callable[[], Iterable[Row]] | None = None
    """For the families of thousands of series: their rows, which a scrape renders with the
    label text it kept (:mod:`ndbtop.export.lines`); ``build`` then adds the same rows."""

    def families(self) -> Families:
        """The group's families."""
        out = Families()
        self.build(out)
        return out


def rows_group(name: str, inputs: tuple[object, ...], rows: Callable[[], Iterable[Row]]) -> Group:
    """A group made of rows (each family's together)."""

    def build(out: Families) -> None:
        for metric, labels, value in rows():
            out.add(metric, labels, value)

    return Group(name, inputs, build, rows)


def same_inputs(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """Whether two groups' inputs are the same objects: tuples element by element (the
    collectors keep the objects of what did not change), plain values by value."""
    if len(a) != len(b):
        return False
    for x, y in zip_strict(a, b):
        if x is y:
            continue
        if type(x) is tuple and type(y) is tuple:
            if len(x) != len(y) or any(p is not q for p, q in zip_strict(x, y)):
                return False
        elif not (isinstance(x, (str, int, float)) and x == y):
            return False
    return True
