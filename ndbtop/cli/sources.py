"""Turning command-line options into the hub's sources (connect string, SQL node, host)."""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ndbtop.cli.parser import PROMPT, build_parser
from ndbtop.collect.host import HostReader
from ndbtop.collect.sql import NdbinfoReader
from ndbtop.errors import UsageError
from ndbtop.host.remote import SshOptions, refuse_option_values
from ndbtop.mgm.connectstring import ConnectString, resolve_connectstring
from ndbtop.mgm.tls import DEFAULT_SEARCH_PATH, TlsOptions
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.replication.setup import EndpointSpec, ReplicationSetup

if TYPE_CHECKING:
    from ndbtop.contexts import Context


def cluster_connectstring(args: argparse.Namespace) -> ConnectString:
    """The management servers to use, with how TLS to them is set up."""
    connectstring = resolve_connectstring(args.connectstring)
    search_path = getattr(args, "ndb_tls_search_path", None)
    tls = TlsOptions(
        DEFAULT_SEARCH_PATH if search_path is None else search_path,
        getattr(args, "ndb_mgm_tls", None) or "relaxed",
    )
    return replace(connectstring, tls=tls)


def mysql_cli_values(args: argparse.Namespace) -> dict[str, str | None]:
    """The SQL-node options given on the command line (asking for the password if ``-p``)."""
    password = args.mysql_password
    if password is PROMPT:
        if not sys.stdin.isatty():
            raise UsageError(
                "-p needs a terminal to ask for the password (use MYSQL_PWD or an option file)"
            )
        password = getpass.getpass("Enter password: ")
        # Asked once: the replication reader takes the same options.
        args.mysql_password = password
        args._password_warned = True
    elif password is not None and not getattr(args, "_password_warned", False):
        args._password_warned = True
        sys.stderr.write(
            "ndbtop: [Warning] Using a password on the command line interface can be insecure.\n"
        )
    return {
        "host": args.mysql_host,
        "port": None if args.mysql_port is None else str(args.mysql_port),
        "user": args.mysql_user,
        "password": password,
        "socket": args.mysql_socket,
        "ssl-ca": args.ssl_ca,
        "ssl-cert": args.ssl_cert,
        "ssl-key": args.ssl_key,
    }


def context_password(args: argparse.Namespace) -> tuple[str, str] | None:
    """The password the context's ``password_command`` prints, with where it came from,
    unless the command line gave one (``-p``)."""
    context = getattr(args, "context_info", None)
    if context is None or context.password_command is None or args.mysql_password is not None:
        return None
    from ndbtop.contexts.password import run_password_command

    return run_password_command(context), f"password_command of context {context.name}"


def sql_options(args: argparse.Namespace) -> MysqlOptions:
    """How to reach and log in to the SQL node(s) the options (and the context) name,
    worked out once (a password asked for or a password command run once)."""
    cached = getattr(args, "_sql_options", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    from ndbtop.ndbinfo.options import resolve_mysql_options

    defaults = Path(args.defaults_file) if args.defaults_file else None
    options = resolve_mysql_options(
        mysql_cli_values(args), os.environ, defaults, Path.home(),
        group_suffix=getattr(args, "defaults_group_suffix", None),
        login_path=getattr(args, "login_path", None), password=context_password(args))
    args._sql_options = options
    return options


def ndbinfo_reader(args: argparse.Namespace) -> tuple[NdbinfoReader, str] | None:
    """The ndbinfo reader the options describe, or None with ``--no-sql``."""
    if args.no_sql:
        return None
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.failover import failover_reader, is_host_list
    from ndbtop.ndbinfo.options import options_summary

    options = sql_options(args)
    make = partial(NdbinfoCollector, background_transactions=True)
    if is_host_list(options.host):
        if args.mysql_socket:
            raise UsageError("--mysql-socket does not apply to several SQL nodes (--mysql-host "
                             f"{options.host}): they are reached over TCP")
        return failover_reader(options, make)
    return make(options), options_summary(options)


def replication_setup(args: argparse.Namespace) -> ReplicationSetup | None:
    """The SQL nodes to read for replication: this cluster's (``--mysql-host``, unless
    ``auto``) and those of the clusters it replicates to or from: ``--replica-mysql-host``
    (with this cluster's account and TLS), else the contexts its context's
    ``replicates_to`` names and those naming it (each with its own); None when none is
    named."""
    hosts = getattr(args, "replica_mysql_host", None)
    context = getattr(args, "context_info", None)
    peers = [] if hosts or context is None or args.no_sql else context_peers(args, context)
    if not hosts and not peers:
        if "replication_lag_threshold" in getattr(args, "given", ()):
            raise UsageError("--replication-lag-threshold: no replica to watch "
                             "(--replica-mysql-host, or a context's replicates_to)")
        return None
    from ndbtop.ndbinfo.options import DEFAULT_PORT
    from ndbtop.replication.setup import REPLICA, THIS_CLUSTER

    specs: dict[str, EndpointSpec] = {}
    if not args.no_sql:
        _add_endpoints(specs, sql_options(args), context.name if context else THIS_CLUSTER)
    if hosts:
        from ndbtop.ndbinfo.failover import candidate_options, parse_host_list

        port = getattr(args, "replica_mysql_port", None) or DEFAULT_PORT
        tcp = replace(sql_options(args), port=port, socket=None)
        for options in candidate_options(tcp, parse_host_list(hosts)):
            specs.setdefault(options.target, EndpointSpec(options, REPLICA))
    for name, other in peers:
        _add_endpoints(specs, sql_options(other), name)
    return ReplicationSetup(tuple(specs.values()), args.replication_lag_threshold)


def _add_endpoints(specs: dict[str, EndpointSpec], base: MysqlOptions, side: str) -> None:
    """The SQL nodes ``base`` names (one, or a list; ``auto`` names none here)."""
    from ndbtop.ndbinfo.failover import AUTO, candidate_options, is_host_list, parse_host_list

    if base.host == AUTO:
        return
    listed = ((base,) if not is_host_list(base.host)
              else candidate_options(base, parse_host_list(base.host)))
    for options in listed:
        specs.setdefault(options.target, EndpointSpec(options, side))


def context_peers(args: argparse.Namespace, context: Context
                  ) -> list[tuple[str, argparse.Namespace]]:
    """The contexts this one replicates to (``replicates_to``) and from (those naming it),
    each with its own options, as ``--context NAME`` gives them; one with ``no_sql`` has no
    SQL node to read."""
    from ndbtop.contexts import load_contexts

    contexts = load_contexts(context.path)
    names = [*context.replicates_to, *(c.name for c in contexts.sources_of(context.name))]
    out = []
    for name in dict.fromkeys(names):
        other = context_namespace(name, args)
        if not other.no_sql:
            out.append((name, other))
    return out


def ssh_options(args: argparse.Namespace) -> SshOptions | None:
    """The ssh options of ``--ssh`` (the ``--ssh-*`` options without it are refused as a
    :class:`~ndbtop.cli.clashes.Clash`)."""
    if not args.ssh:
        return None
    config, user, options = args.ssh_config, args.ssh_user, tuple(args.ssh_option)
    if shutil.which("ssh") is None:
        raise UsageError("--ssh needs the OpenSSH client: no 'ssh' in PATH")
    try:
        refuse_option_values([v for v in (config, user) if v], "--ssh-config/--ssh-user value")
        refuse_option_values(options, "--ssh-option")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if config is not None and not Path(config).is_file():
        raise UsageError(f"--ssh-config {config}: no such file")
    return SshOptions(config=config, user=user, options=options)


def host_reader(args: argparse.Namespace) -> HostReader | None:
    """This host's collector, unless ``--no-host``."""
    if args.no_host:
        return None
    from ndbtop.host.collector import HostCollector

    return HostCollector()


_TRUE = ("", "1", "on", "true", "yes")
_FALSE = ("0", "off", "false", "no")


def read_only_origin(args: argparse.Namespace, home: Path | None = None) -> str | None:
    """Why actions are disabled: ``--read-only``, or the option file that sets ``read_only``.

    ``read_only`` (or ``read-only``) in the ``[ndbtop]`` group of ``~/.my.cnf`` or of
    ``--defaults-file``, bare or ``= 1/on/true/yes``, disables actions as ``--read-only``
    does; the command line cannot turn it back on. None when actions are allowed.
    """
    if args.read_only:
        return "--read-only"
    from ndbtop.cli.context_args import context_read_only
    from ndbtop.ndbinfo.options import read_option_file

    context = context_read_only(args)
    if context is not None:
        return context

    given = getattr(args, "defaults_file", None)
    path = Path(given) if given else (home or Path.home()) / ".my.cnf"
    settings = read_option_file(path, ("ndbtop",), required=given is not None)["ndbtop"]
    setting = settings.get("read-only")
    if setting is None:
        return None
    value, origin = setting
    text = (value or "").strip().lower()
    if text in _TRUE:
        return f"read_only in {origin}"
    if text in _FALSE:
        return None
    raise UsageError(f"read_only {value!r} ({origin}) is not on or off")


KEPT = ("read_only", "audit_log", "no_color", "theme", "debug")
"""Options of ``fleet`` (and of the live view it came from) that a cluster opened from
the overview keeps."""


def context_namespace(name: str, base: argparse.Namespace, command: str | None = None,
                      kept: tuple[str, ...] = KEPT) -> argparse.Namespace:
    """The options of ``ndbtop [COMMAND] --context NAME`` with those of ``kept`` that
    ``base`` was given (the live view's: display and safety)."""
    from ndbtop.cli.context_args import apply_context

    words = ([command] if command else []) + ["--context", name]
    for option in kept:
        value = getattr(base, option, None)
        if value in (None, False) or option not in getattr(base, "given", ()):
            continue
        flag = "--" + option.replace("_", "-")
        words += [flag] if value is True else [flag, str(value)]
    args = build_parser().parse_args(words)
    apply_context(args)
    if hasattr(args, "read_only"):
        args.read_only_origin = read_only_origin(args)
        args.read_only = args.read_only_origin is not None
    return args
