"""The alert rules and the Grafana dashboard of contrib/: valid, tested, and over metrics
``ndbtop export`` serves."""

from __future__ import annotations

import configparser
import json
import re
import subprocess
from pathlib import Path

from ndbtop.export.catalogue import BY_NAME
from ndbtop.export.http import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "contrib" / "prometheus" / "ndb-alerts.yml"
RULE_TESTS = ROOT / "contrib" / "prometheus" / "ndb-alerts.test.yml"
DASHBOARD = ROOT / "contrib" / "grafana" / "ndb-cluster.json"
SERVICE = ROOT / "contrib" / "systemd" / "ndbtop-export.service"
OLD_NAMES = ROOT / "contrib" / "prometheus" / "ndbtop-node-disk-names.yml"
OLD_NAMES_TESTS = ROOT / "contrib" / "prometheus" / "ndbtop-node-disk-names.test.yml"
METRIC = re.compile(r"\b((?:ndb|ndbtop|node_disk)_[a-z_]+)\b")


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=60,
                          cwd=RULES.parent)


def test_promtool_checks_the_rules() -> None:
    result = promtool("check", "rules", str(RULES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 18 rules found" in result.stdout


def test_the_rules_pass_their_unit_tests() -> None:
    result = promtool("test", "rules", str(RULE_TESTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_served_name_has_ndbtops_prefix() -> None:
    # node_exporter's names would mix with its series where both run (a disk counted twice).
    assert [m for m in BY_NAME if not m.startswith(("ndb_", "ndbtop_"))] == []


def test_the_old_disk_names_are_recorded_from_the_new_ones() -> None:
    result = promtool("check", "rules", str(OLD_NAMES))
    assert result.returncode == 0, result.stdout + result.stderr
    disks = sorted(m for m in BY_NAME if m.startswith("ndbtop_host_disk_"))
    assert f"SUCCESS: {len(disks)} rules found" in result.stdout
    recorded = dict(re.findall(r"- record: (\S+)\n\s+expr: (\S+)\n", OLD_NAMES.read_text()))
    assert recorded == {m.replace("ndbtop_host_disk_", "node_disk_"): m for m in disks}
    result = promtool("test", "rules", str(OLD_NAMES_TESTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def used_metrics(text: str) -> set[str]:
    return set(METRIC.findall(text))


def test_rules_use_only_served_metrics() -> None:
    used = used_metrics(RULES.read_text())
    assert used and used <= set(BY_NAME), used - set(BY_NAME)


def panels(dashboard: dict) -> list[dict]:
    out = []
    for p in dashboard["panels"]:
        out.append(p)
        out.extend(p.get("panels", ()))
    return out


def test_dashboard_panels_query_served_metrics() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    found = panels(dashboard)
    types = {p["type"] for p in found}
    assert {"state-timeline", "heatmap", "timeseries"} <= types
    exprs = [t["expr"] for p in found for t in p.get("targets", ())]
    assert exprs
    used = set().union(*(used_metrics(e) for e in exprs))
    assert used <= set(BY_NAME), used - set(BY_NAME)
    for wanted in ("ndb_node_status", "ndb_node_version_info", "ndb_single_user_mode",
                   "ndb_node_start_phase", "ndb_thread_cpu_ratio",
                   "ndb_disk_page_buffer_requests_total", "ndbtop_host_disk_io_time_seconds_total",
                   "ndb_redo_init_bytes", "ndb_redo_log_bytes"):
        assert wanted in used, wanted
    ids = [p["id"] for p in found]
    assert len(ids) == len(set(ids))


def test_readme_lists_every_metric_as_the_code_defines_it() -> None:
    from ndbtop.export.catalogue import markdown_table

    text = (ROOT / "README.md").read_text()
    begin, end = "<!-- metrics:begin -->\n", "<!-- metrics:end -->"
    assert begin in text and end in text
    listed = text.split(begin, 1)[1].split(end, 1)[0]
    assert listed == markdown_table(), "regenerate with: python -m ndbtop.export.catalogue"


def test_the_service_bounds_descriptors_tasks_and_memory() -> None:
    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(SERVICE)
    service = unit["Service"]
    hosts = 144  # the largest cluster benchmarked: an ssh process and three pipes per host
    assert int(service["LimitNOFILE"]) >= 2 * (DEFAULT_LIMITS.connections + 3 * hosts)
    assert int(service["TasksMax"]) >= 2 * (DEFAULT_LIMITS.connections + hosts)
    assert service["MemoryMax"] == "1G"
    assert "--listen 127.0.0.1:" in service["ExecStart"]
    # What its comment says of the exporter's own limits is what the code does.
    text = SERVICE.read_text()
    assert f"at most {DEFAULT_LIMITS.connections} scrape connections" in text
    assert f"headers take over {DEFAULT_LIMITS.header_timeout:g} s" in text


def test_readme_gives_the_exporters_limits_as_the_code_sets_them() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    limits = DEFAULT_LIMITS
    assert f"**The exporter's connections**: at most {limits.connections} at once" in text
    assert f"arrive within {limits.header_timeout:g} s of the connect" in text
    assert f"without traffic for {limits.idle_timeout:g} s is closed" in text
    assert f"the response be sent within {limits.response_timeout:g} s of them" in text
    assert limits.accept_retry == 0.5 and "accepting pauses for half a second" in text
    assert f"Scrapers hold at most {limits.connections} connections" in text
