"""Reading 48 data node hosts over SSH: ndbtop's added CPU and the parse time per interval.

The ``large`` scenario (48 data nodes) reports its data nodes at 127.0.2.1-127.0.2.48;
private sshd instances (16 addresses each, the most one sshd listens on) serve them with
keys made for the run. Runs ``--seconds`` with --ssh at a 1 s interval and as long
without, and compares this process's CPU time; the ssh client processes are measured
apart.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import psutil
from harness import SimProcess
from sshd import Sshds, loopback_hosts

HOSTS = loopback_hosts(48)


async def run(sim: SimProcess, config: Path | None, seconds: float) -> dict[str, float]:
    from ndbtop.collect.hub import Hub
    from ndbtop.host.remote import SshOptions
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.clock import RealClock

    ssh = SshOptions(config=str(config)) if config else None
    hub = Hub(parse_connectstring(f"127.0.0.1:{sim.mgm_port}"), RealClock(), 1.0, events=False,
              ssh=ssh)
    await hub.start()
    while ssh and sum(s.status.state.value == "connected" for s in hub.hosts.sources()) < 48:
        await asyncio.sleep(0.5)
    await asyncio.sleep(3)
    me = psutil.Process()
    kids = [c for c in me.children(recursive=True) if c.name() == "ssh"]
    k0 = sum(sum(c.cpu_times()[:2]) for c in kids)
    c0, t0 = time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    cpu, wall = time.process_time() - c0, time.monotonic() - t0
    k1 = sum(sum(c.cpu_times()[:2]) for c in kids)
    parse_ms = None
    if ssh:
        from ndbtop.host.procfs import parse_sample
        from ndbtop.host.view import host_view
        texts = []
        for s in hub.hosts.sources():
            texts.append((await s._request("s\n", 5.0), f"@{s._token} ", s._clk_tck, s.sample))
        t = time.perf_counter()
        for _ in range(20):
            for lines, marker, tck, prev in texts:
                host_view(prev, parse_sample(lines, marker, tck))
        parse_ms = (time.perf_counter() - t) / 20 * 1000
    await hub.stop()
    return {"cpu_pct": cpu / wall * 100, "ssh_clients_pct": (k1 - k0) / wall * 100,
            "parse_ms": parse_ms or 0.0, "hosts": len(hub.hosts.remote)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        sshds = Sshds(HOSTS, Path(d))
        config = sshds.start()
        sim = SimProcess("large", extra=("--data-node-hosts", ",".join(HOSTS)))
        try:
            base = asyncio.run(run(sim, None, args.seconds))
            with_ssh = asyncio.run(run(sim, config, args.seconds))
        finally:
            sim.stop()
            sshds.stop()
    added = with_ssh["cpu_pct"] - base["cpu_pct"]
    print(f"hosts {with_ssh['hosts']}; ndbtop CPU without --ssh {base['cpu_pct']:.2f}% of a core, "
          f"with --ssh {with_ssh['cpu_pct']:.2f}% (added {added:.2f}%); 48 ssh clients "
          f"{with_ssh['ssh_clients_pct']:.2f}%; parse + rates of 48 hosts "
          f"{with_ssh['parse_ms']:.2f} ms per interval", file=sys.stdout)


if __name__ == "__main__":
    main()
