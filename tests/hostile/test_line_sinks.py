"""Output read line by line keeps one line of whatever a server sends.

A HostName (``replicas_same_host``), an ndbinfo ``memoryusage.memory_type`` (``memory_high``)
and a WarningEvent's text (``gcp_save_lag``) carrying a line feed or a ``|`` must neither add a
line that reads as ndbtop's own (``  CRITICAL ...``, ``Sources:``) to the ``--once`` text or a
bundle's ``findings.txt``, nor forge performance data in the ``check`` plugin line. The
plugin line follows the Monitoring Plugins Development Guidelines
(github.com/monitoring-plugins/monitoring-plugin-guidelines,
monitoring_plugins_interface/03.Output.md, "Performance data"): the human part ends at the
first ``|``, and a label is printable, never ``=`` or ``'``, quoted when it holds a space.
"""

from __future__ import annotations

import io
import re
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from ndbtop.findings import evaluate
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.bundle import Bundle
from ndbtop.report.findings import check_line, findings_text
from ndbtop.report.render import report_text
from ndbtop.sanitise import Laid, laid_out, perf_label, plugin_text, write_line
from tests.findings.test_rules_server_words import NOW, snap, text_event

FORGED = "\n  CRITICAL forged_rule: every node is down\nSources:\n  mgm connected"
HOST = f"db1|fake_perf=999{FORGED}"
MEMORY = f"Data memory|fake_perf=999{FORGED}"
WARNING_TEXT = f"GCP Monitor: GCP_SAVE lag 60 seconds (no max lag){FORGED}"
PERF = re.compile(r"^(?:'[^'=]+'|[^ '=]+)=-?[0-9.]+(?:;[^ ;]*){0,4}$")
"""One performance-data value as the guidelines write it."""


def hostile() -> ClusterSnapshot:
    """Three findings quoting server text that holds line feeds and ``|``."""
    config = ClusterConfig(3, "c", 2, (), (DataNodeConfig(2, 0, host=HOST),
                                            DataNodeConfig(3, 0, host=HOST),
                                            DataNodeConfig(4, 1, host="db3"),
                                            DataNodeConfig(5, 1, host="db4")))
    total = 1000 * 32768
    memory = (MemoryUse(2, MEMORY, total, 1000, total, 1000),)
    base = snap(config=config, ndbinfo=NdbinfoSample(NOW, None, memory=memory),
                events=(text_event(46, 5, WARNING_TEXT),))
    found = evaluate(base)
    assert {f.id for f in found} == {"replicas_same_host", "memory_high", "gcp_save_lag"}
    return replace(base, findings=found)


def test_the_plugin_line_is_one_line_with_only_ndbtops_perfdata() -> None:
    code, line = check_line(hostile(), hostile().findings, warning_only=False)
    assert code == 2
    assert "\n" not in line and line.count("|") == 1
    text, perf = line.split(" | ")
    assert "fake_perf=999\\x0a" in text.replace("\\x7c", "")
    assert "\\x7cfake_perf=999" in text
    values = perf.split(" ")
    assert all(PERF.match(v) for v in values), values
    assert [v.split("=")[0] for v in values] == ["critical", "warning", "info",
                                                 "data_nodes_started"]


@pytest.mark.parametrize("label, shown", [
    ("critical", "critical"), ("data nodes started", "'data nodes started'")])
def test_perfdata_labels_are_quoted_as_the_guidelines_say(label: str, shown: str) -> None:
    assert perf_label(label) == shown


@pytest.mark.parametrize("label", ["", " ", "a=b", "it's", "a\nb", "a|b\x1b", "ſ"])
def test_a_label_the_guidelines_forbid_is_never_written(label: str) -> None:
    with pytest.raises(ValueError):
        perf_label(label)


def test_the_human_part_of_a_plugin_line_has_no_bar_and_no_line_feed() -> None:
    assert plugin_text("a|b\nc\x1b") == "a\\x7cb\\x0ac\\x1b"


def own_lines(text: str) -> list[str]:
    """The lines that read as a finding's headline or the Sources heading."""
    return [line for line in text.split("\n")
            if re.match(r"  (CRITICAL|WARNING|INFO) ", line) or line == "Sources:"]


def test_once_text_keeps_every_quoted_string_on_its_line() -> None:
    text = report_text(hostile())
    assert "forged_rule" in text  # shown, escaped, on the line that quotes it
    assert not any(line.startswith("  CRITICAL forged_rule") for line in text.split("\n"))
    assert len([line for line in own_lines(text) if line != "Sources:"]) == 3
    assert sum(1 for line in text.split("\n") if line == "Sources:") == 1
    for line in text.split("\n"):
        if "fake_perf=999" in line:
            assert "\\x0a  CRITICAL forged_rule" in line


def test_findings_txt_of_a_bundle_keeps_every_quoted_string_on_its_line(
        tmp_path: Path) -> None:
    bundle = Bundle()
    bundle.add("findings.txt", findings_text(hostile().findings)[1:], "findings")
    bundle.write(tmp_path / "b.tar.gz")
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        member = tar.extractfile("ndbtop-bundle/findings.txt")
        assert member is not None
        text = member.read().decode()
    headlines = own_lines(text)
    assert len(headlines) == 3
    assert not any(line.startswith("  CRITICAL forged_rule") for line in headlines)
    assert "Sources:" not in text.split("\n")


def test_a_string_given_to_a_text_file_is_one_line(tmp_path: Path) -> None:
    bundle = Bundle()
    bundle.add("x.txt", "not collected: reply\nSources:", "x")
    assert bundle.files["x.txt"] == b"not collected: reply\\x0aSources:\n"


def test_laid_out_text_keeps_ndbtops_own_line_feeds_only() -> None:
    table = Laid("a  b\n-  -")
    assert laid_out(["x\ny", table, "\tz"]) == "x\\x0ay\na  b\n-  -\n\\x09z"


def test_a_line_written_to_a_stream_is_one_line() -> None:
    out = io.StringIO()
    write_line(out, "node 2 STARTED\nnode 3 STARTED")
    assert out.getvalue() == "node 2 STARTED\\x0anode 3 STARTED\n"


LINE_SINKS = ("check.py", "wait.py", "rolling.py", "rolling_plan.py", "rolling_run.py",
              "record.py", "export.py", "bundle.py", "monitor.py", "mgm.py", "config.py",
              "__init__.py")


@pytest.mark.parametrize("name", LINE_SINKS)
def test_line_oriented_commands_write_lines_through_the_one_rule(name: str) -> None:
    # A line of its own built in place (`.write(f"...\n")`) would keep a server's line feed.
    source = (Path(__file__).resolve().parents[2] / "ndbtop" / "cli" / name).read_text()
    assert not re.findall(r"\.write\(f\"[^\n]*\\n\"\)", source)
    assert not re.findall(r"\.write\([^\n]*\+ \"\\n\"\)", source.replace(
        'json_text(report, indent=2) + "\\n"', ""))


def test_show_keeps_a_configured_host_name_on_its_line() -> None:
    from ndbtop.mgm.status import NodeStatus
    from ndbtop.model.config import NodeConfig
    from ndbtop.report.ndb_mgm import show_text

    config = ClusterConfig(1, "c", 2, (NodeConfig(2, "NDB", host=f"db1{FORGED}"),), ())
    text = show_text((NodeStatus(2, "NDB", "NO_CONTACT", version=0),), config)
    (line,) = [x for x in text.split("\n") if x.startswith("id=2")]
    assert "accepting connect from db1\\x0a  CRITICAL forged_rule" in line
    assert not any(x.startswith(("  CRITICAL", "Sources:")) for x in text.split("\n"))
