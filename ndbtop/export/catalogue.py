"""Every metric ``ndbtop export`` serves: its name, type, labels and help text.

This table is the one definition: the collector builds its families from it and
the README's metric list is generated from it (:func:`markdown_table`), so the
two cannot drift apart. Names follow the Prometheus conventions: base units
(``_seconds``, ``_bytes``), ratios as 0..1 (``_ratio``), ``_total`` for counters,
labels for identity. Every name begins with ``ndb_`` (the cluster's figures) or ``ndbtop_``
(ndbtop's own, and the hosts'): the host disk counters are node_exporter's
(``/proc/diskstats`` since boot, label ``device``) as ``ndbtop_host_disk_*`` rather than
``node_disk_*``, so that sums over both exporters never count a disk twice
(contrib/prometheus/ndbtop-node-disk-names.yml records the old names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ndbtop.compat import SLOTS

Kind = Literal["gauge", "counter"]


@dataclass(frozen=True, **SLOTS)
class MetricDef:
    """One metric: ``name`` is what a query uses (counters end in ``_total``)."""

    name: str
    kind: Kind
    labels: tuple[str, ...]
    help: str
    source: str
    """The ndbtop source the values come from (``mgm``, ``events``, ``ndbinfo``, ``host``,
    ``config``); its series are left out while that source (for ``host``: that data node
    host) is not up."""

    @property
    def family(self) -> str:
        """The name prometheus_client takes: a counter's name without ``_total``."""
        if self.kind == "counter":
            return self.name.removesuffix("_total")
        return self.name


def _m(name: str, kind: Kind, labels: str, help_text: str, source: str) -> MetricDef:
    return MetricDef(name, kind, tuple(labels.split()), help_text, source)


NODE = "node_id"
METRICS: tuple[MetricDef, ...] = (
    _m("ndbtop_source_up", "gauge", "source",
       "1 when the ndbtop source (mgm, config, events, ndbinfo, host, host NAME for each "
       "data node host read over SSH, replication, and replication HOST:PORT for each SQL "
       "node named for replication) has fresh data, else 0 (none for a source turned off; "
       "config, read only when it may have changed, is 1 while its last read succeeded)",
       "-"),
    _m("ndbtop_source_age_seconds", "gauge", "source",
       "Seconds since the source last produced good data", "-"),
    _m("ndbtop_context_start_error", "gauge", "reason",
       "1 for a context of export --contexts whose sources could not start, with why: "
       "context, connectstring, ssh, sql_options or password_command (the exporter's log "
       "line says more); its ndbtop_source_up of source mgm is 0", "-"),
    _m("ndb_node_status", "gauge", "node_id node_type status",
       "The node's status as the management server reports it: a series for every status "
       "(UNKNOWN, NO_CONTACT, NOT_STARTED, STARTING, STARTED, SHUTTING_DOWN, RESTARTING, "
       "SINGLE USER MODE, RESUME, CONNECTED), 1 for the current one and 0 for the others",
       "mgm"),
    _m("ndb_node_version_info", "gauge", "node_id version",
       "1 for each node with the NDB version it runs (none for a node never connected)",
       "mgm"),
    _m("ndb_single_user_mode", "gauge", "api_node_id",
       "1 while the cluster is in single-user mode, else 0; api_node_id is the API node "
       "that holds it when the management server tells (8.0.22 and later), else empty",
       "mgm"),
    _m("ndb_node_start_phase", "gauge", NODE,
       "Last start phase the data node completed, while it is STARTING", "mgm"),
    _m("ndb_node_phase_seconds", "gauge", NODE,
       "Seconds the starting data node has spent in the start phase in progress (only when "
       "ndbtop saw the phase begin)", "mgm"),
    _m("ndb_node_phase_at_least_seconds", "gauge", NODE,
       "Lower bound of the seconds spent in the start phase in progress, for a phase ndbtop "
       "did not see begin (counted from its first sight of the node)", "mgm"),
    _m("ndb_node_phase_normal_seconds", "gauge", NODE,
       "Normal duration of the start phase in progress: what it took in the last "
       "comparable start, else its typical duration", "mgm"),
    _m("ndb_node_start_info", "gauge", "node_id start_type phase phase_name",
       "1 for a data node's start in progress: its kind (none while unknown), the phase "
       "running and that phase's name", "mgm"),
    _m("ndb_node_start_seconds", "gauge", NODE,
       "Seconds since the data node's start in progress began (only when its beginning was "
       "seen)", "mgm"),
    _m("ndb_node_start_at_least_seconds", "gauge", NODE,
       "Lower bound of the seconds since the start in progress began, for a start ndbtop "
       "did not see begin", "mgm"),
    _m("ndb_node_start_eta_seconds", "gauge", NODE,
       "Estimated seconds until the starting data node is STARTED (none when no estimate "
       "can be stood behind: the JSON report says why)", "mgm"),
    _m("ndb_node_start_eta_low_seconds", "gauge", NODE,
       "Low end of the range of ndb_node_start_eta_seconds (wider when its basis is weaker)",
       "mgm"),
    _m("ndb_node_start_eta_high_seconds", "gauge", NODE,
       "High end of the range of ndb_node_start_eta_seconds", "mgm"),
    _m("ndb_node_group_nodes", "gauge", "node_group",
       "Data nodes in the node group", "mgm"),
    _m("ndb_node_group_started_nodes", "gauge", "node_group",
       "Data nodes of the node group that are STARTED", "mgm"),
    _m("ndb_node_uptime_seconds", "gauge", NODE,
       "Seconds since the data node process was launched (ndbinfo.nodes)", "ndbinfo"),
    _m("ndb_thread_cpu_ratio", "gauge", "node_id thread_no thread_name",
       "Busy share of a data node thread over the last second (cpustat; 0..1)", "ndbinfo"),
    _m("ndb_disk_page_buffer_hit_ratio", "gauge", NODE,
       "Disk page buffer hit ratio since the data node started (0..1)", "ndbinfo"),
    _m("ndb_disk_page_buffer_interval_hit_ratio", "gauge", NODE,
       "Disk page buffer hit ratio over the last refresh interval (0..1)", "ndbinfo"),
    _m("ndb_disk_page_buffer_requests_total", "counter", "node_id result",
       "Page requests to the disk page buffer since node start, by result "
       "(hit, wait_queue, wait_io)", "ndbinfo"),
    _m("ndb_disk_page_buffer_pages_read_total", "counter", NODE,
       "Pages the disk page buffer read from disk since node start", "ndbinfo"),
    _m("ndb_disk_page_buffer_pages_written_total", "counter", NODE,
       "Pages the disk page buffer wrote to disk since node start", "ndbinfo"),
    _m("ndb_memory_used_bytes", "gauge", "node_id memory_type",
       "Memory in use, by memory type (ndbinfo.memoryusage)", "ndbinfo"),
    _m("ndb_memory_size_bytes", "gauge", "node_id memory_type",
       "Memory configured, by memory type (ndbinfo.memoryusage)", "ndbinfo"),
    _m("ndb_log_space_used_bytes", "gauge", "node_id log_type log_id log_part",
       "Redo or undo log space in use (ndbinfo.logspaces)", "ndbinfo"),
    _m("ndb_log_space_size_bytes", "gauge", "node_id log_type log_id log_part",
       "Redo or undo log space in all (ndbinfo.logspaces)", "ndbinfo"),
    _m("ndb_transactions_total", "counter", NODE,
       "Transactions the node's transaction coordinators ran since node start", "ndbinfo"),
    _m("ndb_commits_total", "counter", NODE,
       "Transactions committed since node start", "ndbinfo"),
    _m("ndb_aborts_total", "counter", NODE,
       "Transactions aborted since node start", "ndbinfo"),
    _m("ndb_key_reads_total", "counter", NODE,
       "Primary and unique key reads since node start", "ndbinfo"),
    _m("ndb_key_writes_total", "counter", NODE,
       "Primary and unique key writes since node start", "ndbinfo"),
    _m("ndb_scans_total", "counter", NODE,
       "Table and range scans since node start", "ndbinfo"),
    _m("ndb_local_operations_total", "counter", NODE,
       "Operations the node's LDM threads executed since node start", "ndbinfo"),
    _m("ndb_restart_phase_seconds", "gauge", "node_id phase",
       "Seconds each step of the node's last restart took (ndbinfo.restart_info; phase is "
       "the column name without secs_; while it runs, only the steps done)", "ndbinfo"),
    _m("ndb_redo_init_bytes", "gauge", NODE,
       "Redo log bytes initialised so far in the node's current or last start: from its "
       "LogFileInitStatus events, or measured on its host (--ssh) when it sends no progress "
       "reports (StartupStatusReportFrequency=0)", "mgm"),
    _m("ndb_redo_log_bytes", "gauge", NODE,
       "Size of the node's redo log: parts x files x file size (configuration)", "config"),
    _m("ndb_redo_log_files", "gauge", NODE,
       "Files of the node's redo log: parts x files per part (configuration)", "config"),
    _m("ndb_redo_init_written_bytes", "gauge", NODE,
       "Bytes the initialising data node's process has written (write_bytes of "
       "/proc/PID/io), measured on its host", "host"),
    _m("ndb_redo_init_expected_bytes", "gauge", NODE,
       "Bytes the redo log initialisation writes in all: the log's size with "
       "InitFragmentLogFiles=FULL, about 1/32 of it with SPARSE (configuration)", "host"),
    _m("ndb_redo_init_files_done", "gauge", NODE,
       "Redo log files the initialising data node has done over all log parts (the files "
       "before the one each part has open), measured on its host", "host"),
    _m("ndb_backup_in_progress", "gauge", "",
       "1 while a backup runs, else 0 (backup events and status reports)", "events"),
    _m("ndb_backup_id", "gauge", "",
       "Id of the backup in progress", "events"),
    _m("ndb_backup_node_written_bytes", "gauge", NODE,
       "Data and log bytes the data node has written for the backup in progress, as of its "
       "last status report (REPORT BACKUPSTATUS)", "events"),
    _m("ndb_backup_node_written_records", "gauge", NODE,
       "Data records the data node has written for the backup in progress, as of its last "
       "status report", "events"),
    _m("ndb_backup_eta_seconds", "gauge", "",
       "Seconds until the backup in progress has written its data: the data still to write "
       "(DataMemory in use over NoOfReplicas, at most) at each node's measured rate; the "
       "backup log and the stop are not known ahead (none while it cannot be estimated)",
       "events"),
    _m("ndb_backup_eta_low_seconds", "gauge", "",
       "Low end of ndb_backup_eta_seconds's range", "events"),
    _m("ndb_backup_eta_high_seconds", "gauge", "",
       "High end of ndb_backup_eta_seconds's range", "events"),
    _m("ndb_backup_last_completed_timestamp_seconds", "gauge", "",
       "Unix time the last completed backup ended (when ndbtop received BackupCompleted)",
       "events"),
    _m("ndb_backup_last_duration_seconds", "gauge", "",
       "Seconds the last completed backup took, from BackupStarted to BackupCompleted as "
       "received (none when its start was not seen)", "events"),
    _m("ndb_backup_last_written_bytes", "gauge", "",
       "Data and log bytes the last completed backup wrote (the master's totals)", "events"),
    _m("ndb_backup_last_written_records", "gauge", "",
       "Data records the last completed backup wrote (the master's totals)", "events"),
    _m("ndb_backup_last_failure_timestamp_seconds", "gauge", "",
       "Unix time the last backup that aborted or failed to start ended (as received)",
       "events"),
    _m("ndb_backup_failures_total", "counter", "",
       "Backups that aborted or failed to start since ndbtop started (BackupAborted and "
       "BackupFailedToStart events)", "events"),
    _m("ndb_replication_running", "gauge", "source replica channel thread",
       "1 while the replication channel's thread runs (thread io: Replica_IO_Running, sql: "
       "Replica_SQL_Running, Slave_* before MySQL 8.0.22, is Yes), else 0; source is the "
       "source SQL node as the replica names it", "replication"),
    _m("ndb_replication_lag_epochs", "gauge", "source replica channel",
       "Epochs of the source's binary log (mysql.ndb_binlog_index) newer than the last the "
       "replica applied from that source server (mysql.ndb_apply_status); none while not "
       "counted (the source not watched or not read)", "replication"),
    _m("ndb_replication_lag_seconds", "gauge", "source replica channel",
       "Seconds the replica is behind, derived from ndb_replication_lag_epochs at the rate "
       "the source wrote epochs over the last minute (not measured); none without a rate",
       "replication"),
    _m("ndb_replication_seconds_behind_source", "gauge", "source replica channel",
       "Seconds_Behind_Source (Seconds_Behind_Master) as the replica reports it: the age of "
       "the event its applier runs now; none while the replica says NULL", "replication"),
    _m("ndbtop_finding", "gauge", "id severity node_id",
       "1 while a finding holds (README: Findings), one series per node it is about "
       "(node_id empty for a finding about the cluster)", "mgm"),
    _m("ndbtop_host_up", "gauge", "host via",
       "1 when the data node host is read and its figures are current, else 0 (via: local, "
       "ssh or simulated); a host that is not read has no disk series", "host"),
    _m("ndbtop_host_data_node", "gauge", "host node_id",
       "1 for each data node on the host (its process seen there, or the configured "
       "HostName or get status address of a host read over SSH)", "host"),
    _m("ndb_node_last_error_code", "gauge", "node_id time",
       "Error code of the newest entry of the ndb_<id>_error.log of a data node that is not "
       "STARTED, read on its host over SSH (time: the entry's Time field, the host's local "
       "time)", "host"),
    _m("ndb_node_data_dir_available_bytes", "gauge", NODE,
       "Bytes available on the file system of the DataDir of a data node that is not "
       "STARTED (df on its host)", "host"),
    _m("ndb_node_process_running", "gauge", "node_id process",
       "1 when the data node's angel or worker process runs on its host, for a data node "
       "that is not STARTED (process: angel, worker)", "host"),
    _m("ndbtop_host_disk_reads_completed_total", "counter", "host device",
       "Reads completed on the host's block device since boot", "host"),
    _m("ndbtop_host_disk_writes_completed_total", "counter", "host device",
       "Writes completed on the host's block device since boot", "host"),
    _m("ndbtop_host_disk_reads_merged_total", "counter", "host device",
       "Reads merged on the host's block device since boot", "host"),
    _m("ndbtop_host_disk_writes_merged_total", "counter", "host device",
       "Writes merged on the host's block device since boot", "host"),
    _m("ndbtop_host_disk_read_bytes_total", "counter", "host device",
       "Bytes read from the host's block device since boot", "host"),
    _m("ndbtop_host_disk_written_bytes_total", "counter", "host device",
       "Bytes written to the host's block device since boot", "host"),
    _m("ndbtop_host_disk_read_time_seconds_total", "counter", "host device",
       "Seconds reads on the device spent queued and in service, since boot", "host"),
    _m("ndbtop_host_disk_write_time_seconds_total", "counter", "host device",
       "Seconds writes on the device spent queued and in service, since boot", "host"),
    _m("ndbtop_host_disk_io_time_seconds_total", "counter", "host device",
       "Seconds the device had at least one request in flight, since boot "
       "(its rate is %util as a 0..1 ratio)", "host"),
)
BY_NAME: dict[str, MetricDef] = {m.name: m for m in METRICS}


def markdown_table() -> str:
    """The README's list of metrics: name, type, labels and help text, one row each."""
    rows = ["| metric | type | labels | help |", "|---|---|---|---|"]
    for m in METRICS:
        labels = ", ".join(f"`{label}`" for label in m.labels)
        rows.append(f"| `{m.name}` | {m.kind} | {labels} | {m.help} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
