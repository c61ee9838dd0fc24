"""One answer everywhere: at the same moment of each fault scenario, the live view (its hub
listening since the start; the exporter runs the same hub) and a one-shot collection as
``check`` and ``--once`` make it (no listener: the cluster log file read instead, two
readings with no time between them) give the same findings, and what the one-shot could not
judge it names. ``--once`` JSON, ``check``'s line and a bundle's findings render that one
snapshot.

The simulated clock stands still while the one-shot collection runs (a manual clock), so
the comparison does not depend on the machine's speed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndbtop.demo.capture import EPOCH, CaptureSpec
from ndbtop.demo.hub import demo_hub
from ndbtop.export.families import snapshot_families
from ndbtop.findings.coverage import unjudged
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.as_json import report_json
from ndbtop.report.findings import check_line, findings_text
from ndbtop.sanitise import json_text
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.captures import captured

FAULTS = [("gcp-stall", 120.0), ("gcp-stall", 300.0), ("redo-filling", 100.0),
          ("lcp-stall", 70.0), ("lcp-stall", 96.0), ("overload", 60.0), ("heartbeat", 52.0),
          ("heartbeat", 70.0), ("arbitrator-lost", 90.0), ("arbitrator-lost", 620.0),
          ("memory-full", 100.0), ("start-waiting", 200.0), ("gcp-stall", 700.0),
          ("heartbeat", 900.0)]


class _Frozen:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def one_shot(scenario: str, at: float, data_dir: Path) -> ClusterSnapshot:
    """What ``check`` reads at ``at``: get status, the configuration, ndbinfo twice, the
    memory report, the cluster log file the simulated management server wrote."""
    cluster = build_scenario(scenario, ScenarioOptions(mgm_data_dir=str(data_dir)))
    cluster.advance_to(at)
    clock = SimClock(speed=1.0, epoch=EPOCH, real=_Frozen(at), start_at=at)
    sim = Simulator(cluster, clock)
    await sim.start(sql_port=0)
    hub = demo_hub(sim, 0.01, events=False)
    try:
        return await hub.collect_once()
    finally:
        await hub.stop()
        await sim.close()


def _found(snap: ClusterSnapshot) -> set[tuple[str, str, tuple[int, ...]]]:
    return {(f.id, f.severity.value, f.nodes) for f in snap.findings}


@pytest.mark.parametrize(("scenario", "at"), FAULTS)
async def test_every_surface_gives_the_live_views_answer(scenario: str, at: float,
                                                         tmp_path: Path) -> None:
    live = (await captured(CaptureSpec(scenario, at))).snapshot
    shot = await one_shot(scenario, at, tmp_path)
    assert shot.source("cluster-log") is not None
    assert shot.source("cluster-log").state.value == "connected"  # type: ignore[union-attr]
    expected = _found(live)
    got = _found(shot)
    left = {i for _, ids in unjudged(shot, 0.0) for i in ids}
    # Every rule the one shot judged gives the live view's answer; those it could not judge
    # (a partial answer at most) it names.
    assert {f for f in got if f[0] not in left} == {f for f in expected if f[0] not in left}
    # The live view's exporter serves its findings; --once JSON, check and a bundle the
    # one shot's.
    served = {(m.labels["id"], m.labels["severity"]) for fam in
              snapshot_families(live, live.taken_at) if fam.name == "ndbtop_finding"
              for m in fam.samples}
    assert served == {(i, s) for i, s, _ in expected}
    report = json.loads(json_text(report_json(shot, 0.0)))
    assert {(f["id"], f["severity"], tuple(f["nodes"])) for f in report["findings"]} == got
    assert {i for n in report["not_judged"] for i in n["rules"]} == left
    code, line = check_line(shot, shot.findings, False)
    worst = max((("info", "warning", "critical").index(s) for _, s, _ in got), default=0)
    assert code == {0: 0, 1: 1, 2: 2}[worst]
    text = "\n".join(findings_text(shot.findings))
    assert all(f"{s.upper():8} {i}:" in text for i, s, _ in got)
    assert line.startswith(("NDB OK", "NDB WARNING", "NDB CRITICAL"))
