"""Rendering the large families fast, with prometheus_client's own text.

The thread CPU ratios and the hosts' disk counters are thousands of series whose label
sets stay the same from one refresh to the next; only their values change. prometheus_client
spends most of a sample's time on its labels (escaping, sorting, checking each name), so
each label set is rendered by the library once, in the format asked for, and kept: a
scrape then writes the kept text of each series' name and labels and its value, formatted
by the library's own ``floatToGoString``. The HELP and TYPE lines are the library's too.
What a scrape serves is therefore the library's exposition, byte for byte (a test
compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.utils import floatToGoString

from ndbtop.export.catalogue import BY_NAME
from ndbtop.sanitise import sanitise

Encoder = Callable[[Any], bytes]
Row = tuple[str, tuple[str, ...], float]
"""One series: the catalogue's metric name, its label values in the catalogue's order,
its value."""
EOF_LINE = b"# EOF\n"
"""The end of an OpenMetrics exposition."""


class Fixed:
    """Families as prometheus_client's encoders take them (anything with ``collect``)."""

    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return self._families


def new_family(
    name: str, labels: tuple[str, ...] | None = None
) -> GaugeMetricFamily | CounterMetricFamily:
    """An empty family of the metric ``name`` as the catalogue defines it; with ``labels``,
    one series of value 0 (its label values shown as the screen shows them)."""
    d = BY_NAME[name]
    cls = CounterMetricFamily if d.kind == "counter" else GaugeMetricFamily
    family = cls(d.family, d.help, labels=d.labels)
    if labels is not None:
        family.add_metric([sanitise(v) for v in labels], 0.0)
    return family


def cluster_label(name: str) -> bytes:
    """``cluster="prod"``: a context's name needs no escaping (letters, digits, ``_.-``),
    and anything else is escaped as the exposition formats escape a label value."""
    value = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'cluster="{value}"'.encode()


def with_label(body: bytes, label: bytes) -> bytes:
    """Every sample line of an exposition (text or OpenMetrics) with ``label`` first among
    its labels: the one way every series of a context carries ``cluster``."""
    out = []
    for line in body.split(b"\n"):
        if not line or line.startswith(b"#"):
            out.append(line)
            continue
        brace, space = line.find(b"{"), line.find(b" ")
        if brace != -1 and (space == -1 or brace < space):
            rest = line[brace + 1:]
            out.append(line[:brace + 1] + label + (b"" if rest.startswith(b"}") else b",")
                       + rest)
        else:
            out.append(line[:space] + b"{" + label + b"}" + line[space:])
    return b"\n".join(out)


def without_eof(body: bytes) -> bytes:
    """An exposition without its OpenMetrics end line (parts are joined before it)."""
    return body[: -len(EOF_LINE)] if body.endswith(EOF_LINE) else body


class LineCache:
    """The library's text of each family header and series prefix in one format (that of
    ``encoder``), for one group of families."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self._headers: dict[str, str] = {}
        self._prefixes: dict[tuple[str, tuple[str, ...]], str] = {}

    def _header(self, name: str) -> str:
        text = self._headers.get(name)
        if text is None:
            text = without_eof(self.encoder(Fixed((new_family(name),)))).decode()
            self._headers[name] = text
        return text

    def _prefix(self, name: str, labels: tuple[str, ...]) -> str:
        """``name{labels} `` as the library writes that series (the text before its value)."""
        header = self._header(name)
        body = without_eof(self.encoder(Fixed((new_family(name, labels),)))).decode()
        line = body[len(header):]
        return line[: line.rindex(" ") + 1]

    def render(self, rows: Iterable[Row]) -> bytes:
        """The exposition of ``rows`` (each family's rows together, as the library wants
        them), without an OpenMetrics end line. Label sets no longer served are forgotten."""
        out: list[str] = []
        current = ""
        before, kept = self._prefixes, {}
        for name, labels, value in rows:
            if name != current:
                current = name
                out.append(self._header(name))
            key = (name, labels)
            prefix = before.get(key)
            if prefix is None:
                prefix = self._prefix(name, labels)
            kept[key] = prefix
            out.append(f"{prefix}{floatToGoString(value)}\n")
        self._prefixes = kept
        return "".join(out).encode("utf-8")
