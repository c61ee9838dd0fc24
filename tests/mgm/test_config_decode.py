"""Decoding the packed configuration: a blob captured from a real server, vectors written
by hand from the reference, and every kind of damage."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest
from config_vectors import (
    API_50,
    DATA_2,
    DATA_3,
    DEFAULT_API,
    DEFAULT_MGM,
    DEFAULT_SHM,
    DEFAULT_TCP,
    INT,
    MGM_1,
    STR,
    SYSTEM,
    TCP_2_3,
    TWO_GROUPS,
    V1_TWO_NODES,
    blob,
    chars,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.mgm.config_fetch import decode_body
from ndbtop.mgm.packed_config import ConfigFormatError
from ndbtop.model.config import NO_NODE_GROUP
from ndbtop.model.config_decode import decode_config

CAPTURED = Path(__file__).parent / "fixtures" / "operator_config_v2.b64"
"""The base64 blob of mysql/mysql-ndb-operator's config reader test (pkg/mgmapi), captured
from a real 8.0 management server: data nodes 2 and 3, management node 50, API nodes
145-154, DataMemory=200M in [ndbd default]."""


def test_a_blob_captured_from_a_real_server_decodes_with_its_checksum() -> None:
    config = decode_config(decode_body(CAPTURED.read_bytes()))
    assert config.generation == 1
    assert config.name == "MC_20210614170132"
    assert config.no_of_replicas == 2
    assert [d.node_id for d in config.data_nodes] == [2, 3]
    assert [n.node_id for n in config.nodes] == [2, 3, 50, *range(145, 155)]
    node2, node3 = config.data_nodes
    # The default section was filled from node 3; node 2 keeps its own DataDir.
    assert node2.data_dir == "/home/mysql/datadir/ndb_data/node2"
    assert node3.data_dir == "/home/mysql/datadir/ndb_data/node3"
    assert node2.file_system_path == "/home/mysql/datadir/ndb_data/node2"
    assert node2.data_memory == node3.data_memory == 200 * 1024 * 1024
    assert "DataMemory" not in node2.defaulted
    assert node2.node_group == node3.node_group == 0
    assert node2.host == "localhost"
    assert node2.redo_log_bytes == 4 * 16 * 16 * 1024 * 1024
    assert node2.startup_status_report_frequency == 0
    assert {"StartupStatusReportFrequency", "NoOfFragmentLogFiles"} <= node2.defaulted
    assert node2.init_fragment_log_files == "sparse"
    assert node2.thread_config == "main,ldm,ldm,ldm,ldm,recv,rep,tc,tc,send"
    mgm = config.node(50)
    assert mgm.node_type == "MGM" and mgm.host == "localhost" and mgm.arbitration_rank == 1
    assert config.node(145).node_type == "API" and config.node(145).host == ""


def test_node_values_come_from_the_node_then_the_default_section_then_configinfo() -> None:
    config = decode_config(TWO_GROUPS)
    assert config.generation == 7 and config.name == "c1" and config.no_of_replicas == 2
    groups = {d.node_id: d.node_group for d in config.data_nodes}
    assert groups == {2: 0, 3: 0, 4: 1, 5: 1}
    hosts = {d.node_id: d.host for d in config.data_nodes}
    assert hosts == {2: "10.0.0.2", 3: "10.0.0.3", 4: "10.0.0.4", 5: "10.0.0.5"}
    node5 = config.data_node(5)
    assert node5.data_dir == "/d" and node5.data_memory == 1 << 30
    assert node5.fragment_log_files == 16 and "NoOfFragmentLogFiles" in node5.defaulted
    assert node5.redo_log_bytes == 1 << 30
    assert config.node(50).node_type == "API" and config.node(1).node_type == "MGM"


def _data_default(*entries: int) -> list[int]:
    return [3 + len(entries), len(entries) // 2, 1, *entries]


def test_without_nodegroup_the_automatic_rule_fills_groups_in_node_id_order() -> None:
    # Node 4 is explicitly in group 0; 2, 3 and 5 have no NodeGroup: 2 joins 0, 3 and 5 form 1.
    sections = [
        _data_default(INT | 101, 2), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
        [5, 1, 1, INT | 3, 2], [5, 1, 1, INT | 3, 3], [7, 2, 1, INT | 3, 4, INT | 185, 0],
        [5, 1, 1, INT | 3, 5],
    ]
    config = decode_config(blob(sections, (4, 0, 0, 0)))
    assert {d.node_id: d.node_group for d in config.data_nodes} == {2: 0, 3: 1, 4: 0, 5: 1}


def test_a_node_with_no_node_group_keeps_65536() -> None:
    sections = [
        _data_default(INT | 185, 0), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
        [5, 1, 1, INT | 3, 2], [5, 1, 1, INT | 3, 3], [7, 2, 1, INT | 3, 4, INT | 185, 65536],
    ]
    config = decode_config(blob(sections, (3, 0, 0, 0)))
    assert config.data_node(4).node_group == NO_NODE_GROUP
    assert not config.data_node(4).in_node_group


def test_unknown_keys_are_skipped() -> None:
    sections = [
        _data_default(INT | 185, 0, INT | 9999, 5, INT | 0x0FFFFFFF, 1), DEFAULT_API,
        DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM, [7, 2, 1, INT | 3, 2, INT | 4242, 1],
    ]
    assert decode_config(blob(sections, (1, 0, 0, 0))).data_node(2).node_group == 0


def test_strings_are_kept_exactly_control_characters_included() -> None:
    # The JSON keeps the exact string; the screen and the text reports escape it.
    sections = [
        _data_default(INT | 185, 0), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
        [9, 2, 1, INT | 3, 2, STR | 5, 5, chars(b"\x1b\x07\r["), 0],
    ]
    config = decode_config(blob(sections, (1, 0, 0, 0)))
    assert config.data_node(2).host == "\x1b\x07\r["


def _reason(data: bytes) -> str:
    with pytest.raises(ConfigFormatError) as info:
        decode_config(data)
    reason = str(info.value)
    assert "\n" not in reason and reason
    return reason


def _rechecksum(data: bytes) -> bytes:
    words = list(struct.unpack(f">{len(data) // 4}I", data))
    checksum = 0
    for w in words[:-1]:
        checksum ^= w
    words[-1] = checksum
    return struct.pack(f">{len(words)}I", *words)


def _set_word(data: bytes, index: int, value: int) -> bytes:
    words = list(struct.unpack(f">{len(data) // 4}I", data))
    words[index] = value
    return _rechecksum(struct.pack(f">{len(words)}I", *words))


def test_damage_gives_a_one_line_reason() -> None:
    assert "magic" in _reason(b"NDBCONFX" + TWO_GROUPS[8:])
    assert "checksum" in _reason(b"NDBCONFV" + TWO_GROUPS[8:])
    flipped = bytearray(TWO_GROUPS)
    flipped[40] ^= 1
    assert "checksum" in _reason(bytes(flipped))
    assert "version" in _reason(_set_word(TWO_GROUPS, 3, 1))
    assert "words" in _reason(_set_word(TWO_GROUPS, 2, 9999))
    assert "default sections" in _reason(_set_word(TWO_GROUPS, 4, 4))
    assert "whole number" in _reason(TWO_GROUPS + b"\0")
    assert "shorter" in _reason(TWO_GROUPS[:16])
    # The first default section claims to be longer than the blob.
    assert "length" in _reason(_set_word(TWO_GROUPS, 9, 0xFFFFFFF0))
    # ... or to hold more entries than words.
    assert "entries" in _reason(_set_word(TWO_GROUPS, 10, 0x7FFFFFFF))
    # A string length running past its section.
    assert "length" in _reason(_set_word(TWO_GROUPS, 13, 0xFFFFFFFF))
    # A value type that does not exist (3 exists only in v1).
    assert "value type" in _reason(_set_word(TWO_GROUPS, 12, 0x30000005))
    # More nodes announced than present.
    assert "announces" in _reason(_set_word(TWO_GROUPS, 5, 200))


def test_truncated_and_unknown_sections_are_refused() -> None:
    short_node = [4, 1, 1, INT | 3]
    sections = [_data_default(), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
                short_node]
    assert "truncated" in _reason(blob(sections, (1, 0, 0, 0)))
    unknown = [_data_default(), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
               [5, 1, 9, INT | 3, 2]]
    assert "unknown section type 9" in _reason(blob(unknown, (1, 0, 0, 0)))
    no_id = [_data_default(), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
             [5, 1, 1, INT | 5, 2]]
    assert "without NodeId" in _reason(blob(no_id, (1, 0, 0, 0)))
    half_connection = [_data_default(), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM,
                       SYSTEM, DATA_2, DATA_3, [5, 1, 4, INT | 400, 2]]
    assert "NodeId1 and NodeId2" in _reason(blob(half_connection, (2, 0, 0, 1)))
    repeated = [_data_default(), DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM,
                DATA_2, DATA_2]
    assert "repeated" in _reason(blob(repeated, (2, 0, 0, 0)))


def test_bad_base64_and_huge_bodies_are_refused() -> None:
    with pytest.raises(ConfigFormatError, match="base64"):
        decode_body(b"TkRCQ09ORjI*AAAA")
    with pytest.raises(ConfigFormatError, match="too large"):
        decode_body(b"A" * (49 * 1024 * 1024))
    assert decode_body(b"TkRC\nQ09O\r\nRjI=") == b"NDBCONF2"


VALID = [DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM, MGM_1, DATA_2, API_50,
         TCP_2_3]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_never_crash(data: bytes) -> None:
    for candidate in (data, b"NDBCONF2" + data):
        try:
            decode_config(candidate)
        except ConfigFormatError as exc:
            assert "\n" not in str(exc)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 120), st.integers(0, 0xFFFFFFFF)), min_size=1,
                max_size=4), st.booleans())
def test_damaged_words_never_crash(changes: list[tuple[int, int]], fix_checksum: bool) -> None:
    words = list(struct.unpack(f">{len(TWO_GROUPS) // 4}I", TWO_GROUPS))
    for index, value in changes:
        words[index % len(words)] = value
    data = struct.pack(f">{len(words)}I", *words)
    if fix_checksum:
        data = _rechecksum(data)
    try:
        config = decode_config(data)
    except ConfigFormatError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(1 <= n.node_id <= 255 for n in config.nodes)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, len(TWO_GROUPS) - 1))
def test_every_truncation_is_refused(cut: int) -> None:
    with pytest.raises(ConfigFormatError):
        decode_config(TWO_GROUPS[:cut])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_bodies_never_crash(text: str) -> None:
    try:
        decode_config(decode_body(text.encode("utf-8", "replace")))
    except ConfigFormatError as exc:
        assert "\n" not in str(exc)


def test_the_valid_vector_round_trips_through_base64() -> None:
    text = base64.b64encode(TWO_GROUPS)
    assert decode_config(decode_body(text)).generation == 7


def test_a_7x_configuration_decodes_from_its_v1_sections() -> None:
    config = decode_config(V1_TWO_NODES)
    assert config.generation == 3 and config.name == "v1"
    (node2,) = config.data_nodes
    assert (node2.node_id, node2.host, node2.node_group) == (2, "h22", 1)
    assert config.node(1).node_type == "MGM"


def test_damaged_v1_configurations_are_refused() -> None:
    assert "checksum" in _reason(V1_TWO_NODES[:-1] + b"\0")
    words = list(struct.unpack(f">{len(V1_TWO_NODES) // 4}I", V1_TWO_NODES))
    words[2] = 0x30000000 | 1001  # the system listing moved away
    assert "no section 1000" in _reason(_rechecksum(struct.pack(f">{len(words)}I", *words)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 0xFFFFFFFF)), min_size=1,
                max_size=3))
def test_damaged_v1_words_never_crash(changes: list[tuple[int, int]]) -> None:
    words = list(struct.unpack(f">{len(V1_TWO_NODES) // 4}I", V1_TWO_NODES))
    for index, value in changes:
        words[index % len(words)] = value
    try:
        decode_config(_rechecksum(struct.pack(f">{len(words)}I", *words)))
    except ConfigFormatError as exc:
        assert "\n" not in str(exc)
