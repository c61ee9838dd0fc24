"""Packed configurations written word by word from config-protocol.md, for tests.

Nothing here uses ndbtop's own encoder: each section is spelled out as the
reference describes it (big-endian words, section header of length/entries/type,
``value_type << 28 | key`` entry words, strings with a NUL and zero padding).
"""

from __future__ import annotations

import base64
import struct

INT = 0x10000000
STR = 0x20000000
I64 = 0x40000000


def chars(text: bytes) -> int:
    """Four bytes of a string as one big-endian word."""
    assert len(text) == 4
    return int.from_bytes(text, "big")


def blob(sections: list[list[int]], counts: tuple[int, int, int, int]) -> bytes:
    """Magic, header, the sections as given, and the checksum (XOR of every word)."""
    body = [w for s in sections for w in s]
    total = 2 + 7 + len(body) + 1
    words = [chars(b"NDBC"), chars(b"ONF2"), total, 2, 5, *counts, *body]
    checksum = 0
    for w in words:
        checksum ^= w
    words.append(checksum)
    return struct.pack(f">{len(words)}I", *words)


DEFAULT_DATA = [
    18, 5, 1,
    STR | 5, 9, chars(b"10.0"), chars(b".0.2"), 0,       # HostName "10.0.0.2"
    STR | 7, 3, chars(b"/d\0\0"),                        # DataDir "/d"
    INT | 101, 2,                                        # NoOfReplicas 2
    I64 | 112, 0, 0x40000000,                            # DataMemory 1 GiB
    INT | 185, 0,                                        # NodeGroup 0 (from node 2)
]
DEFAULT_API = [3, 0, 2]
DEFAULT_MGM = [5, 1, 3, INT | 300, 1186]
DEFAULT_TCP = [3, 0, 4]
DEFAULT_SHM = [3, 0, 5]
SYSTEM = [8, 2, 6, INT | 2, 7, STR | 3, 3, chars(b"c1\0\0")]   # generation 7, name "c1"
MGM_1 = [5, 1, 3, INT | 3, 1]
DATA_2 = [5, 1, 1, INT | 3, 2]
DATA_3 = [10, 2, 1, INT | 3, 3, STR | 5, 9, chars(b"10.0"), chars(b".0.3"), 0]
DATA_4 = [12, 3, 1, INT | 3, 4, STR | 5, 9, chars(b"10.0"), chars(b".0.4"), 0, INT | 185, 1]
DATA_5 = [12, 3, 1, INT | 3, 5, STR | 5, 9, chars(b"10.0"), chars(b".0.5"), 0, INT | 185, 1]
API_50 = [5, 1, 2, INT | 3, 50]
TCP_2_3 = [7, 2, 4, INT | 400, 2, INT | 401, 3]

TWO_GROUPS_SECTIONS = [DEFAULT_DATA, DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
                       MGM_1, DATA_2, DATA_3, DATA_4, DATA_5, API_50, TCP_2_3]
TWO_GROUPS = blob(TWO_GROUPS_SECTIONS, (4, 1, 1, 1))
"""Data nodes 2 and 3 in group 0, 4 and 5 in group 1 (hosts 10.0.0.2..5), management
node 1, API node 50, one connection; generation 7."""


def base64_lines(data: bytes) -> bytes:
    """Base64 with a newline after every 76 characters and none after the last."""
    text = base64.b64encode(data)
    return b"\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def config_reply(data: bytes, *, old_form: bool = False) -> bytes:
    """A ``get config reply`` as a newer (or, with ``old_form``, a 7.x / early 8.0) server
    sends it."""
    body = base64_lines(data)
    length = len(body) + 1 if old_form else len(body)
    head = (b"get config reply\nresult: Ok\nContent-Length: %d\n"
            b"Content-Type: ndbconfig/octet-stream\nContent-Transfer-Encoding: base64\n\n"
            % length)
    return head + body + (b"\n\n" if old_form else b"\n")


STATUS_NODE_5_DOWN = "".join(line + "\n" for line in [
    'node status',
    'nodes: 6',
    'node.2.type: NDB',
    'node.2.status: STARTED',
    'node.2.version: 525315',
    'node.2.mysql_version: 525315',
    'node.2.startphase: 0',
    'node.2.dynamic_id: 1',
    'node.2.node_group: 0',
    'node.2.connect_count: 1',
    'node.2.address: 10.0.0.2',
    'node.2.is_single_user: 0',
    'node.3.type: NDB',
    'node.3.status: STARTED',
    'node.3.version: 525315',
    'node.3.mysql_version: 525315',
    'node.3.startphase: 0',
    'node.3.dynamic_id: 2',
    'node.3.node_group: 0',
    'node.3.connect_count: 1',
    'node.3.address: 10.0.0.3',
    'node.3.is_single_user: 0',
    'node.4.type: NDB',
    'node.4.status: STARTED',
    'node.4.version: 525315',
    'node.4.mysql_version: 525315',
    'node.4.startphase: 0',
    'node.4.dynamic_id: 3',
    'node.4.node_group: 1',
    'node.4.connect_count: 1',
    'node.4.address: 10.0.0.4',
    'node.4.is_single_user: 0',
    'node.5.type: NDB',
    'node.5.status: NO_CONTACT',
    'node.5.version: 0',
    'node.5.mysql_version: 0',
    'node.5.startphase: 0',
    'node.5.dynamic_id: 0',
    'node.5.node_group: 0',
    'node.5.connect_count: 0',
    'node.5.address: ',
    'node.5.is_single_user: 0',
    'node.1.type: MGM',
    'node.1.status: CONNECTED',
    'node.1.version: 525315',
    'node.1.mysql_version: 525315',
    'node.1.startphase: 0',
    'node.1.dynamic_id: 0',
    'node.1.node_group: 0',
    'node.1.connect_count: 0',
    'node.1.address: 127.0.0.1',
    'node.1.is_single_user: 0',
    'node.50.type: API',
    'node.50.status: NO_CONTACT',
    'node.50.version: 0',
    'node.50.mysql_version: 0',
    'node.50.startphase: 0',
    'node.50.dynamic_id: 0',
    'node.50.node_group: 0',
    'node.50.connect_count: 0',
    'node.50.address: ',
    'node.50.is_single_user: 0',
    '',
]).encode()
"""``get status`` as a real server answers with node 5 down: zeros and an empty address."""


SEC = 0x30000000


def v1_blob(words: list[int]) -> bytes:
    """``NDBCONFV``, the entry words as given, and the checksum."""
    all_words = [chars(b"NDBC"), chars(b"ONFV"), *words]
    checksum = 0
    for w in all_words:
        checksum ^= w
    return struct.pack(f">{len(all_words) + 1}I", *all_words, checksum)


V1_TWO_NODES = v1_blob([
    SEC | 1000, 0x4000,                      # root: system listing in section 1
    SEC | 2000, 0x8000,                      # root: node listing in section 2
    INT | 0x4000 | 0, 0xC000,                # system item 0 is section 3
    INT | 0xC000 | 0x3FFE, 0,                # its parent
    INT | 0xC000 | 2, 3,                     # ConfigGenerationNumber 3
    STR | 0xC000 | 3, 3, chars(b"v1\0\0"),   # Name "v1": 3 bytes padded to 4
    INT | 0x8000 | 0, 0x10000,               # node item 0 is section 4
    INT | 0x8000 | 1, 0x14000,               # node item 1 is section 5
    INT | 0x10000 | 999, 0,                  # data node
    INT | 0x10000 | 3, 2,                    # NodeId 2
    STR | 0x10000 | 5, 4, chars(b"h22\0"), 0,  # HostName "h22": 4 bytes padded to 8
    INT | 0x10000 | 185, 1,                  # NodeGroup 1
    INT | 0x14000 | 999, 2,                  # management node
    INT | 0x14000 | 3, 1,                    # NodeId 1
])
"""A 7.x configuration: data node 2 (host h22, group 1) and management node 1, generation 3."""
