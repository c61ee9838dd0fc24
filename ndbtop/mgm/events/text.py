"""Cluster-log texts of every event type, as ``EventLogger.cpp``'s ``getText*`` prints them.

Convention: ``words`` are the event's signal data words **starting at word 1**,
so ``words[0]`` is ``theData[1]``; the header word ``theData[0]`` is never
passed. The signal length the server sees is ``len(words) + 1`` (some texts
depend on it). A word past the end of ``words`` reads as 0, where the server
would read whatever its signal buffer holds.

The printf conversions are reproduced: ``%u`` prints a word as unsigned, ``%d``
as a signed 32-bit value, ``%x`` in lower-case hex, and 32/64-bit arithmetic
wraps as in C. Typos and double spaces in the server's texts are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from ndbtop.mgm.events.catalogue import START_TYPE_TEXTS, Severity
from ndbtop.mgm.events.exitcodes import exit_texts
from ndbtop.mgm.version import version_string

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF

DBTC, DBDIH, DBLQH, DBACC, DBTUP, DBDICT = 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA
DBQLQH = 0x10B
"""Block numbers some texts name (``BlockNumbers.h``)."""

NODE_BITMASK_WORDS = 8
"""``NodeBitmask::Size`` (``MAX_NODES`` 256): the widest mask the server's text buffers hold."""


def to_int32(value: int) -> int:
    """A 32-bit word as ``%d`` prints it."""
    value &= MASK32
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


def ref_to_node(ref: int) -> int:
    """The node id of a block reference (``refToNode``)."""
    return ref & 0xFFFF


class _Signal:
    """Read access to signal words with the server's conventions."""

    __slots__ = ("length", "words")

    def __init__(self, words: Sequence[int]) -> None:
        self.words = tuple(w & MASK32 for w in words)
        self.length = len(self.words) + 1

    def u(self, index: int) -> int:
        """Word ``index`` (1-based, like ``theData``) as unsigned."""
        if 1 <= index <= len(self.words):
            return self.words[index - 1]
        return 0

    def d(self, index: int) -> int:
        """Word ``index`` as signed 32-bit."""
        return to_int32(self.u(index))

    def u64(self, lo: int, hi: int) -> int:
        """``lo + (hi << 32)``."""
        return self.u(lo) + (self.u(hi) << 32)


def _c_div(a: int, b: int) -> int:
    """C ``int`` division: truncates toward zero; ``INT_MIN / -1`` wraps."""
    q = abs(a) // abs(b)
    return to_int32(q if (a >= 0) == (b >= 0) else -q)


def pack_string(text: str) -> tuple[int, ...]:
    """Pack a text into words as a data node sends InfoEvent/WarningEvent (NUL-terminated).

    The bytes are laid out little-endian in each word, as on x86 servers.
    """
    raw = text.encode("utf-8") + b"\x00"
    raw += b"\x00" * (-len(raw) % 4)
    return tuple(int.from_bytes(raw[i : i + 4], "little") for i in range(0, len(raw), 4))


def unpack_string(words: Sequence[int]) -> str:
    """The NUL-terminated string packed in ``words`` (the inverse of :func:`pack_string`)."""
    raw = b"".join((w & MASK32).to_bytes(4, "little") for w in words)
    return raw.split(b"\x00", 1)[0].decode("utf-8", errors="replace")


def _mask_words(s: _Signal, start: int, size: int) -> tuple[int, ...]:
    """``size`` words from signal word ``start``; words past the signal are left out."""
    available = max(0, min(size, len(s.words) + 1 - start))
    return tuple(s.u(start + i) for i in range(available))


def _mask_hex(s: _Signal, start: int, size: int) -> str:
    """``BitmaskImpl::getText``: 8 hex digits per word, highest word first."""
    size = min(size, NODE_BITMASK_WORDS)
    words = _mask_words(s, start, size)
    words += (0,) * (size - len(words))
    return "".join(f"{w:08x}" for w in reversed(words))


def _mask_bits(s: _Signal, start: int, size: int) -> list[int]:
    return [
        i * 32 + bit
        for i, w in enumerate(_mask_words(s, start, size))
        for bit in range(32)
        if w >> bit & 1
    ]


def _mask_pretty(s: _Signal, start: int, size: int) -> str:
    """``BaseString::getPrettyText``: ``1, 2 and 3``."""
    bits = _mask_bits(s, start, size)
    out = []
    delimiter = ""
    for found, bit in enumerate(bits, start=1):
        out.append(f"{delimiter}{bit}")
        delimiter = ", " if found < len(bits) - 1 else " and "
    return "".join(out)


def _restart_action(action: int) -> str:
    if action == 0:
        return ""
    out = ", restarting"
    if action & 2:
        out += ", no start"
    if action & 4:
        out += ", initial"
    return out


def _start_phase_completed(s: _Signal) -> str:
    type_text = START_TYPE_TEXTS.get(s.u(2))
    if type_text is None:
        return f"Start phase {s.u(1)} completed (unknown = {s.d(2)})"
    return f"Start phase {s.u(1)} completed {type_text}"


_CM_REGREF_CAUSES = {
    0: "Busy",
    1: "Election with wait = false",
    2: "Election with wait = false",
    3: "Not president",
    4: "Election without selecting new candidate",
}


def _ndb_stop_forced(s: _Signal) -> str:
    signum, error, sphase, extra = s.d(2), s.d(3), s.d(4), s.d(5)
    action = _restart_action(s.u(1)) if signum else ""
    reason = f" Initiated by signal {signum}." if signum else ""
    if error:
        message, class_text, status_text = exit_texts(error)
        reason += f" Caused by error {error}: '{message}({class_text}). {status_text}'."
        if extra != 0:
            reason += f" (extra info {extra})"
    phase = f" Occurred during startphase {s.u(4)}." if sphase < 255 else ""
    return f"Forced node shutdown completed{action}.{phase}{reason}"


def _ndb_stop_completed(s: _Signal) -> str:
    signum = f" Initiated by signal {s.d(2)}." if s.u(2) else ""
    return f"Node shutdown completed{_restart_action(s.u(1))}.{signum}"


def _node_fail_completed(s: _Signal) -> str:
    if s.u(1) == 0:
        if s.u(3) != 0:
            return f"Node {s.u(3)} completed failure of Node {s.u(2)}"
        return f"All nodes completed failure of Node {s.u(2)}"
    block = {DBTC: "DBTC", DBDICT: "DBDICT", DBDIH: "DBDIH", DBLQH: "DBLQH", DBQLQH: "DBQLQH"}
    return f"Node failure of {s.u(2)} {block.get(s.u(1), '')} completed"


_ARBIT_ERRORS = {
    91: "invalid arbitrator-ticket",
    92: "too many requests",
    93: "invalid state",
    94: "timeout",
}


def _arbit_err_text(code: int) -> str:
    return _ARBIT_ERRORS.get(code, f"unknown error [code={code}]")


def _arbit_state(s: _Signal) -> str:
    code, state, node = s.u(1) & 0xFFFF, s.u(1) >> 16, s.u(2)
    ticket = f"{s.u(3):08x}{s.u(4):08x}"
    if code == 11:
        return f"President restarts arbitration thread [state={state}]"
    if code == 22:
        return f"Prepare arbitrator node {node} [ticket={ticket}]"
    if code == 23:
        return f"Receive arbitrator node {node} [ticket={ticket}]"
    if code == 31:
        return f"Started arbitrator node {node} [ticket={ticket}]"
    if code == 32:
        return f"Lost arbitrator node {node} - process failure [state={state}]"
    if code == 33:
        return f"Lost arbitrator node {node} - process exit [state={state}]"
    return f"Lost arbitrator node {node} - {_arbit_err_text(code)} [state={state}]"


_ARBIT_RESULTS = {
    41: "Arbitration check lost - less than 1/2 nodes left",
    42: "Arbitration check won - all node groups and more than 1/2 nodes left",
    43: "Arbitration check won - node group majority",
    44: "Arbitration check lost - missing node group",
    45: "Network partitioning - arbitration required",
    48: "Network partitioning - no arbitrator available",
    49: "Network partitioning - no arbitrator configured",
}


def _arbit_result(s: _Signal) -> str:
    code, state = s.u(1) & 0xFFFF, s.u(1) >> 16
    if code in _ARBIT_RESULTS:
        return _ARBIT_RESULTS[code]
    if code == 46:
        return f"Arbitration won - positive reply from node {s.u(2)}"
    if code == 47:
        return f"Arbitration lost - negative reply from node {s.u(2)}"
    if code == 50:
        mask = _mask_hex(s, 5, NODE_BITMASK_WORDS)
        return f"Continuing after wait for external arbitration, nodes: {mask}"
    return f"Arbitration failure - {_arbit_err_text(code)} [state={state}]"


def _trans_report_counters(s: _Signal) -> str:
    text = (
        f"Trans. Count = {s.u(1)}, Commit Count = {s.u(2)}, Read Count = {s.u(3)}, "
        f"Simple Read Count = {s.u(4)}, Write Count = {s.u(5)}, AttrInfo Count = {s.u(6)}, "
        f"Concurrent Operations = {s.u(7)}, Abort Count = {s.u(8)} Scans = {s.u(9)} "
        f"Range scans = {s.u(10)}"
    )
    if s.length <= 11:
        return text
    return f"{text}, Local Read Count = {s.u(11)} Local Write Count = {s.u(12)}"


_TRANSPORTER_ERRORS = {
    0x0: "No error",
    0x1: "Error found during closing of socket",
    0x2: "Error found before accept. The transporter will retry",
    0x8003: "Error found in message (invalid message length)",
    0x8004: "Error found in message (checksum)",
    0x5: "Error found while creating socket(can't create socket)",
    0x6: "Error found while binding server socket",
    0x7: "Error found while listening to server socket",
    0x8: "Error found during accept(accept return error)",
    0x800B: "The remote node has disconnected",
    0x800C: "Unable to check shm segment",
    0xD: "Unable to create shm segment",
    0xE: "Unable to attach shm segment",
    0xF: "Unable to remove shm segment",
    0x10: "Sig ID too small",
    0x11: "Sig ID too large",
    0x8012: "Wait stack was full",
    0x8013: "Receive buffer was full",
    0x8014: "Send buffer was full,and trying to force send fails",
    0x15: "Send failed for unknown reason(signal lost)",
    0x16: "The send buffer was full, but sleeping for a while solved",
    0x8023: "Error found in message (unsupported byte order)",
    0x8024: "Error found in message (unsupported feature compressed)",
}
"""``TransporterError`` codes (``TE_DO_DISCONNECT`` = 0x8000 included) and their texts."""


def _transporter_error(s: _Signal) -> str:
    what = _TRANSPORTER_ERRORS.get(s.u(2), "unknown error")
    return f"Transporter to node {s.d(1)} reported error 0x{s.u(2):x}: {what}"


def _redo_status(s: _Signal) -> str:
    total = (s.u(6) << 32) + s.u(7)
    free = (s.u(8) << 32) + s.u(9)
    # The server divides by zero when total is 0; print 0 instead.
    percent = ((100 * free) & MASK64) // total & MASK32 if total else 0
    return (
        f"Logpart: {s.u(1)} head=[ file: {s.u(2)} mbyte: {s.u(3)} ] "
        f"tail=[ file: {s.u(4)} mbyte: {s.u(5)} ] total mb: {total} free mb: {free} "
        f"free%: {percent}"
    )


def _undo_records_executed(s: _Signal) -> str:
    line = {DBTUP: "DBTUP", DBACC: "DBACC"}.get(s.u(1), "")
    rest = " ".join(str(s.d(i)) for i in range(3, 12))
    return f" UNDO {line} {s.d(2)} [{rest}]"


def _convert_unit(value: int) -> tuple[int, str]:
    if value < 16 * 1024:
        return value, "B"
    if value < 16 * 1024 * 1024:
        return (value + 1023) // 1024, "KB"
    return ((value + 1024 * 1024 - 1) & MASK32) // (1024 * 1024), "MB"


def _convert_unit64(value: int) -> tuple[int, str]:
    if value >> 32 == 0:
        return _convert_unit(value)
    if value % (1 << 30) == 0:
        return value >> 30, "GB"
    return ((value + (1 << 20) - 1) & MASK64) >> 20, "MB"


def _buffer_sizes(used: int, alloc: int, max_: int, wide: bool) -> str:
    """``max=... used=... alloc=...`` of the EventBufferStatus texts."""
    convert = _convert_unit64 if wide else _convert_unit
    if used == 0:
        used_text = "used=0B"
    else:
        percent = (((used * 100) & MASK64) // max_) & MASK32 if max_ else 0
        value, unit = convert(used)
        used_text = f"used={value}{unit}" + (f"({percent}% of max)" if max_ else "")
    if alloc == 0:
        alloc_text = "alloc=0B"
    else:
        value, unit = convert(alloc)
        alloc_text = f"alloc={value}{unit}"
    if max_ == 0:
        max_text = "max=unlimited"
    else:
        value, unit = convert(max_)
        max_text = f"max={value}{unit}"
    return f"{max_text} {used_text} {alloc_text}"


_REPORT_REASONS = (
    "NO_REPORT",
    "COMPLETELY_BUFFERING",
    "PARTIALLY_DISCARDING",
    "COMPLETELY_DISCARDING",
    "PARTIALLY_BUFFERING",
    "BUFFERED_EPOCHS_OVER_THRESHOLD",
    "ENOUGH_FREE_EVENTBUFFER",
    "LOW_FREE_EVENTBUFFER",
    "EVENTBUFFER_USAGE_HIGH",
)


def _report_reason(reason: int) -> str:
    return _REPORT_REASONS[reason] if reason < len(_REPORT_REASONS) else "UNKNOWN reason code"


def _event_buffer_status(s: _Signal) -> str:
    sizes = _buffer_sizes(s.u(1), s.u(2), s.u(3), wide=False)
    return (
        f"Event buffer status: {sizes} apply_epoch={s.u(5)}/{s.u(4)} latest_epoch={s.u(7)}/{s.u(6)}"
    )


def _event_buffer_status2(s: _Signal) -> str:
    sizes = _buffer_sizes(s.u(1), s.u(2), s.u(3), wide=False)
    return (
        f"Event buffer status (0x{s.u(8):x}): {sizes}latest_consumed_epoch={s.u(5)}/{s.u(4)} "
        f"latest_buffered_epoch={s.u(7)}/{s.u(6)} report_reason={_report_reason(s.u(9))}"
    )


def _event_buffer_status3(s: _Signal) -> str:
    sizes = _buffer_sizes(s.u64(1, 10), s.u64(2, 11), s.u64(3, 12), wide=True)
    return (
        f"Event buffer status (0x{s.u(8):x}): {sizes} latest_consumed_epoch={s.u(5)}/{s.u(4)} "
        f"latest_buffered_epoch={s.u(7)}/{s.u(6)} report_reason={_report_reason(s.u(9))}"
    )


def _memory_usage(s: _Signal) -> str:
    gth, size, used, total, block = s.d(1), s.d(2), s.d(3), s.d(4), s.d(5)
    percent = _c_div(to_int32(used * 100), total) if total else 0
    what = {DBACC: "Index", DBTUP: "Data"}.get(block, "<unknown>")
    trend = "is" if gth == 0 else ("increased to" if gth > 0 else "decreased to")
    return f"{what} usage {trend} {percent}%({used} {_c_div(size, 1024)}K pages of total {total})"


def _backup_completed(s: _Signal) -> str:
    return (
        f"Backup {s.u(2)} started from node {ref_to_node(s.u(1))} completed. "
        f"StartGCP: {s.u(3)} StopGCP: {s.u(4)} #Records: {s.u64(6, 12)} "
        f"#LogRecords: {s.u64(8, 14)} Data: {s.u64(5, 11)} bytes Log: {s.u64(7, 13)} bytes"
    )


def _backup_status(s: _Signal) -> str:
    if not s.u(1):
        return "Backup not started"
    return (
        f"Local backup status: backup {s.u(2)} started from node {ref_to_node(s.u(1))}\n"
        f" #Records: {s.u64(5, 6)} #LogRecords: {s.u64(9, 10)}\n"
        f" Data: {s.u64(3, 4)} bytes Log: {s.u64(7, 8)} bytes"
    )


def _log_file_init_status(s: _Signal) -> str:
    if s.u(2):
        return (
            f"Local redo log file initialization status: #Total files: {s.u(2)}, "
            f"Completed: {s.u(3)} #Total MBytes: {s.u(4)}, Completed: {s.u(5)}"
        )
    return f"Node {ref_to_node(s.u(1))}: Log file initializtion completed"


def _single_user(s: _Signal) -> str:
    kind = s.u(1)
    if kind == 0:
        return "Entering single user mode"
    if kind == 1:
        return f"Entered single user mode Node {s.d(2)} has exclusive access"
    if kind == 2:
        return "Exiting single user mode"
    return f"Unknown single user report {s.d(1)}"


def _start_report(s: _Signal) -> str:
    time, size = s.u(2), s.u(3)
    masks = [_mask_pretty(s, 4 + ((k * size) & MASK32), size) for k in range(5)]
    if s.length < (4 + 5 * size) & MASK32:
        masks[4] = "<unknown>"
    all_, connected, no_wait, missing, no_nodegroup = masks
    kind = s.u(1)
    if kind == 1:
        return (
            f"Initial start, waiting for {missing} to connect,  nodes [ all: {all_} "
            f"connected: {connected} no-wait: {no_wait} ]"
        )
    if kind == 2:
        return (
            f"Waiting until nodes: {missing} connects, nodes [ all: {all_} "
            f"connected: {connected} no-wait: {no_wait} ]"
        )
    if kind == 3:
        return (
            f"Waiting {time} sec for nodes {missing} to connect, nodes [ all: {all_} "
            f"connected: {connected} no-wait: {no_wait} ]"
        )
    if kind == 4:
        return (
            f"Waiting for non partitioned start, nodes [ all: {all_} connected: {connected} "
            f"missing: {missing} no-wait: {no_wait} ]"
        )
    if kind == 5:
        return (
            f"Waiting {time} sec for non partitioned start, nodes [ all: {all_} "
            f"connected: {connected} missing: {missing} no-wait: {no_wait} ]"
        )
    if kind == 6:
        return (
            f"Initial start, waiting {time} for {no_nodegroup} to connect, nodes [ all: {all_} "
            f"connected: {connected} missing: {missing} no-wait: {no_wait} "
            f"no-nodegroup: {no_nodegroup} ]"
        )
    if kind == 7:
        return (
            f"Waiting {time} sec for nodes {missing} to connect, nodes [ all: {all_} "
            f"connected: {connected} no-wait: {no_wait} no-nodegroup: {no_nodegroup} ]"
        )
    if kind == 0x8000:
        return f"Initial start with nodes {connected} [ missing: {missing} no-wait: {no_wait} ]"
    if kind == 0x8001:
        return f"Start with all nodes {connected}"
    if kind == 0x8002:
        return f"Start with nodes {connected} [ missing: {missing} no-wait: {no_wait} ]"
    if kind == 0x8003:
        return (
            f"Start potentially partitioned with nodes {connected}  [ missing: {missing} "
            f"no-wait: {no_wait} ]"
        )
    return f"Unknown startreport: 0x{kind:x} [ {all_} {connected} {no_wait} {missing} ]"


def _subscription_status(s: _Signal) -> str:
    kind = s.u(1)
    if kind == 1:
        return (
            f"Disconnecting node {s.u(2)} because it has exceeded MaxBufferedEpochs "
            f"({s.u(5)} >= {s.u(6)}), epoch {s.u(4)}/{s.u(3)}"
        )
    if kind == 2:
        return (
            "Nodefailure while out of event buffer: informing subscribers of possibly missing "
            f"event data, epoch {s.u(4)}/{s.u(3)}"
        )
    if kind == 3:
        return f"Forcing disconnect of node {s.u(2)} as it did not connect within {s.u(3)} seconds."
    return ""


def _run_redo(s: _Signal) -> str:
    logpart, phase, startgci, currgci, stopgci = (s.u(i) for i in range(1, 6))
    head = f"Log part: {logpart} phase: {phase}"
    if currgci == startgci:
        return (
            f"{head} run redo from  gci: {startgci} (file: {s.u(6)} mb: {s.u(7)}) to  "
            f"gci: {stopgci} (file: {s.u(10)} mb: {s.u(11)})"
        )
    if currgci == stopgci:
        return f"{head} found stop  gci: {currgci} (file: {s.u(8)} mb: {s.u(9)})"
    return f"{head} at  gci: {currgci} (file: {s.u(8)} mb: {s.u(9)})"


def _connect_check_started(s: _Signal) -> str:
    count, reason, causing, size = s.u(1), s.u(2), s.u(3), s.u(4)
    others = _mask_hex(s, 5, size)
    if reason:
        why = {4: "Heartbeat failure", 9: "Connectivity check request"}.get(reason, "UNKNOWN")
        return (
            f"Connectivity Check of {count} other nodes ({others}) started due to {why} "
            f"from node {causing}."
        )
    suspect_start = 5 + size
    suspects = _mask_hex(s, suspect_start, size)
    suspect_count = len(_mask_bits(s, suspect_start, size))
    return (
        f"Connectivity Check of {count} nodes ({others}) restarting due to {suspect_count} "
        f"suspect nodes ({suspects})."
    )


def _connect_check_completed(s: _Signal) -> str:
    checked, suspect, failed = s.u(1), s.u(2), s.u(3)
    head = f"Connectivity Check completed on {checked} nodes"
    if (failed + suspect) & MASK32 == 0:
        return f"{head}, connectivity ok"
    if failed > 0:
        if suspect > 0:
            return (
                f"{head}.  {failed} nodes failed.  {suspect} nodes still suspect, repeating check."
            )
        return f"{head}.  {failed} nodes failed.  Connectivity now OK"
    return f"{head}.  {suspect} nodes still suspect, repeating check."


def _node_fail_rejected(s: _Signal) -> str:
    reason, failed, source = s.u(1), s.u(2), s.u(3)
    why = {9: "Connect Check Failure", 5: "Link Failure"}.get(reason, "Unknown")
    return (
        f"Received FAIL_REP ({why} ({reason})) for node {failed} sourced by suspect node "
        f"{source}.  Rejecting as failure of node {source}."
    )


def _copy_info(what: str) -> Callable[[_Signal], str]:
    def text(s: _Signal) -> str:
        base = f"Node restart completed copy of {what} information"
        return f"{base} to Node {s.u(1)}" if s.length == 2 else base

    return text


def _schema_object(verb: str) -> Callable[[_Signal], str]:
    def text(s: _Signal) -> str:
        return f"{verb} object id: {s.u(1)} version: {s.u(2)} (from {s.u(4)})"

    return text


def _const(text: str) -> Callable[[_Signal], str]:
    return lambda _s: text


_TEXTS: dict[int, Callable[[_Signal], str]] = {
    0: lambda s: f"Node {s.u(1)} Connected",
    1: lambda s: f"Node {s.u(1)} Disconnected",
    2: lambda s: f"Communication to Node {s.u(1)} closed",
    3: lambda s: f"Communication to Node {s.u(1)} opened",
    51: lambda s: f"Node {s.u(1)}: API {version_string(s.u(2), s.u(3))}",
    4: lambda s: f"Global checkpoint {s.u(1)} started",
    5: lambda s: f"Global checkpoint {s.u(1)} completed",
    6: lambda s: (
        f"Local checkpoint {s.u(1)} started. Keep GCI = {s.u(2)} oldest restorable GCI = {s.u(3)}"
    ),
    7: lambda s: f"Local checkpoint {s.u(1)} completed",
    8: lambda s: "Local Checkpoint stopped in CALCULATED_KEEP_GCI" if s.u(1) == 0 else "",
    9: lambda s: (
        f"Table ID = {s.u(2)}, fragment ID = {s.u(3)} has completed LCP on Node {s.u(1)} "
        f"maxGciStarted: {s.d(4)} maxGciCompleted: {s.d(5)}"
    ),
    38: lambda s: f"ACC Blocked {s.u(1)} and TUP Blocked {s.u(2)} times last second",
    73: _redo_status,
    10: lambda s: f"Start initiated ({version_string(s.u(1), s.u(2))})",
    11: lambda s: f"Started ({version_string(s.u(1), s.u(2))})",
    12: _const("STTORRY received after restart finished"),
    13: _start_phase_completed,
    14: lambda s: (
        f"CM_REGCONF president = {s.u(2)}, own Node = {s.u(1)}, "
        f"our dynamic id = {s.u(3) >> 16}/{s.u(3) & 0xFFFF}"
    ),
    15: lambda s: (
        f"CM_REGREF from Node {s.u(2)} to our Node {s.u(1)}. "
        f"Cause = {_CM_REGREF_CAUSES.get(s.u(3), 'No such cause')}"
    ),
    16: lambda s: (
        f"We are Node {s.u(1)} with dynamic ID {s.u(4)}, our left neighbour is Node {s.u(2)}, "
        f"our right is Node {s.u(3)}"
    ),
    17: lambda s: f"{'Cluster' if s.u(1) == 1 else 'Node'} shutdown initiated",
    53: _ndb_stop_completed,
    59: _ndb_stop_forced,
    18: _const("Node shutdown aborted"),
    86: lambda s: f"Node Start completed restore of LCP id: {s.u(1)}",
    19: lambda s: (
        f"Node: {s.d(1)} StartLog: [GCI Keep: {s.d(2)} LastCompleted: {s.d(3)} "
        f"NewestRestorable: {s.d(4)}]"
    ),
    20: lambda s: (
        f"Log part {s.u(1)}, start MB {s.u(2)}, stop MB {s.u(3)}, last GCI, log exec {s.u(4)}"
    ),
    21: _undo_records_executed,
    60: _start_report,
    71: _log_file_init_status,
    72: lambda s: (
        f"Local redo log file initialization completed: #Total files: {s.u(2)}, "
        f"Completed: {s.u(3)} #Total MBytes: {s.u(4)}, Completed: {s.u(5)}"
    ),
    77: lambda s: f"Start reading LCP for table {s.u(1)} fragment: {s.u(2)}",
    78: lambda s: f"Restored LCP for table {s.u(1)} fragment: {s.u(2)} rows: {s.u64(4, 3)}",
    79: _run_redo,
    80: lambda s: f"instace: {s.u(1)} rebuild index: {s.u(2)}",
    22: _copy_info("dictionary"),
    23: _copy_info("distribution"),
    24: lambda s: f"Node restart starting to copy the fragments to Node {s.u(1)}",
    25: lambda s: (
        f"Table ID = {s.u(2)}, fragment ID = {s.u(3)} have been synced to Node {s.u(1)} "
        f"rows: {s.u64(4, 5)} bytes: {s.u64(6, 7)} "
    ),
    26: lambda s: f"Node restart completed copying the fragments to Node {s.u(1)}",
    27: _node_fail_completed,
    28: lambda s: f"Node {s.u(1)} has failed. The Node state at failure was {s.u(2)}",
    29: _arbit_state,
    30: _arbit_result,
    31: _const("GCP Take over started"),
    32: _const("GCP Take over completed"),
    33: _const("LCP Take over started"),
    34: lambda s: f"LCP Take over completed (state = {s.d(1)})",
    82: _connect_check_started,
    83: _connect_check_completed,
    84: _node_fail_rejected,
    35: _trans_report_counters,
    36: lambda s: f"Operations={s.u(1)}",
    37: lambda s: f"Table with ID =  {s.u(1)} created",
    39: lambda s: f"Mean loop Counter in doJob last 8192 times = {s.u(1)}",
    68: lambda s: (
        f"8192 loops,tot {s.u(1)} usec,exec {s.u(3)} extra:loops = {s.u(4)},"
        f"time {s.u(5)},const {s.u(2)}"
    ),
    40: lambda s: f"Mean send size to Node = {s.d(1)} last 4096 sends = {s.u(2)} bytes",
    41: lambda s: f"Mean receive size to Node = {s.d(1)} last 4096 sends = {s.u(2)} bytes",
    50: _memory_usage,
    70: lambda s: (
        f"Signals delivered from thread {s.u(1)}: prio A {s.u(2)} ({s.u(3)} bytes) "
        f"prio B {s.u(4)} ({s.u(5)} bytes)"
    ),
    74: _schema_object("create"),
    75: _schema_object("alter"),
    76: _schema_object("drop"),
    42: _transporter_error,
    43: _transporter_error,
    44: lambda s: f"Node {s.d(1)} missed heartbeat {s.d(2)}",
    45: lambda s: f"Node {s.d(1)} declared dead due to missed heartbeat",
    46: lambda s: unpack_string(s.words),
    69: _subscription_status,
    47: lambda s: f"Node Sent Heartbeat to node = {s.d(1)}",
    48: lambda s: f"Log part {s.u(1)}, log file {s.u(2)}, MB {s.u(3)}",
    49: lambda s: unpack_string(s.words),
    58: _event_buffer_status,
    85: _event_buffer_status2,
    87: _event_buffer_status3,
    52: _single_user,
    # The server aborts if asked for this text; SavedEvent only travels through dump events.
    81: lambda s: "Saved event: " + " ".join(str(w) for w in s.words),
    54: lambda s: f"Backup {s.u(2)} started from node {ref_to_node(s.u(1))}",
    55: lambda s: f"Backup request from {ref_to_node(s.u(1))} failed to start. Error: {s.d(2)}",
    56: _backup_completed,
    57: lambda s: (
        f"Backup {s.u(2)} started from {ref_to_node(s.u(1))} has been aborted. Error: {s.d(3)}"
    ),
    62: _backup_status,
    66: lambda s: f"Restore started: backup {s.u(1)} from node {s.u(2)}",
    63: lambda s: (
        f"Restore meta data: backup {s.u(1)} from node {s.u(2)} #Tables: {s.u(3)}\n"
        f" #Tablespaces: {s.u(4)} #Logfilegroups: {s.u(5)} #datafiles: {s.u(6)} "
        f"#undofiles: {s.u(7)}"
    ),
    64: lambda s: (
        f"Restore data: backup {s.u(1)} from node {s.u(2)} #Records: {s.u64(3, 4)} "
        f"Data: {s.u64(5, 6)} bytes"
    ),
    65: lambda s: (
        f"Restore log: backup {s.u(1)} from node {s.u(2)} #Records: {s.u64(3, 4)} "
        f"Data: {s.u64(5, 6)} bytes"
    ),
    67: lambda s: f"Restore completed: backup {s.u(1)} from node {s.u(2)}",
}


def unknown_text(event_type: int, words: Sequence[int] = ()) -> str:
    """ndbtop's own text for a type the catalogue does not know (not a server text)."""
    data = " ".join(str(w & MASK32) for w in words)
    return f"Unknown event type {event_type}" + (f" [{data}]" if data else "")


def event_text(event_type: int, words: Sequence[int]) -> str:
    """The cluster-log text of an event, without the ``Node <id>: `` prefix.

    ``words[0]`` is signal word 1 (see the module docstring). Unknown types get
    :func:`unknown_text`.
    """
    text = _TEXTS.get(event_type)
    if text is None:
        return unknown_text(event_type, words)
    return text(_Signal(words))


def node_prefix(source_node: int) -> str:
    """``Node <id>: `` as ``EventLogger::getText`` puts it before the text (none for node 0)."""
    return f"Node {source_node}: " if source_node else ""


def cluster_log_line(
    when: datetime,
    source_node: int,
    severity: Severity | int,
    text: str,
    category_name: str = "MgmtSrvr",
) -> str:
    """One cluster-log file line, e.g.
    ``2008-10-24 13:03:03 [MgmtSrvr] INFO     -- Node 10: Start phase 4 completed (initial start)``.
    """
    stamp = when.strftime("%Y-%m-%d %H:%M:%S")
    label = Severity(severity).label
    return f"{stamp} [{category_name}] {label} -- {node_prefix(source_node)}{text}"
