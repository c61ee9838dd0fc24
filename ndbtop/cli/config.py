"""``ndbtop config``: the configuration the management server holds, in config.ini form.

``--diff FILE`` prints the differences from a config.ini to it, ``--diff-running`` those
from it to what each data node runs with (``ndbinfo.config_values``), as a unified diff;
both exit 1 when there are differences, 0 when there are none, as ``diff`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ndbtop.cli.exits import DONE, NOT_MET
from ndbtop.cli.sources import cluster_connectstring, ndbinfo_reader
from ndbtop.errors import SqlError, UsageError
from ndbtop.files import UnfitFile, read_limited
from ndbtop.mgm.client import MgmClient
from ndbtop.model.config_decode import config_and_raw_from_blob
from ndbtop.model.config_ini import diff_ini, diff_lines, diff_running, parse_ini
from ndbtop.model.config_raw import RawConfig, config_ini
from ndbtop.sanitise import laid_out, write_line

CONFIG_INI_LIMIT = 16 << 20
"""Largest config.ini read (a 255-node one is well under 1 MB)."""


def read_config_ini(path: str) -> str:
    """The text of a config.ini; a file that cannot be read is a usage error (one line)."""
    try:
        data = read_limited(Path(path), CONFIG_INI_LIMIT, "config.ini")
    except (OSError, UnfitFile) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"--diff: cannot read {path}: {reason}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"--diff: {path} is not a text file") from None


async def read_raw(args: argparse.Namespace) -> tuple[RawConfig, str, str]:
    """The configuration, the management server it was read from and the command used."""
    client = MgmClient(cluster_connectstring(args))
    try:
        address = str(await client.connect())
        _config, raw = config_and_raw_from_blob(await client.get_config_blob())
    finally:
        await client.close()
    return raw, address, client.config_command


def source_line(raw: RawConfig, address: str, command: str) -> str:
    """Names the generation, where it was read and with which command."""
    return (f"configuration generation {raw.generation}, read from the management server "
            f"{address} ({command or 'get config'})")


def run_config(args: argparse.Namespace) -> int:
    """Print the configuration, or a diff; see the module's docstring for the exit status."""
    if args.diff and args.diff_running:
        raise UsageError("--diff and --diff-running cannot be used together")
    if args.all_params and (args.diff or args.diff_running):
        raise UsageError("--all prints the configuration; a diff shows only differences")
    sections = parse_ini(read_config_ini(args.diff), args.diff) if args.diff else None
    reader = ndbinfo_reader(args) if args.diff_running else None
    if args.diff_running and reader is None:
        raise UsageError("--diff-running reads ndbinfo.config_values: it needs a SQL node "
                         "(not --no-sql)")
    raw, address, command = asyncio.run(read_raw(args))
    read_name = f"generation {raw.generation} from {address}"
    if sections is not None:
        diffs, unknown = diff_ini(sections, raw)
        lines = diff_lines(diffs, args.diff, read_name) if diffs else []
        lines += [f"# not compared, not a parameter ndbtop knows: {u}" for u in unknown]
        if lines:
            write_line(sys.stdout, laid_out(lines))
        return NOT_MET if diffs else DONE
    if reader is not None:
        collector, summary = reader
        try:
            collector.connect()
            sample = collector.sample()
            read_all = getattr(collector, "read_all_config_values", None)
            running = read_all() if read_all is not None else sample.config_values
        except SqlError as exc:
            raise SqlError(f"{summary}: {exc}") from None
        finally:
            collector.close()
        why = dict(sample.unavailable).get("config_values")
        if why is not None:
            raise SqlError(f"ndbinfo.config_values cannot be read: {why}")
        runs = {n.node_id: n.config_generation for n in sample.nodes}
        diffs = diff_running(raw, running)
        gens = ", ".join(f"{k} runs {v}" for k, v in sorted(runs.items()))
        lines = diff_lines(diffs, read_name, f"ndbinfo.config_values ({gens or 'no node'})")
        if diffs:
            write_line(sys.stdout, laid_out(lines))
        return NOT_MET if diffs else DONE
    header = [source_line(raw, address, command)]
    sys.stdout.write(config_ini(raw, every=args.all_params, header=header))
    return DONE
