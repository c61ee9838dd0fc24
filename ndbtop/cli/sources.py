"""Turning command-line options into the hub's sources (connect string, SQL node, host)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from ndbtop.cli.parser import PROMPT
from ndbtop.collect.host import HostReader
from ndbtop.collect.sql import NdbinfoReader
from ndbtop.errors import UsageError


def mysql_cli_values(args: argparse.Namespace) -> dict[str, str | None]:
    """The SQL-node options given on the command line (asking for the password if ``-p``)."""
    password = args.mysql_password
    if password is PROMPT:
        if not sys.stdin.isatty():
            raise UsageError(
                "-p needs a terminal to ask for the password (use MYSQL_PWD or an option file)"
            )
        password = getpass.getpass("Enter password: ")
    elif password is not None:
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


def ndbinfo_reader(args: argparse.Namespace) -> tuple[NdbinfoReader, str] | None:
    """The ndbinfo reader the options describe, or None with ``--no-sql``."""
    if args.no_sql:
        return None
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import options_summary, resolve_mysql_options

    defaults = Path(args.defaults_file) if args.defaults_file else None
    options = resolve_mysql_options(mysql_cli_values(args), os.environ, defaults, Path.home())
    return NdbinfoCollector(options), options_summary(options)


def host_reader(args: argparse.Namespace) -> HostReader | None:
    """This host's collector, unless ``--no-host``."""
    if args.no_host:
        return None
    from ndbtop.host.collector import HostCollector

    return HostCollector()
