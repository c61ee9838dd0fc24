"""Single-user mode in --once: the text summary and the JSON summary name it and the API
node that holds it (``is_single_user`` from the server)."""

from __future__ import annotations

import json

import pytest

from ndbtop.cli import main
from ndbtop.sim.scenarios import SINGLE_USER_API, SINGLE_USER_AT, SINGLE_USER_FOR


def once(capsys: pytest.CaptureFixture[str], at: float, *extra: str) -> str:
    argv = ["demo", "--once", "--no-sql", "--scenario", "single-user", "--at", str(at),
            "--interval", "0.1", *extra]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_json_summary_says_single_user_mode_and_who_holds_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    inside = json.loads(once(capsys, SINGLE_USER_AT + 10, "--json"))
    assert inside["summary"]["single_user_mode"] is True
    assert inside["summary"]["single_user_api_node"] == SINGLE_USER_API
    assert {n["status"] for n in inside["nodes"] if n["type"] == "NDB"} == {"SINGLE USER MODE"}
    holders = [n["node_id"] for n in inside["nodes"] if n["is_single_user"]]
    assert holders == [SINGLE_USER_API]
    before = json.loads(once(capsys, SINGLE_USER_AT - 10, "--json"))
    assert before["summary"]["single_user_mode"] is False
    assert before["summary"]["single_user_api_node"] is None
    after = json.loads(once(capsys, SINGLE_USER_AT + SINGLE_USER_FOR + 10, "--json"))
    assert after["summary"]["single_user_mode"] is False


def test_text_summary_names_single_user_mode(capsys: pytest.CaptureFixture[str]) -> None:
    out = once(capsys, SINGLE_USER_AT + 10)
    assert (
        f"; SINGLE-USER MODE (API node {SINGLE_USER_API}): every restart is refused\n" in out
    )
