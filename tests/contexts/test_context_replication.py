"""Which SQL nodes replication is read from: a context's own and those of the contexts it
replicates to (``replicates_to``) or from, each with its own account; or the command
line's ``--replica-mysql-host`` with this cluster's account."""

from __future__ import annotations

from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.cli.context_args import apply_context
from ndbtop.cli.parser import build_parser
from ndbtop.cli.sources import replication_setup

PAIR = """\
[prod]
connectstring = "mgm1.prod:1186"
mysql_host = "sql1.prod,sql2.prod:3307"
mysql_user = "monitor"
replicates_to = "dr"

[dr]
connectstring = "mgm1.dr:1186"
mysql_host = "sql1.dr"
mysql_user = "drmon"

[staging]
connectstring = "mgm.staging:1186"
mysql_host = "sql.staging"
"""


def parsed(*argv: str) -> Any:
    args = build_parser().parse_args(list(argv))
    apply_context(args, {})
    return args


def endpoints(args: Any) -> list[tuple[str, str, str]]:
    setup = replication_setup(args)
    assert setup is not None
    return [(e.options.target, e.side, e.options.user) for e in setup.endpoints]


def test_each_side_of_a_context_pair_reads_both(clusters_file) -> None:  # type: ignore[no-untyped-def]
    clusters_file(PAIR)
    assert endpoints(parsed("--context", "prod")) == [
        ("sql1.prod:3306", "prod", "monitor"), ("sql2.prod:3307", "prod", "monitor"),
        ("sql1.dr:3306", "dr", "drmon")]
    # Watched from the replica, the context naming it is the source side.
    assert endpoints(parsed("--context", "dr")) == [
        ("sql1.dr:3306", "dr", "drmon"), ("sql1.prod:3306", "prod", "monitor"),
        ("sql2.prod:3307", "prod", "monitor")]
    assert replication_setup(parsed("--context", "staging")) is None


def test_the_command_line_names_the_replica_with_this_clusters_account() -> None:
    args = parsed("--mysql-host", "db1,db2:3307", "--mysql-user", "mon",
                  "--replica-mysql-host", "dr1,dr2:3310", "--replica-mysql-port", "3308",
                  "--replication-lag-threshold", "30")
    assert endpoints(args) == [("db1:3306", "this cluster", "mon"),
                               ("db2:3307", "this cluster", "mon"),
                               ("dr1:3308", "replica", "mon"), ("dr2:3310", "replica", "mon")]
    setup = replication_setup(args)
    assert setup is not None and setup.lag_threshold_s == 30.0


@pytest.mark.parametrize(("argv", "error"), [
    (("--replica-mysql-port", "3307"), "--replica-mysql-port needs --replica-mysql-host"),
    (("--no-sql", "--replica-mysql-host", "dr1"),
     "--replica-mysql-host does not apply with --no-sql"),
    (("--replication-lag-threshold", "0"), "--replication-lag-threshold"),
])
def test_replication_options_that_cannot_apply_are_refused(
        argv: tuple[str, ...], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--once", "-c", "127.0.0.1:1", *argv])
    assert exc.value.code == 2
    assert error in capsys.readouterr().err


def test_a_lag_threshold_with_no_replica_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--once", "-c", "127.0.0.1:1", "--replication-lag-threshold", "30"])
    assert status == 2
    assert capsys.readouterr().err.strip() == (
        "ndbtop: error: --replication-lag-threshold: no replica to watch "
        "(--replica-mysql-host, or a context's replicates_to)")
