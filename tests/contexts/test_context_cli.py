"""``--context`` on the command line: the context fills what the line does not give, its
read_only and production marks hold, the audit log names it, ``ndbtop contexts``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli.context_args import apply_context, context_read_only
from ndbtop.cli.parser import build_parser
from ndbtop.cli.sources import read_only_origin
from ndbtop.errors import UsageError
from tests.contexts.conftest import Run


def parsed(*argv: str, env: dict[str, str] | None = None) -> Any:
    args = build_parser().parse_args(list(argv))
    apply_context(args, env or {})
    return args


PROD = """\
[prod]
connectstring = "mgm1.prod:1186"
mysql_host = "sql1.prod"
mysql_port = 3307
mysql_user = "monitor"
ssh_user = "ndb"
production = true

[dr]
connectstring = "mgm1.dr:1186"
no_sql = true
read_only = true
"""


def test_the_context_fills_the_options_the_line_does_not_give(clusters_file) -> None:  # type: ignore[no-untyped-def]
    clusters_file(PROD)
    args = parsed("check", "--context", "prod")
    assert (args.connectstring, args.mysql_host, args.mysql_port, args.mysql_user) == (
        "mgm1.prod:1186", "sql1.prod", 3307, "monitor")
    assert args.ssh is True and args.ssh_user == "ndb"
    assert args.context_info.name == "prod"
    # The command line wins, before or after the command.
    args = parsed("--mysql-user", "me", "check", "--context", "prod", "-c", "other:1186")
    assert (args.connectstring, args.mysql_user, args.mysql_host) == (
        "other:1186", "me", "sql1.prod")
    # --no-sql on the line drops the context's SQL node; a SQL option drops its no_sql.
    args = parsed("check", "--context", "prod", "--no-sql")
    assert args.no_sql is True and args.mysql_host is None
    args = parsed("check", "--context", "dr", "--mysql-host", "sql9")
    assert args.no_sql is False and args.mysql_host == "sql9"
    # A command that takes no SQL node takes only what it uses.
    args = parsed("wait", "--context", "prod")
    assert args.connectstring == "mgm1.prod:1186" and not hasattr(args, "mysql_host")


def test_ndbtop_context_names_the_context_when_the_option_does_not(clusters_file) -> None:  # type: ignore[no-untyped-def]
    clusters_file(PROD)
    assert parsed("config", env={"NDBTOP_CONTEXT": "dr"}).connectstring == "mgm1.dr:1186"
    args = parsed("config", "--context", "prod", env={"NDBTOP_CONTEXT": "dr"})
    assert args.connectstring == "mgm1.prod:1186"
    assert parsed("config", env={}).context_info is None


@pytest.mark.parametrize("command", ["", "wait", "rolling-restart", "mgm", "record",
                                     "report", "export", "check", "config"])
def test_every_command_that_reaches_a_cluster_takes_context(command: str) -> None:
    args = build_parser().parse_args([*([command] if command else []), "--context", "x",
                                      *(["f.ndbrec"] if command == "record" else []),
                                      *(["--bundle", "b.tgz"] if command == "report" else [])])
    assert args.context == "x"


def test_an_unknown_context_is_one_line_and_exit_2(run: Run, clusters_file) -> None:  # type: ignore[no-untyped-def]
    clusters_file(PROD)
    status, out, err = run("wait", "--context", "qa")
    assert status == 2 and out == ""
    assert err.startswith("ndbtop: error: no context 'qa' in ") and err.count("\n") == 1
    assert "(it has: prod, dr)" in err


def test_a_read_only_context_disables_actions_and_a_flag_alone_cannot_lift_it(
        clusters_file, monkeypatch: pytest.MonkeyPatch, run: Run) -> None:  # type: ignore[no-untyped-def]
    path = clusters_file(PROD)
    args = parsed("mgm", "--context", "dr")
    assert read_only_origin(args) == f"read_only of context dr ({path}, line 12)"
    # --read-write is typed at a terminal, never given by a script.
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    args = parsed("mgm", "--context", "dr", "--read-write")
    with pytest.raises(UsageError, match="its phrase is typed at a terminal"):
        context_read_only(args)
    status, _, err = run("mgm", "--context", "dr", "--read-write", "-e", "2 RESTART")
    assert status == 2 and "typed at a terminal" in err
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    with pytest.raises(UsageError, match="'allow actions on dr' was not typed"):
        context_read_only(args, ask=lambda prompt: "yes")
    assert context_read_only(args, ask=lambda prompt: "allow actions on dr") is None
    # Not on a context that is not read_only, nor without a context.
    with pytest.raises(UsageError, match="context prod is not read_only"):
        context_read_only(parsed("mgm", "--context", "prod", "--read-write"))
    with pytest.raises(UsageError, match="name the context"):
        parsed("mgm", "--read-write")


def test_a_production_context_wants_its_name_typed_and_the_audit_log_records_it(
        run: Run, threaded_sim: Any, clusters_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sim = threaded_sim("threads")
    clusters_file(PROD.replace("mgm1.prod:1186", sim.connectstring))
    audit = tmp_path / "audit.log"
    status, out, _ = run("mgm", "--context", "prod", "-e", "2 RESTART", "--dry-run")
    assert status == 1
    assert "confirm by typing: restart node 2 on prod" in out
    assert "verdict: allowed once 'restart node 2 on prod' is typed" in out
    # --yes never stands for the phrase; a wrong phrase is refused; nothing is sent.
    status, _, err = run("mgm", "--context", "prod", "-e", "2 RESTART", "--yes",
                         "--audit-log", str(audit))
    assert status == 1 and "it needs 'restart node 2 on prod' typed" in err
    status, _, err = run("mgm", "--context", "prod", "-e", "2 RESTART", "--confirm", "2",
                         "--audit-log", str(audit))
    assert status == 1 and "--confirm '2' is not 'restart node 2 on prod'" in err
    assert not audit.exists()
    status, out, _ = run("mgm", "--context", "prod", "-e", "2 RESTART", "--confirm",
                         "restart node 2 on prod", "--audit-log", str(audit))
    assert status == 0 and "2 RESTART: Ok" in out
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [r["event"] for r in records] == ["sent", "reply"]
    assert {r["context"] for r in records} == {"prod"}
    assert records[0]["confirmed_with"] == "restart node 2 on prod"


def test_a_rolling_restart_of_a_production_context_wants_its_phrase(
        run: Run, threaded_sim: Any, clusters_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    sim = threaded_sim("threads")
    clusters_file(PROD.replace("mgm1.prod:1186", sim.connectstring))
    status, out, _ = run("rolling-restart", "--context", "prod", "--dry-run")
    assert status == 1, "a dry run says it would wait for the phrase"
    assert "to confirm, type: rolling restart on prod (scripts: --confirm" in out
    assert "allowed once 'rolling restart on prod' is typed (--confirm)" in out
    status, out, _ = run("rolling-restart", "--context", "prod", "--dry-run", "--confirm",
                         "rolling restart on prod")
    assert status == 0
    audit = tmp_path / "audit.log"
    status, _, err = run("rolling-restart", "--context", "prod", "--yes", "--audit-log",
                         str(audit))
    assert status == 1
    assert ("context prod is production: confirm with --confirm 'rolling restart on prod' "
            "(--yes never skips it)") in err
    assert not audit.exists()


def test_the_phrases_of_a_production_context() -> None:
    from ndbtop.actions.commands import RestartNode, StopNode
    from ndbtop.actions.production import production_phrase, rolling_phrase

    assert production_phrase(RestartNode((3,)), None, "prod") == "restart node 3 on prod"
    assert production_phrase(RestartNode((3,), initial=True), "3", "prod") == (
        "restart node 3 -i on prod")
    assert production_phrase(StopNode((2, 4), abort=True), None, "p") == "stop nodes 2 4 -a on p"
    assert production_phrase(RestartNode((3,), force=True), "restart the whole cluster",
                             "prod") == "restart the whole cluster on prod"
    assert rolling_phrase(None, "prod") == "rolling restart on prod"
    assert rolling_phrase("abort transactions", "prod") == "abort transactions on prod"
    assert rolling_phrase("abort transactions", None) == "abort transactions"
    # The plan carries it: rolling-restart, its --dry-run and JSON, and W all read it.
    from ndbtop.ops.rolling_plan import RollingPlan
    from ndbtop.tui.screens.rolling_plan import confirm_phrase

    assert RollingPlan(((2,), (3,))).phrase is None
    assert RollingPlan(((2,), (3,)), production="prod").phrase == "rolling restart on prod"
    assert RollingPlan(((2, 4),), abort=True, production="prod").phrase == (
        "abort transactions on prod")
    assert confirm_phrase(RollingPlan(((2,),), initial=True, production="prod")) == (
        "initial and rolling restart on prod")


def test_contexts_lists_each_context_and_whether_it_answers_now(
        run: Run, threaded_sim: Any, clusters_file) -> None:  # type: ignore[no-untyped-def]
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    sim = threaded_sim("threads")
    path = clusters_file(PROD.replace("mgm1.prod:1186", sim.connectstring).replace(
        "mgm1.dr:1186", f"127.0.0.1:{closed}") + '[x]\nconnectstring = "h:99999"\n')
    status, out, err = run("contexts")
    assert status == 3 and err == ""
    lines = out.splitlines()
    assert lines[0] == str(path)
    assert lines[1].split() == ["CONTEXT", "MANAGEMENT", "SERVERS", "FLAGS", "ANSWERS", "NOW"]
    prod = next(line for line in lines if line.startswith("prod "))
    assert "production" in prod
    assert prod.endswith(f"yes: {sim.connectstring}, NDB 8.4.3, 2/2 data nodes started")
    dr = next(line for line in lines if line.startswith("dr "))
    assert "read-only" in dr and dr.endswith(f"no: 127.0.0.1:{closed}: connection refused")
    bad = next(line for line in lines if line.startswith("x "))
    assert "no: " in bad and "99999" in bad


def test_contexts_without_a_file_says_where_it_looked(run: Run) -> None:
    status, out, err = run("contexts")
    assert status == 2 and out == ""
    assert "no contexts: " in err and "clusters.toml does not exist" in err
