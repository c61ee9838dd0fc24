"""``ndbtop config``: the configuration in config.ini form, config.ini read as ndb_mgmd reads
it, and the diffs, from blobs written word by word (config_vectors.py, config-protocol.md §2)
and config.ini text as an operator writes it. Names and defaults are ConfigInfo.cpp's
(``m_ParamInfo``), ids mgmapi_config_parameters.h's."""

from __future__ import annotations

import asyncio
import tarfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from config_vectors import (
    DEFAULT_API,
    DEFAULT_MGM,
    DEFAULT_SHM,
    DEFAULT_TCP,
    INT,
    STR,
    SYSTEM,
    TWO_GROUPS,
    V1_TWO_NODES,
    blob,
    chars,
    config_reply,
)

from ndbtop.cli import main
from ndbtop.mgm.packed_config import unpack
from ndbtop.model.config_decode import raw_config
from ndbtop.model.config_ini import (
    ConfigIniError,
    diff_ini,
    diff_lines,
    diff_running,
    normalised,
    parse_ini,
)
from ndbtop.model.config_params import Param
from ndbtop.model.config_raw import RawConfig, config_ini
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.scenarios.maintenance import CONFIG_CHANGE_AT

Scripted = Callable[..., Awaitable[Any]]


def raw_of(data: bytes) -> RawConfig:
    return raw_config(unpack(data))


def sections_of(text: str) -> list[list[str]]:
    """The printed config.ini as its sections' lines."""
    return [block.splitlines() for block in text.split("\n\n") if block.startswith("[")]


def test_every_section_with_the_parameters_that_differ_from_configinfo() -> None:
    text = config_ini(raw_of(TWO_GROUPS), header=["generation 7"])
    assert text.startswith("# generation 7\n")
    blocks = sections_of(text)
    assert blocks[0] == ["[system]", "ConfigGenerationNumber=7", "Name=c1"]
    assert blocks[1] == ["[ndb_mgmd]", "NodeId=1"]      # PortNumber 1186 is the default
    # The default section's values hold for every data node (config-protocol.md §2);
    # NoOfReplicas=2 is ConfigInfo's default, DataMemory 1 GiB is not (98M).
    assert blocks[2] == ["[ndbd]", "NodeId=2", "HostName=10.0.0.2", "DataDir=/d",
                         "DataMemory=1G", "Nodegroup=0"]
    assert blocks[4][:3] == ["[ndbd]", "NodeId=4", "HostName=10.0.0.4"]
    assert "Nodegroup=1" in blocks[4]
    assert blocks[6] == ["[api]", "NodeId=50"]
    assert len(blocks) == 7


def test_all_prints_the_defaults_too_under_their_own_comment() -> None:
    blocks = sections_of(config_ini(raw_of(TWO_GROUPS), every=True))
    data = blocks[2]
    mark = data.index("# at ConfigInfo's default:")
    assert "DataMemory=1G" in data[:mark]
    assert {"NoOfReplicas=2", "MaxNoOfConcurrentOperations=32K", "StopOnError=true",
            "Arbitration=Default", "NoOfFragmentLogParts=4"} <= set(data[mark:])
    assert "PortNumber=1186" in blocks[1] and "ArbitrationRank=1" in blocks[1]


def test_unknown_ids_booleans_enums_and_line_breaks() -> None:
    data_2 = [0, 7, 1, INT | 3, 2,
              INT | 142, 2,                       # Arbitration = WaitExternal (typelib 2)
              INT | 168, 1,                       # ODirect = true
              INT | 9999, 5,                      # no parameter ndbtop names
              STR | 5, 4, chars(b"a\nb\0"),       # a HostName with a line break
              INT | 9998, 3,                      # no name here either
              INT | 630, 3]                       # CFG_DB_FREE_PCT: MinFreePct
    data_2[0] = len(data_2)
    default_data = [3, 0, 1]
    sections = [default_data, DEFAULT_API, DEFAULT_MGM, DEFAULT_TCP, DEFAULT_SHM, SYSTEM, data_2]
    block = sections_of(config_ini(raw_of(blob(sections, (1, 0, 0, 0)))))[1]
    assert "Arbitration=WaitExternal" in block and "ODirect=true" in block
    assert "HostName=a\\nb" in block
    tail = block[block.index("# parameter ids ndbtop cannot name (id=value):"):]
    assert tail[1:] == ["#9998=3", "#9999=5"]
    assert "MinFreePct=3" in block


CONFIG_INI = """\
# written by hand
[NDBD DEFAULT]
noofreplicas = 2
DataMemory: 1G
DataDir=/d
[ndb_mgmd]
NodeId=1
[ndbd]
NodeId=2
HostName=10.0.0.2
[DB]
HostName=10.0.0.3
[ndbd]
NodeId=4
HostName=10.0.0.4
NodeGroup=1
[ndbd]
HostName=10.0.0.5
Nodegroup=1
; a comment
[tcp default]
SendBufferMemory=4M
[mysqld]
NodeId=50
"""


def test_config_ini_is_read_as_ndb_mgmd_reads_it() -> None:
    sections = parse_ini(CONFIG_INI, "c.ini")
    ids = [(s.kind, s.node_id) for s in sections]
    # transformNode: a section without NodeId takes the one after the last given.
    assert ids == [(3, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 50)]
    third = sections[2]
    assert third.values["datamemory"][0] == "1G" and third.values["hostname"][0] == "10.0.0.3"


def test_a_config_ini_matching_the_configuration_has_no_difference() -> None:
    diffs, unknown = diff_ini(parse_ini(CONFIG_INI, "c.ini"), raw_of(TWO_GROUPS))
    assert diffs == [] and unknown == []


def test_differences_are_a_unified_diff_per_section() -> None:
    text = (CONFIG_INI.replace("DataMemory: 1G", "").replace("HostName=10.0.0.5", "HostName=h5")
            .replace("NodeId=50", "NodeId=51\nFooBar=1"))
    diffs, unknown = diff_ini(parse_ini(text, "c.ini"), raw_of(TWO_GROUPS))
    lines = diff_lines(diffs, "c.ini", "generation 7")
    assert lines[:2] == ["--- c.ini", "+++ generation 7"]
    assert lines[2:6] == ["@@ [ndbd] NodeId=2 @@", "-# DataMemory not set: ConfigInfo's default",
                          "+DataMemory=1G", "@@ [ndbd] NodeId=3 @@"]
    assert lines[lines.index(
        "@@ [ndbd] NodeId=5 @@") + 1:][:2] == ["-HostName=h5", "+HostName=10.0.0.5"]
    assert lines[-2:] == ["+[api] NodeId=50", "-[api] NodeId=51"]
    assert unknown == ["[api] NodeId=51 foobar"]


@pytest.mark.parametrize(("text", "message"), [
    ("DataMemory=1G\n", "c.ini:1: DataMemory before any section"),
    ("[ndbd\n", "c.ini:1: a section header must end with ]"),
    ("[ndbd]\nNodeId=1\n[api]\nNodeId=1\n", "c.ini:4: NodeId 1 is used twice"),
    ("[quorum]\n", "c.ini:1: [quorum] is not a section ndb_mgmd knows"),
    ("[ndbd]\njust words\n", "c.ini:2: not a name=value line or a section"),
    ("[ndbd]\nNodeId=300\n", "c.ini:2: NodeId '300' is not a node id (1-255)"),
    # InitConfigFileParser::storeNameValuePair refuses the file on an illegal value.
    ("[ndbd default]\nDataMemory=lots\n[ndbd]\nNodeId=2\n",
     "c.ini:2: DataMemory=lots: not a value DataMemory takes (a whole number, with k, K, M "
     "or G)"),
    ("[ndbd]\nNodeId=2\nRealtimeScheduler=maybe\n",
     "c.ini:3: RealtimeScheduler=maybe: not a value RealtimeScheduler takes (Y, N, true, "
     "false, 1 or 0)"),
])
def test_a_config_ini_that_cannot_be_read_says_where(text: str, message: str) -> None:
    with pytest.raises(ConfigIniError) as err:
        parse_ini(text, "c.ini")
    assert str(err.value) == message


def test_diff_running_names_the_values_a_node_runs_with() -> None:
    # ndbinfo.config_values gives every value as text (ndbinfo.md, config_values).
    running = [(2, 112, "1073741824"), (3, 112, "536870912"), (3, 101, "2"), (3, 9999, "x")]
    diffs = diff_running(raw_of(TWO_GROUPS), running)
    assert diff_lines(diffs, "generation 7", "running") == [
        "--- generation 7", "+++ running", "@@ [ndbd] NodeId=3 @@",
        "-DataMemory=1G", "+DataMemory=512M"]


async def test_cli_prints_the_configuration_and_diffs(
    scripted: Scripted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await scripted({"get config_v2": config_reply(TWO_GROUPS)})
    cs = server.connectstring
    assert await asyncio.to_thread(main, ["config", "-c", cs]) == 0
    out = capsys.readouterr().out
    # The header names the command the configuration was read with (MgmClient falls back
    # to get config for a server before 8.0.18).
    assert out.startswith(f"# configuration generation 7, read from the management server "
                          f"{cs} (get config_v2)\n")
    assert "DataMemory=1G" in out and "NoOfReplicas" not in out
    assert await asyncio.to_thread(main, ["config", "-c", cs, "--all"]) == 0
    assert "NoOfReplicas=2" in capsys.readouterr().out
    good = tmp_path / "config.ini"
    good.write_text(CONFIG_INI)
    assert await asyncio.to_thread(main, ["config", "-c", cs, "--diff", str(good)]) == 0
    assert capsys.readouterr().out == ""
    good.write_text(CONFIG_INI.replace("1G", "2G"))
    assert await asyncio.to_thread(main, ["config", "-c", cs, "--diff", str(good)]) == 1
    assert "-DataMemory=2G\n+DataMemory=1G\n" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "status", "message"), [
    (["--diff", "{missing}"], 2, "ndbtop: error: --diff: cannot read {missing}: "
     "No such file or directory\n"),
    (["--diff", "{bad}"], 2, "ndbtop: error: {bad}:1: not a name=value line or a section\n"),
    (["--diff", "{bad}", "--diff-running"], 2,
     "ndbtop: error: --diff and --diff-running cannot be used together\n"),
    (["--diff-running", "--no-sql"], 2, "ndbtop: error: --diff-running reads "
     "ndbinfo.config_values: it needs a SQL node (not --no-sql)\n"),
])
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], status: int,
    message: str
) -> None:
    bad = tmp_path / "bad.ini"
    bad.write_text("junk\n")
    names = {"missing": str(tmp_path / "none.ini"), "bad": str(bad)}
    argv = [a.format(**names) for a in args]
    assert main(["config", "-c", "127.0.0.1:1", *argv]) == status
    assert capsys.readouterr().err == message.format(**names)


def test_cli_unreachable_management_server_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "-c", "127.0.0.1:1"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("ndbtop: error: ") and err.count("\n") == 1


async def test_a_server_before_8_0_18_is_named_as_read_with_get_config(
    scripted: Scripted, capsys: pytest.CaptureFixture[str]
) -> None:
    # A 7.6 server knows only get config (mgm-protocol.md; MgmClient.get_config_blob).
    version = (b"version\nid: 460300\nmajor: 7\nminor: 6\nbuild: 12\n"
               b"string: mysql-5.7.35 ndb-7.6.12\nmysql_major: 5\nmysql_minor: 7\n"
               b"mysql_build: 35\n\n")
    server = await scripted({"get version": version,
                             "get config": config_reply(V1_TWO_NODES, old_form=True)})
    assert await asyncio.to_thread(main, ["config", "-c", server.connectstring]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f"{server.connectstring} (get config)")
    assert "get config_v2" not in server.commands


async def test_the_bundle_holds_config_ini_naming_its_generation_and_source(
    start_sim: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    sim = await start_sim("threads")
    bundle = tmp_path / "b.tar.gz"
    code = await asyncio.to_thread(main, ["report", "--bundle", str(bundle), "-c",
                                          sim.connectstring, "--no-host", "--no-sql",
                                          "--events-seconds", "0"])
    assert code == 0
    with tarfile.open(bundle) as tar:
        member = tar.extractfile("ndbtop-bundle/config.ini")
        assert member is not None
        text = member.read().decode()
        manifest = tar.extractfile("ndbtop-bundle/MANIFEST.txt").read().decode()  # type: ignore[union-attr]
    first = text.splitlines()[0]
    assert first.startswith("# configuration generation ")
    assert first.endswith(f"read from the management server {sim.connectstring} "
                          "(get config_v2)")
    assert "[ndbd]\nNodeId=2\n" in text and "# at ConfigInfo's default:" in text
    assert "config.ini: the configuration the management server holds" in manifest
    assert "processes.txt: the connected API and SQL nodes" in manifest


def test_diff_running_against_the_simulated_nodes_on_an_older_generation(
    threaded_sim: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    # config-change: generation 5 raises DataMemory to 12G and DiskPageBufferMemory to 256M,
    # and only node 2 is restarted onto it; 3, 4 and 5 still run generation 4.
    cluster = build_scenario("config-change", ScenarioOptions(seed=1))
    cluster.advance(CONFIG_CHANGE_AT + 600)
    ts = threaded_sim(cluster, speed=1e-6, sql=True)
    argv = ["config", "-c", ts.connectstring, "--diff-running", "--mysql-host", "127.0.0.1",
            "--mysql-port", str(ts.sim.sql_port), "--mysql-user", "root"]
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("--- generation 5 from ")
    assert out[1].startswith("+++ ndbinfo.config_values (2 runs 5, 3 runs 4, 4 runs 4")
    assert "@@ [ndbd] NodeId=2 @@" not in out
    for node in (3, 4, 5):
        hunk = out[out.index(f"@@ [ndbd] NodeId={node} @@") + 1:][:4]
        assert hunk == ["-DataMemory=12G", "+DataMemory=8G",
                        "-DiskPageBufferMemory=256M", "+DiskPageBufferMemory=64M"]


@pytest.mark.parametrize(("text", "value"), [
    # InitConfigFileParser::convertStringToUint64: strtoll(s, &p, 0), then the first
    # character of the trimmed rest, k or K (10), M (20) or G (30), the rest ignored.
    ("64M", 64 << 20), ("2G", 2 << 30), ("512k", 512 << 10), ("512K", 512 << 10),
    ("0x10", 16), ("010", 8), ("2 G", 2 << 30), ("10Mfoo", 10 << 20), ("32768", 32768),
    ("1m", None), ("1g", None), ("lots", None), ("", None), ("0x", None), ("1T", None),
    (str(1 << 63), None),
])
def test_numbers_are_read_as_ndb_mgmd_reads_them(text: str, value: int | None) -> None:
    assert normalised(Param("DataMemory"), text) == value
