"""The data node host seen through psutil: iostat-like disk rates, host CPU and the
per-thread CPU of local ``ndbmtd``/``ndbd`` processes.

Headless: samples and views are frozen values; rates are pure functions of two samples.
"""

from ndbtop.host.collector import HostCollector
from ndbtop.host.devices import block_devices, partition_parent
from ndbtop.host.processes import (
    NdbProcess,
    ProcessInfo,
    classify,
    discover,
    is_data_node_process,
    node_id_from_cmdline,
)
from ndbtop.host.rates import (
    CpuPercent,
    DiskRates,
    ThreadRates,
    counter_delta,
    cpu_percent,
    disk_rates,
    thread_rates,
)
from ndbtop.host.samples import CpuTimes, DiskCounters, HostSample, ThreadSample
from ndbtop.host.threadmap import NdbinfoThread, ThreadMatch, match_threads
from ndbtop.host.view import HostView, host_view

__all__ = [
    "CpuPercent",
    "CpuTimes",
    "DiskCounters",
    "DiskRates",
    "HostCollector",
    "HostSample",
    "HostView",
    "NdbProcess",
    "NdbinfoThread",
    "ProcessInfo",
    "ThreadMatch",
    "ThreadRates",
    "ThreadSample",
    "block_devices",
    "classify",
    "counter_delta",
    "cpu_percent",
    "discover",
    "disk_rates",
    "host_view",
    "is_data_node_process",
    "match_threads",
    "node_id_from_cmdline",
    "partition_parent",
    "thread_rates",
]
