"""Locks: the transactions idle the longest and the lock waits, as trees of who waits for
whom.

``cluster_transactions`` and ``cluster_locks`` are read only while this view shows (each a
scan of every data node): the view says when they were last read.
"""

from __future__ import annotations

from ndbtop.model.locks import (
    LONG_TXN_S,
    MAX_LOCKS,
    LockWait,
    Transaction,
    transid_text,
    wait_tree,
)
from ndbtop.model.locks_read import LocksRead, locks_read
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.report.locks import heading, waits_heading, why_not_read
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import PanelsView

MAX_SHOWN = 200
"""Lines of each list drawn at most (the reads bring no more than this many transactions;
the waits' tree says when it has more lines)."""


def _transaction_line(t: Transaction) -> Text:
    line = Text(f"{transid_text(t.transid):>20}  {t.node_id:>4}  {t.api_node:>4}  "
                f"{t.state[:12]:<12} {t.inactive_s:>7}  {t.operations:>5}  ")
    line.append("-" if t.mysql_connection_id is None else str(t.mysql_connection_id))
    if t.inactive_s > LONG_TXN_S:
        line.append(f"  over {LONG_TXN_S} s", style="bold yellow")
    return line


def _wait_text(w: LockWait) -> str:
    lk = w.lock
    return (f"waits {w.wait_s:.1f} s on {lk.table_name} fragment {lk.fragment_id} "
            f"(node {lk.node_id}, {lk.mode} {lk.op})")


class LocksView(PanelsView):
    """Transactions idle past the threshold, and the lock waits as chains."""

    title = "Locks"
    panels = ("locks_head", "locks_transactions", "locks_waits")
    panels_wanted = ("transactions", "locks")
    """Read only while this view shows (:meth:`ndbtop.collect.hub.Hub.want_panels`)."""

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        read = locks_read(snap)
        self.put("#locks_head", self._head(snap, read))
        self.put("#locks_transactions", self._transactions(snap, read))
        self.put("#locks_waits", self._waits(snap, read))

    def _head(self, snap: ClusterSnapshot, read: LocksRead) -> Text:
        head = Text("Transactions and locks", style="bold")
        head.append("\nRead from ndbinfo only while this view shows (every data node scans "
                    f"them): transactions {read.idle_text}"
                    f"{'' if read.min_age_s is None else ' (--txn-age)'}, the "
                    "oldest first; the lock waits and the locks they wait for. A transaction "
                    f"idle over {LONG_TXN_S} s is ndbtop's own mark (NDB sets no limit).",
                    style="dim")
        src = snap.source("ndbinfo")
        if src is None or src.state is SourceState.DISABLED:
            head.append("\nNo SQL node: cluster_transactions and cluster_locks need one "
                        "(--mysql-host).", style="yellow")
        elif snap.live_ndbinfo() is None:
            why = f" ({src.error})" if src.error else ""
            head.append(f"\nThe SQL node does not answer{why}: what follows is the last read.",
                        style="yellow")
        for panel, why in read.unavailable:
            if why_not_read(snap, read, panel) is None:
                head.append(f"\n{panel} unavailable: {why}", style="yellow")
        return head

    def _transactions(self, snap: ClusterSnapshot, read: LocksRead) -> Text:
        shown = [t for t in read.transactions
                 if self.matches(t.transid, t.state, t.node_id, t.api_node)]
        out = Text("Transactions " + heading(snap, read, "transactions", len(read.transactions)),
                   style="bold")
        if self.filter_text:
            out.append(f" ({len(shown)} match the filter)")
        if not shown:
            return out
        out.append(f"\n{'transid':>20}  {'tc':>4}  {'api':>4}  {'state':<12} {'idle s':>7}  "
                   f"{'ops':>5}  mysql conn", style="dim")
        for t in shown[:MAX_SHOWN]:
            out.append("\n")
            out.append_text(_transaction_line(t))
        return out

    def _waits(self, snap: ClusterSnapshot, read: LocksRead) -> Text:
        if not read.waits:
            return Text("Lock waits " + heading(snap, read, "locks", 0), style="bold")
        out = Text("Lock waits ", style="bold")
        out.append(waits_heading(read))
        idle = {t.transid: t for t in read.transactions}
        lines = [line for line in wait_tree(read.waits)
                 if line.wait is None or self.matches(line.transid, line.wait.lock.table_name)]
        for line in lines[:MAX_SHOWN]:
            out.append("\n" + "  " * line.level)
            if line.wait is None:
                out.append("holder " if line.transid is not None else "", style="bold")
                out.append(transid_text(line.transid) if line.transid is not None
                           else f"cut: lock rows past the first {MAX_LOCKS} not read"
                           if read.locks_more
                           else "lock not read (a node's scan left it out)")
                t = idle.get(line.transid) if line.transid is not None else None
                if t is not None:
                    out.append(f"  node {t.node_id} api {t.api_node} {t.state}, idle "
                               f"{t.inactive_s} s", style="yellow" if
                               t.inactive_s > LONG_TXN_S else "")
                if line.deadlock:
                    out.append("  deadlock: every transaction below waits", style="bold red")
                continue
            out.append("└ ")
            out.append(transid_text(line.transid))
            out.append(f" {_wait_text(line.wait)}")
            if line.deadlock:
                out.append("  closes the cycle", style="bold red")
        if len(lines) > MAX_SHOWN:
            out.append(f"\n… the first {MAX_SHOWN} lines of {len(lines)} shown (/ filters them)",
                       style="dim")
        return out
