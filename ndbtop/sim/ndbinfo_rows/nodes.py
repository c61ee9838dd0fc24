"""ndbinfo tables of node and cluster state: nodes, processes, configuration, restart_info,
counters and hwinfo."""

from __future__ import annotations

from ndbtop.mgm.version import version_string
from ndbtop.sim.clock import ServedTime
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import TC_COUNTERS, SimDataNode
from ndbtop.sim.config_blob import data_node_entries
from ndbtop.sim.ndbinfo_rows.ids import (
    COUNTER_IDS,
    STATUS_NAME,
    STATUS_NUMBER,
    process_id,
)
from ndbtop.sim.startplan import RESTART_STATUS_TEXT, restart_row_values


class NodeTables:
    """Node and cluster state, as a DBINFO scan of the started data nodes returns it."""

    cluster: SimCluster
    time: ServedTime

    def _uptime(self, n: SimDataNode, now: float) -> int:
        if n.process_started is None:
            return 0
        return int(max(self.time.served(now) - self.time.served(n.process_started), 0.0))

    def _nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        return [(n.node_id, self._uptime(n, now), STATUS_NAME[n.state], 0,
                 n.running_config.generation) for n in nodes]

    def _ndb_nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        now = self.cluster.now
        return [(n.node_id, self._uptime(n, now), STATUS_NUMBER[n.state], 0,
                 n.running_config.generation) for n in nodes]

    def _config_values(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for _vtype, key, value in data_node_entries(n.running_config, n.cfg):
                rows.append((n.node_id, key, str(value)))
        return rows

    def _config_nodes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cfg = self.cluster.config
        rows: list[tuple[object, ...]] = [(d.node_id, "NDB", d.host) for d in cfg.data_nodes]
        rows += [(m.node_id, "MGM", m.host or "") for m in cfg.mgm_nodes]
        rows += [(a.node_id, "API", a.host or "") for a in cfg.api_nodes]
        return sorted(rows, key=lambda r: r[0])  # type: ignore[arg-type, return-value]

    def _processes(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cluster = self.cluster
        cfg = cluster.config
        version = version_string(cfg.ndb_version, cfg.ndb_version)
        rows: list[tuple[object, ...]] = []
        for d in cfg.data_nodes:
            node = cluster.data_nodes[d.node_id]
            if node.alive:
                rows.append(
                    (
                        d.node_id,
                        "NDB",
                        version,
                        process_id(d.node_id),
                        process_id(d.node_id) - 1,
                        "ndbmtd",
                        f"ndb://{d.host}",
                    )
                )
        for m in cfg.mgm_nodes:
            if cluster.mgmd_alive.get(m.node_id):
                rows.append(
                    (
                        m.node_id,
                        "MGM",
                        version,
                        process_id(m.node_id),
                        None,
                        "ndb_mgmd",
                        f"ndb://{m.host}:1186",
                    )
                )
        for a in cfg.api_nodes:
            if a.node_id in cluster.api_connected:
                name = "mysqld" if a.node_id == cfg.sql_node_id else "ndbapi"
                uri = f"mysql://{a.host or '127.0.0.1'}:3306" if name == "mysqld" else ""
                rows.append((a.node_id, "API", version, process_id(a.node_id), None, name, uri))
        return sorted(rows, key=lambda r: r[0])  # type: ignore[arg-type, return-value]

    def _restart_info(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        if not nodes:
            return []
        now = self.cluster.now
        rows: list[tuple[object, ...]] = []
        for node in self.cluster.data_nodes.values():
            report = node.restart_report
            if report is None:
                continue
            durations = dict(report.durations)
            step = node.current_step()
            if step is not None and step.restart_column:
                durations[step.restart_column] = (
                    durations.get(step.restart_column, 0.0) + now - node.step_started
                )
            end = report.finished if report.finished is not None else now
            total = self.time.served(end) - self.time.served(report.began)
            # The phases share the served total as they share the simulated one.
            scale = total / (end - report.began) if end > report.began else 1.0
            text = RESTART_STATUS_TEXT.get(report.status, "")
            rows.append(
                (
                    node.node_id,
                    text,
                    report.status,
                    *restart_row_values({k: v * scale for k, v in durations.items()}, total),
                )
            )
        return rows

    def _counters(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for n in nodes:
            for name in TC_COUNTERS:
                rows.append((n.node_id, "DBTC", 0, COUNTER_IDS[name], name, int(n.tc[name])))
            ldm = [t for t in n.threads if t.name == "ldm"]
            for t in ldm:
                rows.append(
                    (
                        n.node_id,
                        "DBLQH",
                        t.instance,
                        COUNTER_IDS["OPERATIONS"],
                        "OPERATIONS",
                        int(n.operations / len(ldm)),
                    )
                )
        return rows

    def _hwinfo(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        cpus = self.cluster.config.host_cpus
        return [
            (
                n.node_id,
                cpus,
                cpus,
                cpus // 2,
                1,
                64 * 1024**3,
                "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
            )
            for n in nodes
        ]
