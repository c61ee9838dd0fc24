"""One exporter for many clusters: ``/probe?context=NAME`` as Prometheus's multi-target
exporters take ``target`` (blackbox_exporter, snmp_exporter), ``/metrics`` for all.

Each context has its own sources and :class:`~ndbtop.export.server.SnapshotCollector`,
whose series all carry ``cluster="NAME"``. ``/probe`` serves one context's exposition as
a single exporter would; ``/metrics`` joins every context's, family by family (an
exposition names each family once). A context whose sources could not start
(:class:`NotStarted`) is served as down, with why, beside the others.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol
from urllib.parse import parse_qs

from ndbtop.export.familyset import Families
from ndbtop.export.lines import EOF_LINE, Fixed, cluster_label, with_label, without_eof
from ndbtop.export.server import HTML, TEXT, Encoder, answerer, metrics_response

_HELP = b"# HELP "

INDEX = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>ndbtop export</title></head>
<body><h1>ndbtop export</h1>
<p>Every context of {path}: <a href="metrics">/metrics</a> (all, each series labelled
<code>cluster</code>), or one: {links}</p>
</body></html>
"""


class Exposition(Protocol):
    """What ``/probe`` and ``/metrics`` render a context with."""

    def render(self, encoder: Encoder, content_type: str) -> bytes:
        """One scrape of the context in the encoder's format."""


START_REASONS = ("context", "connectstring", "ssh", "sql_options", "password_command")
"""Why a context's sources could not start (``ndbtop_context_start_error{reason}``): its
settings could not be applied, its connect string, its ssh settings, its SQL node's
options, or its password command failed."""


class NotStarted:
    """A context whose sources could not start: served as down, its reason one of
    :data:`START_REASONS`, so that the others are served and an alert names it."""

    def __init__(self, cluster: str, reason: str) -> None:
        if reason not in START_REASONS:
            raise ValueError(f"not a start reason: {reason!r}")
        self.cluster = cluster
        self.reason = reason

    def render(self, encoder: Encoder, content_type: str) -> bytes:
        """``ndbtop_source_up{source="mgm"} 0`` (what the alert on an unreachable management
        server and the dashboard's ``cluster`` variable read) and the reason."""
        out = Families()
        out.add("ndbtop_source_up", ("mgm",), 0.0)
        out.add("ndbtop_context_start_error", (self.reason,), 1.0)
        return with_label(encoder(Fixed(out)), cluster_label(self.cluster))


def merge_expositions(parts: Iterable[bytes]) -> bytes:
    """The expositions ``parts`` (of one format) as one: each family's header once, its
    samples from every part after it, families in the order they first appear."""
    families: dict[bytes, list[bytes]] = {}
    eof = False
    for part in parts:
        eof = eof or part.endswith(EOF_LINE)
        body = without_eof(part)
        name, repeat = b"", False
        for line in body.split(b"\n"):
            if not line:
                continue
            if line.startswith(_HELP):
                name = line[len(_HELP):].split(b" ", 1)[0]
                repeat = name in families
                if not repeat:
                    families[name] = [line]
            elif line.startswith(b"#"):
                if not repeat:  # TYPE and UNIT lines: once per family
                    families.setdefault(name, []).append(line)
            else:
                families.setdefault(name, []).append(line)
    out = b"".join(b"\n".join(lines) + b"\n" for lines in families.values())
    return out + (EOF_LINE if eof else b"")


def make_multi_app(collectors: Mapping[str, Exposition], path: str
                   ) -> Callable[..., Iterable[bytes]]:
    """The WSGI app of ``export --contexts``: ``/probe?context=NAME``, ``/metrics`` (every
    context), ``/`` (the index)."""
    links = ", ".join(f'<a href="probe?context={html.escape(n)}">{html.escape(n)}</a>'
                      for n in collectors)
    index = INDEX.format(path=html.escape(path), links=links or "none").encode()
    reported: set[str] = set()

    def every(encoder: Encoder, content_type: str) -> bytes:
        return merge_expositions(c.render(encoder, content_type) for c in collectors.values())

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        route = environ.get("PATH_INFO", "")
        answer = answerer(environ, start_response)
        if answer is None:
            return [b""]
        if route == "/metrics":
            return metrics_response(environ, answer, every, reported)
        if route == "/probe":
            asked = parse_qs(environ.get("QUERY_STRING", "")).get("context", [])
            if len(asked) != 1:
                return answer("400 Bad Request", TEXT, b"/probe needs one context=NAME\n")
            collector = collectors.get(asked[0])
            if collector is None:
                known = ", ".join(collectors)
                said = f"no context {asked[0]!r}; known: {known}\n"
                return answer("404 Not Found", TEXT, said.encode("ascii", "backslashreplace"))
            return metrics_response(environ, answer, collector.render, reported)
        if route == "/":
            return answer("200 OK", HTML, index)
        return answer("404 Not Found", TEXT,
                      b"Not found: /probe?context=NAME for one context, /metrics for all\n")

    return app
