"""Fetching the configuration: the command for the server's version, both reply forms, and
every refusal, from replies written as the real server sends them."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from config_vectors import (
    STATUS_NODE_5_DOWN,
    TWO_GROUPS,
    V1_TWO_NODES,
    base64_lines,
    config_reply,
)

from ndbtop.mgm.client import ConfigUnavailable, MgmClient
from ndbtop.model.config_decode import config_from_blob

Scripted = Callable[..., Awaitable[Any]]
MakeClient = Callable[..., MgmClient]

V76_REPLY = (
    b"version\nid: 460300\nmajor: 7\nminor: 6\nbuild: 12\nstring: mysql-5.7.35 ndb-7.6.12\n"
    b"mysql_major: 5\nmysql_minor: 7\nmysql_build: 35\n\n"
)


@pytest.mark.parametrize("old_form", [False, True])
async def test_both_content_length_forms_decode_and_the_session_goes_on(
    scripted: Scripted, make_client: MakeClient, old_form: bool
) -> None:
    server = await scripted({"get config_v2": config_reply(TWO_GROUPS, old_form=old_form),
                             "get status": STATUS_NODE_5_DOWN})
    client = make_client(server.connectstring)
    config = config_from_blob(await client.get_config_blob())
    assert config.generation == 7
    assert {d.node_id: d.node_group for d in config.data_nodes} == {2: 0, 3: 0, 4: 1, 5: 1}
    # The body was consumed exactly: the next reply on the same session parses.
    nodes = await client.get_status()
    assert [n.node_id for n in nodes] == [2, 3, 4, 5, 1, 50]
    assert client.sessions_opened == 1
    command, args = server.requests[-2]
    assert command == "get config_v2"
    assert args == ("version: 525315", "nodetype: 4294967295", "node: 0")
    assert client.config_command == "get config_v2"


async def test_a_server_before_8_0_is_asked_with_get_config_in_the_v1_format(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({"get version": V76_REPLY,
                             "get config": config_reply(V1_TWO_NODES, old_form=True)})
    client = make_client(server.connectstring)
    config = config_from_blob(await client.get_config_blob())
    assert config.generation == 3 and config.data_node(2).node_group == 1
    assert "get config_v2" not in server.commands
    command, args = server.requests[-1]
    assert command == "get config" and args == ("version: 525315", "nodetype: 4294967295")
    assert client.config_command == "get config"


async def test_unknown_command_falls_back_to_get_config(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({
        "get config_v2": b"result: Unknown command, 'get config_v2'\n\n",
        "get config": b"result: Unknown command, 'get config'\n\n",
    })
    client = make_client(server.connectstring)
    with pytest.raises(ConfigUnavailable, match="knows no get config command"):
        config_from_blob(await client.get_config_blob())
    assert server.commands.count("get config_v2") == 1
    assert server.commands.count("get config") == 1


async def test_an_error_result_is_reported_in_one_line_and_the_session_kept(
    scripted: Scripted, make_client: MakeClient
) -> None:
    server = await scripted({
        "get config_v2": b"get config reply\nresult: The configuration is not yet confirmed\n\n",
        "get status": STATUS_NODE_5_DOWN,
    })
    client = make_client(server.connectstring)
    with pytest.raises(ConfigUnavailable, match="not yet confirmed"):
        config_from_blob(await client.get_config_blob())
    assert len(await client.get_status()) == 6
    assert client.sessions_opened == 1


@pytest.mark.parametrize("head, reason", [
    (b"Content-Length: 10\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n",
     "Content-Type"),
    (b"Content-Length: 10\nContent-Type: ndbconfig/octet-stream\n"
     b"Content-Transfer-Encoding: 8bit\n", "Content-Transfer-Encoding"),
    (b"Content-Length: 99999999999\nContent-Type: ndbconfig/octet-stream\n"
     b"Content-Transfer-Encoding: base64\n", "too large"),
    (b"Content-Length: -4\nContent-Type: ndbconfig/octet-stream\n"
     b"Content-Transfer-Encoding: base64\n", "Content-Length"),
])
async def test_a_reply_of_another_form_is_refused(
    scripted: Scripted, make_client: MakeClient, head: bytes, reason: str
) -> None:
    server = await scripted({"get config_v2": b"get config reply\nresult: Ok\n" + head + b"\n"})
    client = make_client(server.connectstring)
    with pytest.raises(ConfigUnavailable, match=reason):
        config_from_blob(await client.get_config_blob())


async def test_a_damaged_body_gives_the_decoder_reason(
    scripted: Scripted, make_client: MakeClient
) -> None:
    damaged = bytearray(TWO_GROUPS)
    damaged[50] ^= 0x10
    server = await scripted({"get config_v2": config_reply(bytes(damaged)),
                             "get status": STATUS_NODE_5_DOWN})
    client = make_client(server.connectstring)
    with pytest.raises(ConfigUnavailable, match="configuration unavailable: checksum mismatch"):
        config_from_blob(await client.get_config_blob())
    assert len(await client.get_status()) == 6


async def test_bad_base64_is_refused(scripted: Scripted, make_client: MakeClient) -> None:
    body = base64_lines(TWO_GROUPS).replace(b"A", b"*", 1)
    head = (b"get config reply\nresult: Ok\nContent-Length: %d\n"
            b"Content-Type: ndbconfig/octet-stream\nContent-Transfer-Encoding: base64\n\n"
            % len(body))
    server = await scripted({"get config_v2": head + body + b"\n"})
    client = make_client(server.connectstring)
    with pytest.raises(ConfigUnavailable, match="base64"):
        config_from_blob(await client.get_config_blob())


def test_the_reply_helper_writes_76_character_lines() -> None:
    lines = base64_lines(TWO_GROUPS).split(b"\n")
    assert all(len(line) == 76 for line in lines[:-1]) and 0 < len(lines[-1]) <= 76
    assert base64.b64decode(b"".join(lines)) == TWO_GROUPS
