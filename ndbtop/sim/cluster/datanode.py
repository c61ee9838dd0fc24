"""The changing state of one simulated data node."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ndbtop.sim.config import ClusterConfig, DataNodeConfig
from ndbtop.sim.startplan import StartStep
from ndbtop.sim.threads import pgman_instances
from ndbtop.sim.workload import Workload, noise, thread_load

# Node states, named as get status prints them.
NO_CONTACT = "NO_CONTACT"
NOT_STARTED = "NOT_STARTED"
STARTING = "STARTING"
STARTED = "STARTED"
SHUTTING_DOWN = "SHUTTING_DOWN"
SINGLE_USER = "SINGLE USER MODE"

TC_COUNTERS = (
    "ATTRINFO",
    "TRANSACTIONS",
    "COMMITS",
    "READS",
    "LOCAL_READS",
    "SIMPLE_READS",
    "WRITES",
    "LOCAL_WRITES",
    "ABORTS",
    "TABLE_SCANS",
    "RANGE_SCANS",
)

DPB_FIELDS = (
    "pages_written",
    "pages_written_lcp",
    "pages_read",
    "log_waits",
    "page_requests_direct_return",
    "page_requests_wait_queue",
    "page_requests_wait_io",
)


@dataclass
class RestartReport:
    """What the master reports in ``restart_info`` for a restarting node."""

    status: int
    durations: dict[str, float] = field(default_factory=dict)
    began: float = 0.0
    finished: float | None = None


class SimDataNode:
    """A data node process and what it has done since it started."""

    def __init__(self, cfg: DataNodeConfig, cluster: ClusterConfig) -> None:
        self.cfg = cfg
        self.running_config = cluster
        """The configuration the node's process fetched when it last connected."""
        self.node_id = cfg.node_id
        self.threads = cfg.threads
        self.type_counts = dict(Counter(t.name for t in cfg.threads))
        self.pgman = pgman_instances(cfg.threads)
        self.node_group = cfg.node_group
        self.state = NO_CONTACT
        self.start_phase = 0
        self.start_type: int | None = None
        self.stop_level = 0
        self.plan: tuple[StartStep, ...] = ()
        self.step = 0
        self.step_started = 0.0
        self.start_began = 0.0
        self.phase_started = 0.0
        self.process_started: float | None = None
        self.started_at: float | None = None
        self.dynamic_id = 0
        self.connect_count = 0
        self.generation = 0
        self.stops = 0
        self.has_filesystem = False
        self.restart_report: RestartReport | None = None
        self.pending_start: tuple[int, bool] | None = None
        self.redo_total_mb = cluster.redo_log_mb
        self.redo_total_files = cluster.redo_log_files
        self.redo_init_started: float | None = None
        self.redo_init_seconds = 0.0
        self.redo_parts = cluster.fragment_log_parts
        self.redo_part_mb = cluster.no_of_fragment_log_files * cluster.fragment_log_file_size_mb
        self.data_pages_total = cluster.data_memory_mb * 1024 // 32
        self.data_pages_used = 0
        self.redo_stuck: dict[int, float] = {}
        """Redo log parts whose tail does not move (log part -> MB written per second): the
        part fills while the others are trimmed by the checkpoints."""
        self.data_fill_pages_per_s = 0.0
        """DataMemory pages taken per second on top of the workload's inserts."""
        self.io_lag_per_s = 0.0
        """Seconds of redo write slowdown for I/O lag per second (``disk_write_speed``
        ``slowdowns_due_to_io_lag`` grows at this rate)."""
        self.io_lag_s = 0.0
        self.reset_counters()

    def reset_counters(self) -> None:
        """Counters restart from zero when the process starts."""
        n = len(self.threads)
        self.loads = [0.0] * n
        self.cpu_user_us = [0.0] * n
        self.cpu_sys_us = [0.0] * n
        self.loops = [0.0] * n
        self.execs = [0.0] * n
        self.waits = [0.0] * n
        self.tc = dict.fromkeys(TC_COUNTERS, 0.0)
        self.operations = 0.0
        self.dpb = {inst: dict.fromkeys(DPB_FIELDS, 0.0) for inst in self.pgman}
        if len(self.pgman) > 1:
            # The extra PGMAN instance (on the rep thread) serves almost no requests.
            extra = self.dpb[self.pgman[-1]]
            extra["page_requests_direct_return"] = extra["page_requests_wait_io"] = 1.0
        self.dpb_rate = {inst: dict.fromkeys(DPB_FIELDS, 0.0) for inst in self.pgman}
        self.redo_used_mb = [0.0] * self.redo_parts
        self.redo_write_bps = 0.0
        self.lcp_write_bps = 0.0
        self.interval_tc = dict.fromkeys(TC_COUNTERS, 0.0)
        self.interval_ops = 0.0

    # Start and stop bookkeeping

    @property
    def alive(self) -> bool:
        """Connected to the management server (any state but NO_CONTACT)."""
        return self.state != NO_CONTACT

    @property
    def serving(self) -> bool:
        """Started and answering API requests (DBINFO scans reach it)."""
        return self.state in (STARTED, SINGLE_USER)

    def current_step(self) -> StartStep | None:
        """The start step in progress, if the node is starting."""
        if self.state != STARTING or self.step >= len(self.plan):
            return None
        return self.plan[self.step]

    def activity(self) -> str:
        """What the node is busy with during its start (empty when not starting)."""
        step = self.current_step()
        return step.activity if step else ""

    def uptime(self, now: float) -> float:
        """Seconds since the process started."""
        return 0.0 if self.process_started is None else max(now - self.process_started, 0.0)

    def redo_init_progress(self, now: float) -> tuple[int, int]:
        """(files done, MB done) of the redo-log initialisation in progress or finished."""
        if self.redo_init_started is None or self.redo_init_seconds <= 0:
            return 0, 0
        frac = min(max((now - self.redo_init_started) / self.redo_init_seconds, 0.0), 1.0)
        mb = int(self.redo_total_mb * frac)
        files = int(self.redo_total_files * frac)
        return files, mb

    # Continuous quantities

    def integrate(
        self, dt: float, now: float, node_tps: float, workload: Workload, seed: int, tick: int
    ) -> None:
        """Advance counters by ``dt`` simulated seconds at the current rates."""
        if self.state in (NO_CONTACT, NOT_STARTED) or dt <= 0:
            self.loads = [0.0] * len(self.threads)
            return
        serving = self.serving
        tps = node_tps if serving else 0.0
        activity = self.activity()
        for i, spec in enumerate(self.threads):
            base = thread_load(spec, self.type_counts, tps, workload, activity, serving)
            base += workload.hot.get((self.node_id, spec.thr_no), 0.0) if serving else 0.0
            jitter = 1.0 + 0.06 * noise(seed, tick, self.node_id, spec.thr_no)
            load = min(max(base * jitter, 0.2), 99.5)
            self.loads[i] = load
            busy_us = load / 100.0 * dt * 1e6
            self.cpu_user_us[i] += busy_us * 0.84
            self.cpu_sys_us[i] += busy_us * 0.16
            self.loops[i] += dt * (2000.0 + 400.0 * (100.0 - load))
            self.execs[i] += dt * load * 900.0
            self.waits[i] += dt * (100.0 - load) * 10.0
        self._integrate_work(dt, tps, workload)
        self._integrate_disk(dt, now, tps, workload)

    def _integrate_work(self, dt: float, tps: float, w: Workload) -> None:
        txns = tps * dt
        ops = txns * w.ops_per_txn
        reads = ops * w.read_share
        writes = ops - reads
        inc = {
            "TRANSACTIONS": txns,
            "COMMITS": txns * 0.998,
            "ABORTS": txns * 0.002,
            "READS": reads * 0.6,
            "SIMPLE_READS": reads * 0.4,
            "WRITES": writes,
            "ATTRINFO": ops * 3.0,
            "LOCAL_READS": reads * 0.5,
            "LOCAL_WRITES": writes * 0.5,
            "TABLE_SCANS": txns * 0.01,
            "RANGE_SCANS": txns * 0.05,
        }
        for key, value in inc.items():
            self.tc[key] += value
            self.interval_tc[key] += value
        self.operations += ops
        self.interval_ops += ops
        self.data_pages_used = min(
            self.data_pages_total,
            int(self.data_pages_used + writes * 0.0004 + self.data_fill_pages_per_s * dt),
        )
        self.io_lag_s += self.io_lag_per_s * dt
        redo_mb = writes * 0.00025
        # The redo written includes what fills a stuck part (disk_write_speed counts it).
        self.redo_write_bps = ((redo_mb + sum(self.redo_stuck.values()) * dt) * 1024 * 1024 / dt
                               if dt else 0.0)
        self.lcp_write_bps = (tps * 180.0) if tps else 0.0
        for part in range(self.redo_parts):
            used = self.redo_used_mb[part] + redo_mb / self.redo_parts
            if part in self.redo_stuck:
                stuck = used + self.redo_stuck[part] * dt
                self.redo_used_mb[part] = min(stuck, float(self.redo_part_mb))
                continue
            # A local checkpoint frees the head of the log once it passes 30 %.
            self.redo_used_mb[part] = used if used < self.redo_part_mb * 0.3 else used * 0.5

    def _integrate_disk(self, dt: float, now: float, tps: float, w: Workload) -> None:
        if not self.dpb:
            return
        requests = tps * w.page_requests_per_txn * dt
        hit = 1.0
        if w.hit_ratio is not None and requests > 0:
            since = now - self.started_at if self.started_at is not None else 0.0
            hit = min(max(w.hit_ratio(self.node_id, since) / 100.0, 0.0), 1.0)
        ldm_instances = self.pgman[:-1] or self.pgman
        share = requests / len(ldm_instances)
        for inst in ldm_instances:
            d = self.dpb[inst]
            rate = self.dpb_rate[inst]
            inc = {
                "page_requests_direct_return": share * hit,
                "page_requests_wait_io": share * (1.0 - hit),
                "page_requests_wait_queue": share * (1.0 - hit) * 0.05,
                "pages_read": share * (1.0 - hit),
                "pages_written": share * 0.02,
                "pages_written_lcp": share * 0.01,
                "log_waits": 0.0,
            }
            for key, value in inc.items():
                d[key] += value
                rate[key] = value / dt if dt else 0.0

    def take_interval_counters(self) -> tuple[dict[str, float], float]:
        """Transaction counters and operations since the last statistics report."""
        tc, ops = self.interval_tc, self.interval_ops
        self.interval_tc = dict.fromkeys(TC_COUNTERS, 0.0)
        self.interval_ops = 0.0
        return tc, ops
