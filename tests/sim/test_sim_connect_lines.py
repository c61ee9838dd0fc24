"""The commands ``ndbtop sim`` offers under ``connect with:`` are accepted by the commands
they name: the SQL-node options go to the live view, never to ``wait`` or ``mgm``."""

from __future__ import annotations

import shlex

import pytest

from ndbtop.cli.parser import build_parser
from ndbtop.cli.sim import connect_lines


@pytest.mark.parametrize(("sql_port", "replica"), [(3306, None), (3306, 3307), (None, None)])
def test_every_offered_command_parses(sql_port: int | None, replica: int | None) -> None:
    lines = connect_lines("127.0.0.1", "127.0.0.1:1186", sql_port, replica)
    offered = [shlex.split(line, comments=True) for line in lines if line.startswith("ndbtop")]
    assert [words[:2] for words in offered] == [["ndbtop", "-c"], ["ndbtop", "wait"]]
    for words in offered:
        build_parser().parse_args(words[1:])  # a refused option exits 2
    # The same options the live view takes are refused by wait and mgm, which ask the
    # management server only: the line for them carries none of them.
    for command in ("wait", "mgm"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, *offered[0][1:]]
                                      if sql_port is not None else [command, "--mysql-host", "h"])
        build_parser().parse_args([command, *offered[1][2:]])
    assert ("mysql -h 127.0.0.1 -P 3306 -u root ndbinfo" in lines) == (sql_port is not None)
