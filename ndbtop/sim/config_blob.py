"""The simulated management server's configuration, packed as the real one packs it.

The sections come from the same :class:`~ndbtop.sim.config.ClusterConfig` that
``get status`` reports. Packing follows ConfigObject.cpp (v2): each default
section holds the keys present in every section of its type, valued as in the
first such section; each node section keeps NodeId and the entries that differ
from its default section; connection sections keep NodeId1 and NodeId2 the same
way. This module only writes; the client's decoder lives in ndbtop/mgm.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Union

from ndbtop.compat import zip_strict
from ndbtop.sim.config import ClusterConfig, DataNodeConfig

MB = 1024 * 1024
NO_NODE_GROUP = 65536

INT, STRING, INT64 = 1, 2, 4
DATA, API, MGM, TCP, SHM, SYSTEM = 1, 2, 3, 4, 5, 6
NODE_ID = 3
KEEP = {DATA: (NODE_ID,), API: (NODE_ID,), MGM: (NODE_ID,), TCP: (400, 401), SHM: (400, 401)}
"""Keys every section of a type keeps even when its default section has the same value."""

Entry = tuple[int, int, Union[int, str]]
"""(value type, key, value)."""


def _string_words(text: str) -> list[int]:
    data = text.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return [len(text.encode()) + 1, *struct.unpack(f">{len(data) // 4}I", data)]


def _section(kind: int, entries: Sequence[Entry]) -> list[int]:
    body: list[int] = []
    for vtype, key, value in sorted(entries, key=lambda e: e[1]):
        body.append(vtype << 28 | key)
        if vtype == INT:
            body.append(int(value) & 0xFFFFFFFF)
        elif vtype == INT64:
            body += [(int(value) >> 32) & 0xFFFFFFFF, int(value) & 0xFFFFFFFF]
        else:
            body += _string_words(str(value))
    return [3 + len(body), len(entries), kind, *body]


def _factor(kind: int, sections: list[list[Entry]]) -> tuple[list[Entry], list[list[Entry]]]:
    """The default section of one type and what each section keeps beside it."""
    if not sections:
        return [], []
    common = set.intersection(*({(e[0], e[1]) for e in s} for s in sections))
    first = {e[1]: e for e in sections[0]}
    default = [first[key] for _vtype, key in sorted(common, key=lambda c: c[1])]
    values = {e[1]: e[2] for e in default}
    keep = KEEP[kind]
    kept = [[e for e in s if e[1] in keep or values.get(e[1], object()) != e[2]] for s in sections]
    return default, kept


def data_node_entries(config: ClusterConfig, node: DataNodeConfig) -> list[Entry]:
    """Every parameter of one ``[ndbd]`` section, as the server fills it in."""
    group = NO_NODE_GROUP if node.node_group is None else node.node_group
    data_dir = node.datadir
    return [
        (INT, NODE_ID, node.node_id),
        (STRING, 5, node.host),
        (STRING, 7, data_dir),
        (INT, 101, config.no_of_replicas),
        (INT64, 112, config.data_memory_mb * MB),
        (STRING, 125, data_dir),
        (INT, 126, config.no_of_fragment_log_files),
        (INT, 140, config.fragment_log_file_size_mb * MB),
        (INT64, 160, config.disk_page_buffer_mb * MB),
        (INT, 168, 0),
        (INT, 184, config.startup_status_report_frequency),
        (INT, 185, group),
        (INT, 186, node.max_exec_threads),
        (STRING, 189, "sparse"),
        (INT, 200, 0),
        (INT, 632, config.fragment_log_parts),
    ]


def node_entries(config: ClusterConfig) -> dict[int, tuple[int, list[Entry]]]:
    """Section type and every entry of each node, by node id."""
    nodes: dict[int, tuple[int, list[Entry]]] = {}
    for d in config.data_nodes:
        nodes[d.node_id] = (DATA, data_node_entries(config, d))
    for m in config.mgm_nodes:
        nodes[m.node_id] = (MGM, [(INT, NODE_ID, m.node_id), (STRING, 5, m.host or ""),
                                  (STRING, 7, m.datadir), (INT, 200, 1),
                                  (INT, 300, 1186)])
    for a in config.api_nodes:
        nodes[a.node_id] = (API, [(INT, NODE_ID, a.node_id), (STRING, 5, a.host or ""),
                                  (INT, 200, 0)])
    return nodes


def pack_v2(config: ClusterConfig, generation: int | None = None) -> bytes:
    """The configuration as ``get config_v2`` sends it, before base64."""
    nodes = node_entries(config)
    order = sorted(nodes)
    data_ids = [i for i in order if nodes[i][0] == DATA]
    others = [i for i in order if nodes[i][0] != DATA]
    pairs = [(a, b) for i, a in enumerate(data_ids) for b in data_ids[i + 1:]]
    pairs += [(o, d) for o in others for d in data_ids]
    pairs.sort()
    connections = [[(INT, 400, a), (INT, 401, b), (INT, 406, 0)] for a, b in pairs]

    out: list[int] = []
    kept_nodes: dict[int, list[Entry]] = {}
    for kind in (DATA, API, MGM):
        ids = [i for i in order if nodes[i][0] == kind]
        default, kept = _factor(kind, [nodes[i][1] for i in ids])
        out += _section(kind, default)
        kept_nodes.update(zip_strict(ids, kept))
    tcp_default, tcp_kept = _factor(TCP, connections)
    out += _section(TCP, tcp_default)
    out += _section(SHM, [])
    gen = config.generation if generation is None else generation
    out += _section(SYSTEM, [(INT, 1, 0), (INT, 2, gen), (STRING, 3, config.name)])
    for node_id in order:
        out += _section(nodes[node_id][0], kept_nodes[node_id])
    for entries in tcp_kept:
        out += _section(TCP, entries)
    counts = [sum(1 for i in order if nodes[i][0] == k) for k in (DATA, API, MGM)]
    header = [0x4E444243, 0x4F4E4632, 0, 2, 5, *counts, len(connections)]
    words = header + out + [0]
    words[2] = len(words)
    checksum = 0
    for w in words[:-1]:
        checksum ^= w
    words[-1] = checksum
    return struct.pack(f">{len(words)}I", *words)


def pack_v1(config: ClusterConfig) -> bytes:
    """The configuration as a 7.x server sends ``get config`` (ConfigValues::pack)."""
    section_step = 1 << 14
    words: list[int] = [0x4E444243, 0x4F4E4656]
    counter = [section_step]

    def new_section() -> int:
        sid = counter[0]
        counter[0] += section_step
        return sid

    def put(section: int, vtype: int, key: int, value: int | str) -> None:
        words.append(vtype << 28 | section | key)
        if vtype in (INT, 3):
            words.append(int(value) & 0xFFFFFFFF)
        elif vtype == INT64:
            words.extend(((int(value) >> 32) & 0xFFFFFFFF, int(value) & 0xFFFFFFFF))
        else:
            data = str(value).encode() + b"\0"
            data += b"\0" * (4 - len(data) % 4)
            words.append(len(str(value).encode()) + 1)
            words.extend(struct.unpack(f">{len(data) // 4}I", data))

    def listing(root_key: int, items: list[list[Entry]]) -> None:
        lid = new_section()
        put(0, 3, root_key, lid)
        for index, entries in enumerate(items):
            sid = new_section()
            put(lid, INT, index, sid)
            put(sid, INT, 0x3FFE, 0)
            for vtype, key, value in entries:
                put(sid, vtype, key, value)

    listing(1000, [[(INT, 2, config.generation), (STRING, 3, config.name)]])
    v1_types = {DATA: 0, API: 1, MGM: 2}
    nodes = node_entries(config)
    listing(2000, [[(INT, 999, v1_types[nodes[i][0]]), *nodes[i][1]] for i in sorted(nodes)])
    data_ids = [d.node_id for d in config.data_nodes]
    pairs = [(a, b) for i, a in enumerate(data_ids) for b in data_ids[i + 1:]]
    listing(3000, [[(INT, 999, 0), (INT, 400, a), (INT, 401, b)] for a, b in pairs])
    checksum = 0
    for w in words:
        checksum ^= w
    words.append(checksum)
    return struct.pack(f">{len(words)}I", *words)


def config_reply(blob: bytes, *, old_form: bool = False) -> bytes:
    """A ``get config reply`` carrying ``blob``: base64 in lines of 76 characters and one
    newline after the last, ``Content-Length`` counting them (8.x servers); with
    ``old_form`` (7.x) one byte more counted and two newlines after the last."""
    text = base64.b64encode(blob)
    body = b"\n".join(text[i:i + 76] for i in range(0, len(text), 76))
    head = (b"get config reply\nresult: Ok\nContent-Length: %d\n"
            b"Content-Type: ndbconfig/octet-stream\nContent-Transfer-Encoding: base64\n\n"
            % (len(body) + old_form))
    return head + body + (b"\n\n" if old_form else b"\n")
