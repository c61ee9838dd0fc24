"""The triage bundle: one archive with what a support engineer asks for first.

It holds the ``--once`` report (text and JSON), recent cluster events, the
cluster-log levels and severity filter, every data node's memory report, the
tail of a recording and of the audit log, and a manifest saying how each part
was collected. No password is ever written: nothing collected holds one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import socket
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ndbtop import __version__
from ndbtop.collect.events import levels_from_names
from ndbtop.collect.hub import Hub
from ndbtop.errors import MgmError
from ndbtop.files import create_private, read_tail
from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.events.catalogue import Severity
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.text import cluster_log_line
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.clock import Clock
from ndbtop.model.config_raw import config_ini
from ndbtop.record.reader import read_recording
from ndbtop.report.audit_tail import cluster_targets, this_cluster
from ndbtop.report.cluster_log import cluster_log_file
from ndbtop.report.findings import findings_text, unjudged_lines
from ndbtop.report.render import error_log_json, error_log_line, report_json, report_text
from ndbtop.report.sections import TRIAGE, bundle_panels
from ndbtop.sanitise import json_text, laid_out, sanitise, sanitise_lines

MEMORY_REPORT = 50
AUDIT_LIMIT = 64 << 20
"""Bytes at the end of the audit log a bundle reads (its last 500 lines go in)."""


@dataclass
class Bundle:
    """The files of a bundle, by name, and the notes of the manifest."""

    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    context: str | None = None
    """The context the bundle is of (``--context``), named by the manifest."""

    def add(self, name: str, data: bytes | str | Sequence[str], note: str) -> None:
        """One file of the archive and the manifest line that explains it.

        Text files (``.txt``) are read on terminals and line by line (``less``, ``grep``):
        they are given as lines, each one line of what it quotes
        (:func:`ndbtop.sanitise.laid_out`; a string is one line, a
        :class:`~ndbtop.sanitise.Laid` text as laid out), so nothing a server sent can add
        a line that reads as ndbtop's own.
        """
        if name.endswith(".txt"):
            text = laid_out([data] if isinstance(data, str) else data)
            data = (text if text.endswith("\n") else text + "\n").encode()
        elif isinstance(data, str):
            data = data.encode()
        elif not isinstance(data, bytes):
            raise TypeError(f"{name}: lines are for text files only")
        self.files[name] = data
        self.notes.append(f"{name}: {note}")

    def write(self, path: Path) -> None:
        """Write the archive (``.tar.gz``)."""
        manifest = laid_out(
            [
                f"ndbtop {__version__} triage bundle, "
                f"{dt.datetime.now().astimezone():%Y-%m-%d %H:%M:%S %z}",
                f"collected on {socket.gethostname()}",
                *([f"context {self.context}"] if self.context else []),
                "",
                *self.notes,
                "",
            ]
        )
        files = {"MANIFEST.txt": manifest.encode(), **self.files}
        with create_private(path) as out, tarfile.open(fileobj=out, mode="w:gz") as tar:
            for name, data in files.items():
                info = tarfile.TarInfo(f"ndbtop-bundle/{name}")
                info.size = len(data)
                info.mtime = int(time.time())
                info.mode = 0o600
                tar.addfile(info, io.BytesIO(data))


def event_lines(events: list[Event] | tuple[Event, ...]) -> list[str]:
    """Events as cluster-log lines, one an event."""
    return [
        cluster_log_line(
            dt.datetime.fromtimestamp(e.received_at),
            e.source_node,
            e.severity if e.severity is not None else Severity.INFO,
            e.text,
        )
        for e in events
    ]


async def _listen(hub: Hub, seconds: float, clock: Clock) -> tuple[list[Event], str | None]:
    address = hub.mgm.client.address
    if address is None or seconds <= 0:
        return [], "no listen: not connected"
    listener = EventListener(
        address, levels_from_names(hub.mgm.log_levels), tls=hub.connectstring.tls
    )
    events: list[Event] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    try:
        await listener.open()
        # The server pings every 500 ms, so the stop check runs often enough to end on time.
        async for item in listener.items(stop=lambda: loop.time() >= deadline):
            if isinstance(item, RawEvent):
                event = decode_event(item, clock.wall(), hub.configured_data_nodes())
                if event.refused is None:
                    events.append(event)
    except MgmError as exc:
        return events, str(exc)
    finally:
        await listener.close()
    return events, None


async def _logging(client: MgmClient) -> list[str]:
    levels = await client.get_cluster_loglevel()
    severities = await client.get_info_clusterlog()
    lines = ["cluster log levels (get cluster loglevel):"]
    lines += [f"  {name:12} {level}" for name, level in levels.items()]
    lines += ["", "cluster log severity filter (get info clusterlog):"]
    lines += [f"  {name:12} {value}" for name, value in severities.items()]
    return lines


async def _memory(client: MgmClient, clock: Clock, data_nodes: frozenset[int] | None
                  ) -> list[str]:
    raw = await client.dump_events(MEMORY_REPORT)
    out = ["REPORT MEMORY (dump events type 50):"]
    for r in raw:
        e = decode_event(r, clock.wall(), data_nodes)
        out.append(f"  left out: {e.refused}" if e.refused else f"  Node {e.source_node}: {e.text}")
    return out


def _config_ini(hub: Hub) -> str:
    source = hub.config
    if source.raw is None:
        reason = source.status.error or "not read"
        return sanitise(f"# configuration not collected: {reason}") + "\n"
    header = [f"configuration generation {source.raw.generation}, read from the management "
              f"server {source.read_from} ({source.read_with or 'get config'})"]
    return sanitise_lines(config_ini(source.raw, every=True, header=header))


def _without_blank_head(lines: list[str]) -> list[str]:
    """A section's lines without the blank lines that part it from the one before."""
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    return lines[start:]


def _recording_tail(path: Path, minutes: float) -> bytes:
    recording = read_recording(path)
    return recording.tail(recording.index_at(recording.end - minutes * 60))


async def collect_bundle(
    hub: Hub,
    clock: Clock,
    *,
    events_seconds: float = 5.0,
    recording: Path | None = None,
    minutes: float = 15.0,
    audit_log: Path | None = None,
    progress: Callable[[str], None] = lambda text: None,
    context: str | None = None,
) -> Bundle:
    """Collect everything; the management server must answer, other parts may fail.
    ``context``: the context's name, given by the manifest and the reports."""
    bundle = Bundle(context=context)
    progress("reading the cluster (two samples for rates)")
    hub.want_panels("bundle", bundle_panels())
    snap = await hub.collect_once()
    # The findings were judged on the events heard while collecting (about an interval, as
    # in --once): the rules that leaves unjudged are named, here as there.
    heard_s = hub.interval if hub.events is not None else 0.0
    bundle.add(
        "report.txt",
        report_text(snap, heard_s=heard_s, context=context),
        "the --once report: nodes, sources, ndbinfo panels, host disks",
    )
    bundle.add(
        "report.json",
        json_text(report_json(snap, heard_s, context=context), indent=2),
        "the same as JSON (ndbtop --once --json)",
    )
    bundle.add(
        "findings.txt",
        _without_blank_head([*findings_text(snap.findings), *unjudged_lines(snap, heard_s)]),
        "what is wrong or about to go wrong, with evidence, threshold and advice, and the "
        "rules the sources read could not judge",
    )
    if snap.cluster_log:
        bundle.add("cluster.log", sanitise_lines(cluster_log_file(snap)),
                   "the cluster log's last hour, from the management servers' files (merged)")
    for section in TRIAGE:
        text = section.text(snap)
        if text:
            bundle.add(section.bundle_file, _without_blank_head(text), section.bundle_note)
    bundle.add("config.ini", _config_ini(hub), "the configuration the management server "
               "holds, in config.ini form, every parameter (ndbtop config --all)")
    down = [n.node_id for n in snap.data_nodes() if n.status not in ("STARTED", "STARTING")]
    if down and hub.hosts.ssh is not None:
        progress(f"reading the error log of data node(s) {', '.join(map(str, down))}")
        await hub.hosts.read_error_logs(down, hub.cluster_config())
        entries = [hub.hosts.error_logs[i] for i in down if i in hub.hosts.error_logs]
        bundle.add(
            "error-logs.txt",
            [line for e in entries for line in (
                f"node {e.node_id}: {error_log_line(e)}",
                *(f"    {line}" for line in e.lines() if not e.problem))],
            "newest entry of each stopped data node's ndb_<id>_error.log, read over --ssh",
        )
        bundle.add("error-logs.json", json_text([error_log_json(e) for e in entries], indent=2),
                   "the same as JSON")
    client = hub.mgm.client
    for name, job, note in (
        ("cluster-log-levels.txt", _logging(client), "cluster-log levels and severity filter"),
        ("memory.txt", _memory(client, clock, hub.configured_data_nodes()),
         "every data node's memory report"),
    ):
        try:
            bundle.add(name, await job, note)
        except MgmError as exc:
            bundle.add(name, f"not collected: {exc}", note)
    progress(f"listening to events for {events_seconds:g} s")
    events, why = await _listen(hub, events_seconds, clock)
    bundle.add(
        "events.txt",
        event_lines(events) or f"no event in {events_seconds:g} s",
        f"cluster events received while collecting ({events_seconds:g} s"
        + (f"; {why}" if why else "")
        + ")",
    )
    if recording is not None:
        try:
            bundle.add(
                "recording-tail.ndbrec",
                _recording_tail(recording, minutes),
                f"the last {minutes:g} minutes of {recording} (ndbtop replay FILE)",
            )
            bundle.add(
                "recording-events.txt",
                event_lines(read_recording(recording).events()),
                f"every event of {recording}",
            )
        except Exception as exc:
            bundle.add("recording-tail.txt", f"not collected: {exc}", str(recording))
    if audit_log is not None and audit_log.exists():
        targets = cluster_targets(hub.connectstring, snap)
        tail, left = this_cluster(read_tail(audit_log, AUDIT_LIMIT, "audit log").decode(
            "utf-8", errors="replace"
        ).splitlines(), targets)
        tail = tail[-500:]
        bundle.add(
            "audit-log.jsonl",
            "".join(f"{line}\n" for line in tail),
            f"the last actions ndbtop sent from this machine to this cluster "
            f"({', '.join(sorted(targets))})"
            + (f"; {left} record(s) of other clusters or naming none left out" if left else ""),
        )
    return bundle
