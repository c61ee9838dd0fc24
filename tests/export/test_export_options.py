"""Every option ``ndbtop export --help`` shows reaches the exporter's sources, or is refused
with one line and status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndbtop.cli import main
from ndbtop.cli.export import export_hub
from ndbtop.cli.parser import OPTIONS, build_parser
from ndbtop.collect.hub import Hub
from ndbtop.errors import UsageError
from ndbtop.host.remote import SshOptions


def hub_of(argv: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Hub:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("MYSQL_PWD", raising=False)
    monkeypatch.delenv("NDB_CONNECTSTRING", raising=False)
    return export_hub(build_parser().parse_args(["export", *argv]))


def test_every_export_option_is_one_this_file_checks() -> None:
    shown = {o.name for o in OPTIONS if "export" in o.commands}
    assert shown == {
        "--ndb-connectstring", "--ndb-tls-search-path", "--ndb-mgm-tls", "--no-sql",
        "--mysql-host", "--mysql-port", "--mysql-user", "--mysql-password", "--mysql-socket",
        "--defaults-file", "--ssl-ca", "--ssl-cert", "--ssl-key", "--no-host", "--ssh",
        "--ssh-config", "--ssh-user", "--ssh-option", "--interval", "--debug",
        "--backup-status-interval", "--listen", "--context", "--contexts", "--login-path",
        "--defaults-group-suffix", "--replica-mysql-host", "--replica-mysql-port",
        "--replication-lag-threshold",
    }, "a new export option: check here that it works"


def test_the_replica_options_reach_the_hub_read_at_every_refresh(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hub = hub_of(["-c", "127.0.0.1:1", "--mysql-host", "db1", "--mysql-user", "mon",
                  "--replica-mysql-host", "dr1,dr2:3311", "--replica-mysql-port", "3310",
                  "--replication-lag-threshold", "45", "--interval", "2"], monkeypatch, tmp_path)
    replication = hub.replication
    assert replication is not None
    assert [(s.options.target, s.side) for s in replication.setup.endpoints] == [
        ("db1:3306", "this cluster"), ("dr1:3310", "replica"), ("dr2:3311", "replica")]
    assert replication.setup.lag_threshold_s == 45.0
    # The exporter serves current figures: replication is read at every refresh.
    assert replication.every == 2.0


def test_the_context_and_the_sql_groups_reach_the_hub(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--context fills the exporter's options (--contexts: tests/export/test_export_contexts.py);
    --defaults-group-suffix and --login-path choose where the password is read."""
    (tmp_path / ".my.cnf").write_text("[client_prod]\nuser=exporter\npassword=pw\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    hub = hub_of(["-c", "127.0.0.1:1", "--mysql-host", "sql1", "--defaults-group-suffix",
                  "_prod"], monkeypatch, tmp_path)
    assert hub.sql is not None
    options = hub.sql.reader.options  # type: ignore[attr-defined]
    assert (options.user, options.password) == ("exporter", "pw")
    with pytest.raises(UsageError, match="--login-path dr: no login path file"):
        hub_of(["-c", "127.0.0.1:1", "--mysql-host", "sql1", "--login-path", "dr"],
               monkeypatch, tmp_path)


def test_ssh_reads_every_data_node_host_with_the_options_given(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n")
    hub = hub_of(["-c", "127.0.0.1:1", "--no-sql", "--ssh", "--ssh-config", str(config),
                  "--ssh-user", "ndb", "--ssh-option", "ProxyJump=bastion", "--ssh-option",
                  "ConnectTimeout=4"], monkeypatch, tmp_path)
    assert hub.hosts.ssh == SshOptions(config=str(config), user="ndb",
                                       options=("ProxyJump=bastion", "ConnectTimeout=4"))
    assert hub.hosts.ssh.connect_timeout == 4
    assert hub.host is not None
    assert hub_of(["-c", "127.0.0.1:1", "--no-sql"], monkeypatch, tmp_path).hosts.ssh is None


def test_intervals_sources_and_connect_options_reach_the_hub(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    tls = tmp_path / "tls"
    tls.mkdir()
    hub = hub_of(["-c", "127.0.0.1:1", "--ndb-tls-search-path", str(tls), "--ndb-mgm-tls",
                  "strict", "--interval", "2.5", "--backup-status-interval", "3",
                  "--no-host", "--mysql-host", "127.0.0.1", "--mysql-port", "3307",
                  "--mysql-user", "monitor"], monkeypatch, tmp_path)
    assert hub.interval == 2.5 and hub.mgm.interval == 2.5
    assert hub.backup_reporter.every == 3
    assert hub.connectstring.tls is not None
    assert (hub.connectstring.tls.search_path, hub.connectstring.tls.mode) == (str(tls), "strict")
    assert [str(a) for a in hub.connectstring.addresses] == ["127.0.0.1:1"]
    assert hub.host is None
    assert hub.sql is not None and hub.sql.status.target == "monitor@127.0.0.1:3307"
    defaults = hub_of(["-c", "127.0.0.1:1", "--no-sql"], monkeypatch, tmp_path)
    assert (defaults.interval, defaults.backup_reporter.every) == (1.0, 10.0)
    assert defaults.sql is None and defaults.host is not None


def test_defaults_file_and_socket_reach_the_sql_node(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cnf = tmp_path / "export.cnf"
    cnf.write_text("[client]\nuser=exporter\nhost=127.0.0.9\nport=3400\n")
    hub = hub_of(["-c", "127.0.0.1:1", "--defaults-file", str(cnf)], monkeypatch, tmp_path)
    assert hub.sql is not None and hub.sql.status.target == "exporter@127.0.0.9:3400"
    hub = hub_of(["-c", "127.0.0.1:1", "--mysql-socket", str(tmp_path / "sock"),
                  "--mysql-user", "m"], monkeypatch, tmp_path)
    assert hub.sql is not None and hub.sql.status.target == f"m@localhost via {tmp_path}/sock"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ssh-user", "x"], "--ssh-user needs --ssh"),
        (["--ssh-option", "ProxyJump=b"], "--ssh-option needs --ssh"),
        (["--ssh", "--ssh-option=-oProxyCommand=x"], "--ssh-option '-oProxyCommand=x' refused"),
        (["--ssh", "--ssh-config", "/nonexistent/cfg"], "--ssh-config /nonexistent/cfg: no such"),
        (["--backup-status-interval", "-1"], "out of range"),
        (["--once"], "--once does not apply to export"),
        (["--read-only"], "--read-only does not apply to export"),
    ],
)
def test_what_cannot_apply_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    try:
        status = main(["export", "-c", "127.0.0.1:1", "--no-sql", "--listen", "127.0.0.1:0",
                       *argv])
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
