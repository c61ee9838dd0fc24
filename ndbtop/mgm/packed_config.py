"""The packed binary configuration ("v2", magic ``NDBCONF2``), split into sections.

Layout (ConfigObject.cpp / ConfigSection.cpp): every word is 32 bits,
big-endian. Two magic words, a header of seven words (total length in words,
format version 2, number of default sections (5), of data nodes, of API nodes,
of management nodes, of connections), the five default sections (data node,
API, management, TCP, SHM), the system section, the node sections, the
connection sections, and a checksum word: the XOR of every word before it.

A section is three words (its length in words, header included; its number of
entries; its type) and its entries. An entry is ``value_type << 28 | key``
and its value: one word (Int), two words high first (Int64), or a length word
(bytes + 1), the bytes, a NUL and zero padding to a whole word (String).

Everything here is untrusted input: every length is checked against the
blob before it is used, and any inconsistency raises
:class:`ConfigFormatError` with a one-line reason.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from ndbtop.compat import SLOTS
from ndbtop.errors import MgmProtocolError

MAGIC_V2 = b"NDBCONF2"
MAGIC_V1 = b"NDBCONFV"
FORMAT_VERSION = 2
DEFAULT_SECTIONS = 5
HEADER_WORDS = 2 + 7
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""Largest blob accepted: a 255-node configuration with every connection is about 1 MB,
and a configuration is read again after every reconnect."""

DATA_NODE, API_NODE, MGM_NODE, TCP, SHM, SYSTEM = 1, 2, 3, 4, 5, 6
SECTION_NAMES = {DATA_NODE: "data node", API_NODE: "API", MGM_NODE: "management",
                 TCP: "TCP", SHM: "SHM", SYSTEM: "system"}
NODE_SECTIONS = (DATA_NODE, API_NODE, MGM_NODE)
CONNECTION_SECTIONS = (TCP, SHM)

INT, STRING, INT64 = 1, 2, 4

KEY_NODE_ID = 3
KEY_CONNECTION_NODE_1 = 400
KEY_CONNECTION_NODE_2 = 401

Value = Union[int, str]
Entries = dict[int, Value]


class ConfigFormatError(MgmProtocolError):
    """The configuration cannot be decoded; the message is the one-line reason."""


@dataclass(**SLOTS)
class PackedConfig:
    """The sections of one configuration, in the order the server sent them.

    ``defaults`` maps a section type to its default section's entries; ``nodes``
    holds ``(section type, entries)`` per node. Connections are checked but not
    kept (ndbtop has no use for them): ``connections`` counts them.
    """

    defaults: dict[int, Entries]
    system: Entries
    nodes: list[tuple[int, Entries]]
    connections: int


def xor_words(blob: bytes) -> int:
    """XOR of every big-endian 32-bit word of ``blob`` (its length a multiple of 4).

    The words are folded as one big integer, halving it at each step, which
    costs a few dozen big-integer operations instead of one per word.
    """
    words = len(blob) // 4
    if words == 0:
        return 0
    value = int.from_bytes(blob, "big")
    while words > 1:
        half = words // 2
        low_bits = 32 * (words - half)
        value = (value >> low_bits) ^ (value & ((1 << low_bits) - 1))
        words -= half
    return value


def words(blob: bytes) -> Sequence[int]:
    """The blob as big-endian 32-bit words (an array: a large configuration has 190,000)."""
    out = array("I")
    if out.itemsize != 4:  # pragma: no cover - no common platform has another size
        return struct.unpack(f">{len(blob) // 4}I", blob)
    out.frombytes(blob)
    if sys.byteorder == "little":
        out.byteswap()
    return out


def check_checksum(blob: bytes, w: Sequence[int]) -> None:
    """Raise :class:`ConfigFormatError` unless the last word is the XOR of every word before."""
    checksum = xor_words(blob[:-4])
    if checksum != w[-1]:
        raise ConfigFormatError(
            f"checksum mismatch (computed {checksum:#010x}, received {w[-1]:#010x})")


def unpack(blob: bytes) -> PackedConfig:
    """Split a v2 blob into sections after checking every length and the checksum."""
    size = len(blob)
    if size < 8 or blob[:8] != MAGIC_V2:
        raise ConfigFormatError(f"not a packed configuration (magic {blob[:8]!r})")
    if size > MAX_CONFIG_BYTES:
        raise ConfigFormatError(f"configuration of {size} bytes is too large")
    if size % 4:
        raise ConfigFormatError(f"configuration length {size} is not a whole number of words")
    nwords = size // 4
    if nwords < HEADER_WORDS + 1:
        raise ConfigFormatError("configuration shorter than its header")
    w = words(blob)
    total, version, ndefaults, n_data, n_api, n_mgm, n_conn = w[2:9]
    if version != FORMAT_VERSION:
        raise ConfigFormatError(f"unsupported configuration format version {version}")
    if total != nwords:
        raise ConfigFormatError(f"header says {total} words, received {nwords}")
    if ndefaults != DEFAULT_SECTIONS:
        raise ConfigFormatError(f"{ndefaults} default sections, expected {DEFAULT_SECTIONS}")
    check_checksum(blob, w)
    n_nodes = n_data + n_api + n_mgm
    if DEFAULT_SECTIONS + 1 + n_nodes + n_conn > nwords:
        raise ConfigFormatError("header announces more sections than the configuration holds")

    end = nwords - 1
    pos = HEADER_WORDS
    defaults: dict[int, Entries] = {}
    for expected in (DATA_NODE, API_NODE, MGM_NODE, TCP, SHM):
        kind, entries, pos = _section(w, blob, pos, end)
        if kind != expected:
            raise ConfigFormatError(
                f"default section of type {kind} where {SECTION_NAMES[expected]} expected")
        defaults[kind] = entries
    kind, system, pos = _section(w, blob, pos, end)
    if kind != SYSTEM:
        raise ConfigFormatError(f"section of type {kind} where the system section expected")
    nodes: list[tuple[int, Entries]] = []
    counts = {DATA_NODE: 0, API_NODE: 0, MGM_NODE: 0}
    for _ in range(n_nodes):
        kind, entries, pos = _section(w, blob, pos, end)
        if kind not in counts:
            raise ConfigFormatError(f"section of type {kind} among the node sections")
        node_id = entries.get(KEY_NODE_ID)
        if not isinstance(node_id, int):
            raise ConfigFormatError(f"{SECTION_NAMES[kind]} section without NodeId")
        counts[kind] += 1
        nodes.append((kind, entries))
    if (counts[DATA_NODE], counts[API_NODE], counts[MGM_NODE]) != (n_data, n_api, n_mgm):
        raise ConfigFormatError(
            f"header announces {n_data}/{n_api}/{n_mgm} data/API/management nodes, "
            f"sections hold {counts[DATA_NODE]}/{counts[API_NODE]}/{counts[MGM_NODE]}")
    if not _plain_connections(w, pos, end, n_conn):
        for _ in range(n_conn):
            pos = _connection(w, blob, pos, end, defaults)
        if pos != end:
            raise ConfigFormatError(f"{end - pos} words after the last section")
    return PackedConfig(defaults, system, nodes, n_conn)


def _section(w: Sequence[int], blob: bytes, pos: int, end: int) -> tuple[int, Entries, int]:
    """Decode the section at word ``pos``; returns its type, entries and the next position."""
    if pos + 3 > end:
        raise ConfigFormatError(f"section header at word {pos} runs past the end")
    length, count, kind = w[pos], w[pos + 1], w[pos + 2]
    stop = pos + length
    if length < 3 or stop > end:
        raise ConfigFormatError(f"section at word {pos} has impossible length {length}")
    if count > length - 3:
        raise ConfigFormatError(
            f"section at word {pos} announces {count} entries in {length} words")
    if kind not in SECTION_NAMES:
        raise ConfigFormatError(f"unknown section type {kind} at word {pos}")
    entries: Entries = {}
    j = pos + 3
    for _ in range(count):
        if j >= stop:
            raise ConfigFormatError(f"section at word {pos} is truncated")
        head = w[j]
        vtype = head >> 28
        key = head & 0x0FFFFFFF
        if vtype == INT:
            if j + 2 > stop:
                raise ConfigFormatError(f"section at word {pos} is truncated")
            entries[key] = w[j + 1]
            j += 2
        elif vtype == INT64:
            if j + 3 > stop:
                raise ConfigFormatError(f"section at word {pos} is truncated")
            entries[key] = (w[j + 1] << 32) | w[j + 2]
            j += 3
        elif vtype == STRING:
            if j + 2 > stop:
                raise ConfigFormatError(f"section at word {pos} is truncated")
            nbytes = w[j + 1]
            start = (j + 2) * 4
            j += 2 + (nbytes + 3) // 4
            if nbytes == 0 or j > stop:
                raise ConfigFormatError(
                    f"string of key {key} at word {pos} has impossible length {nbytes}")
            if blob[start + nbytes - 1] != 0:
                raise ConfigFormatError(f"string of key {key} at word {pos} is not terminated")
            entries[key] = blob[start:start + nbytes - 1].decode("utf-8", "replace")
        else:
            raise ConfigFormatError(f"unknown value type {vtype} of key {key} at word {pos}")
    if j != stop:
        raise ConfigFormatError(f"section at word {pos} is {length} words, its entries {j - pos}")
    return kind, entries, stop


_PLAIN_CONNECTION_HEAD = (INT << 28) | KEY_CONNECTION_NODE_1
_PLAIN_CONNECTION_NEXT = (INT << 28) | KEY_CONNECTION_NODE_2


def _plain_connections(w: Sequence[int], pos: int, end: int, count: int) -> bool:
    """True when the connections are all in the common form, seven words each: their
    header (7 words, 2 entries, TCP or SHM) and NodeId1 and NodeId2, every other value
    as in the default section. A large cluster has tens of thousands of them; this
    checks them all at once."""
    if end - pos != 7 * count:
        return False
    return count == 0 or (
        set(w[pos:end:7]) == {7} and set(w[pos + 1:end:7]) == {2}
        and set(w[pos + 2:end:7]) <= set(CONNECTION_SECTIONS)
        and set(w[pos + 3:end:7]) == {_PLAIN_CONNECTION_HEAD}
        and set(w[pos + 5:end:7]) == {_PLAIN_CONNECTION_NEXT})


def _connection(w: Sequence[int], blob: bytes, pos: int, end: int,
                defaults: dict[int, Entries]) -> int:
    """Check one connection section (its NodeId1 and NodeId2 may come from the default
    section); returns the position of the next."""
    kind, entries, stop = _section(w, blob, pos, end)
    if kind not in CONNECTION_SECTIONS:
        raise ConfigFormatError(f"section of type {kind} among the connection sections")
    default = defaults[kind]
    if not all(isinstance(entries.get(key, default.get(key)), int)
               for key in (KEY_CONNECTION_NODE_1, KEY_CONNECTION_NODE_2)):
        raise ConfigFormatError(f"connection section at word {pos} without NodeId1 and NodeId2")
    return stop
