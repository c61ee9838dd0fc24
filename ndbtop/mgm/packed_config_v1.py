"""The packed configuration of NDB 7.x servers ("v1", magic ``NDBCONFV``).

Layout (ConfigValues.cpp, 7.6): the magic, then entries one after another,
then a checksum word (the XOR of every word before it, magic included). An
entry is a word ``type << 28 | section << 14 | key`` and its value: one word
(Int, or Section: the id of another section, already shifted), two words
(Int64), or a length word (bytes + 1) and the string with its NUL, padded to
``len + (4 - len % 4)`` bytes. Section 0 holds ``CFG_SECTION_SYSTEM`` (1000),
``CFG_SECTION_NODE`` (2000) and ``CFG_SECTION_CONNECTION`` (3000); each of
those is a section whose keys 0, 1, 2... give the section of each item. A node
section names its node type in ``CFG_TYPE_OF_SECTION`` (999: 0 data, 1 API,
2 management). There are no default sections: each section holds every value.
"""

from __future__ import annotations

from ndbtop.mgm.packed_config import (
    API_NODE,
    DATA_NODE,
    KEY_NODE_ID,
    MAGIC_V1,
    MAX_CONFIG_BYTES,
    MGM_NODE,
    SHM,
    TCP,
    ConfigFormatError,
    Entries,
    PackedConfig,
    check_checksum,
    words,
)

INT, STRING, SECTION, INT64 = 1, 2, 3, 4
SECTION_SHIFT = 14
SECTION_MASK = 0x3FFF
KEY_MASK = 0x3FFF
TYPE_OF_SECTION = 999
SECTION_SYSTEM, SECTION_NODE = 1000, 2000
V1_NODE_TYPES = {0: DATA_NODE, 1: API_NODE, 2: MGM_NODE}


def unpack_v1(blob: bytes) -> PackedConfig:
    """Split a v1 blob into the system and node sections (connections are not needed)."""
    size = len(blob)
    if blob[:8] != MAGIC_V1:
        raise ConfigFormatError(f"not a v1 configuration (magic {blob[:8]!r})")
    if size > MAX_CONFIG_BYTES:
        raise ConfigFormatError(f"configuration of {size} bytes is too large")
    if size % 4 or size < 12:
        raise ConfigFormatError(f"configuration length {size} is not a whole number of words")
    nwords = size // 4
    w = words(blob)
    check_checksum(blob, w)
    sections: dict[int, dict[int, tuple[int, int | str]]] = {}
    j, end = 2, nwords - 1
    while j < end:
        head = w[j]
        vtype = head >> 28
        section = (head >> SECTION_SHIFT) & SECTION_MASK
        key = head & KEY_MASK
        value: int | str
        if vtype in (INT, SECTION) and j + 2 <= end:
            value, j = w[j + 1], j + 2
        elif vtype == INT64 and j + 3 <= end:
            value, j = (w[j + 1] << 32) | w[j + 2], j + 3
        elif vtype == STRING and j + 2 <= end:
            nbytes = w[j + 1]
            start = (j + 2) * 4
            j += 2 + (nbytes + 4 - nbytes % 4) // 4
            if nbytes == 0 or j > end or blob.find(b"\0", start, start + nbytes) != \
                    start + nbytes - 1:
                raise ConfigFormatError(f"string of key {key} has impossible length {nbytes}")
            value = blob[start:start + nbytes - 1].decode("utf-8", "replace")
        elif vtype in (INT, SECTION, INT64, STRING):
            raise ConfigFormatError(f"entry at word {j} runs past the end")
        else:
            raise ConfigFormatError(f"unknown value type {vtype} of key {key} at word {j}")
        sections.setdefault(section, {})[key] = (vtype, value)
    if j != end:
        raise ConfigFormatError("last entry runs into the checksum")
    system = _items(sections, SECTION_SYSTEM)
    nodes: list[tuple[int, Entries]] = []
    for entries in _items(sections, SECTION_NODE):
        kind = V1_NODE_TYPES.get(entries.get(TYPE_OF_SECTION, -1))  # type: ignore[arg-type]
        if kind is None:
            raise ConfigFormatError("node section without a known node type")
        if not isinstance(entries.get(KEY_NODE_ID), int):
            raise ConfigFormatError("node section without NodeId")
        nodes.append((kind, entries))
    defaults: dict[int, Entries] = {k: {} for k in (DATA_NODE, API_NODE, MGM_NODE, TCP, SHM)}
    return PackedConfig(defaults, system[0] if system else {}, nodes, 0)


def _items(sections: dict[int, dict[int, tuple[int, int | str]]], key: int) -> list[Entries]:
    """The sections listed under ``key`` of the root section, in order."""
    ref = sections.get(0, {}).get(key)
    if ref is None:
        raise ConfigFormatError(f"root section has no section {key}")
    if ref[0] != SECTION:
        raise ConfigFormatError(f"root entry {key} is not a section")
    listing = sections.get((int(ref[1]) >> SECTION_SHIFT) & SECTION_MASK, {})
    out: list[Entries] = []
    for index in range(len(listing)):
        item = listing.get(index)
        if item is None:
            break
        if item[0] != INT:
            raise ConfigFormatError(f"item {index} of section {key} is not a section id")
        entries = sections.get((int(item[1]) >> SECTION_SHIFT) & SECTION_MASK)
        if entries is None:
            raise ConfigFormatError(f"item {index} of section {key} is missing")
        out.append({k: v for k, (_t, v) in entries.items()})
    return out
