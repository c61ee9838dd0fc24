"""Lines for ``ndbtop mgm`` that ``ndb_mgm`` would read as one unknown word are refused here
too, before anything is sent.

``ndb_mgm`` (storage/ndb/src/mgmclient/CommandInterpreter.cpp, ``execute_impl``) splits a
line at ASCII spaces (``strtok(line, " ")``, ``BaseString::split``) and compares words with
``strcasecmp``, which folds ASCII letters only: ``ſhow`` is not ``SHOW`` there (Unicode's
upper case of ``ſ`` is ``S``), and ``2<U+2028>restart`` is one word, not a node id and a
command. It reads at most ``MAX_NODES`` node ids into ``int node_ids[MAX_NODES]``.
"""

from __future__ import annotations

import pytest

from ndbtop.actions.admin_commands import ExitSingleUser
from ndbtop.actions.mgm_language import Change, MgmUsageError, Query, parse
from tests.conftest import run_cli


@pytest.mark.parametrize("line", [
    "ſhow", "2\u2028restart", "2\u2029RESTART", "2\u00a0RESTART", "2\u3000STOP",
    "2 RESTART\u200b", "2\x0bRESTART", "2\x1cRESTART", "2\nRESTART", "ＳＨＯＷ", "２ STATUS",
])
def test_only_ascii_words_are_read(line: str) -> None:
    with pytest.raises(MgmUsageError, match="ndb_mgm reads printable ASCII only"):
        parse(line)


def test_spaces_and_tabs_part_words() -> None:
    assert parse("2\tSTATUS") == parse("  2  status ;") == Query("STATUS", (2,))


@pytest.mark.parametrize("line", ["2 2 RESTART", "2 3 2 STOP", "3 003 RESTART -n"])
def test_a_node_named_twice_is_refused(line: str) -> None:
    with pytest.raises(MgmUsageError, match=r"Node \d is named twice"):
        parse(line)


def test_60000_node_ids_are_a_usage_error_not_an_internal_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    line = " ".join(str(i % 255 + 1) for i in range(60_000)) + " RESTART"
    status, out, err = run_cli(capsys, ["mgm", "-c", "127.0.0.1:1", "-e", line])
    assert (status, out) == (2, "")
    assert err.startswith("ndbtop: error: Node 1 is named twice") and err.count("\n") == 1


def test_a_node_id_of_thousands_of_digits_is_named_short() -> None:
    with pytest.raises(MgmUsageError) as caught:
        parse("1" * 5000 + " 2 RESTART")
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize(("line", "rest"), [
    ("EXIT SINGLE USER MODE now", "'now' after EXIT SINGLE USER MODE"),
    ("2 REPORT MEMORY extra", "'extra' after 2 REPORT MEMORY"),
    ("ALL REPORT BACKUPSTATUS 3", "'3' after ALL REPORT BACKUPSTATUS"),
    ("CLUSTERLOG INFO ON", "'ON' after CLUSTERLOG INFO"),
])
def test_words_after_a_complete_command_are_refused(line: str, rest: str) -> None:
    with pytest.raises(MgmUsageError, match=rf"Unexpected {rest}: nothing follows it"):
        parse(line)
    complete = line.rsplit(" ", 1)[0]
    assert parse(complete) is not None


def test_the_complete_commands_alone_still_run() -> None:
    assert parse("exit single user mode;") == Change((ExitSingleUser(),))
