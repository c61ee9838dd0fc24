"""The cluster's events, from a ``listen event`` subscription on its own connection.

ndbtop listens at the cluster log's own levels. Data nodes report at the
maximum level over every listener and the cluster log, so a listener that
asks for no more than the cluster log already gets adds no load to the
cluster. When the levels change (for example after CLUSTERLOG STATISTICS=15),
the subscription is renewed with the new levels.

Two exceptions. BACKUP is listened to at level 7 at least (as ``ndb_mgm``'s own
listener, at 15, does), so that the Backup view follows every backup even when
the cluster log's backup level was lowered. Backup events are a handful per
backup, so this costs the cluster nothing. And the findings' rules need
:data:`FINDINGS_LEVELS` (the cluster log's defaults reach them; a cluster log
lowered below them would leave the rules blind): warnings and heartbeats (ERROR 8),
the GCP monitor's limits (INFO 2), arbitration and node failures (NODERESTART 8).
These events come only when something is wrong, so they cost nothing on a healthy
cluster; CHECKPOINT is left as the cluster log has it (the per-fragment LCP events
at 11 are thousands per checkpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ndbtop.collect.health import Health
from ndbtop.compat import AsyncEvent
from ndbtop.errors import MgmError
from ndbtop.mgm.connectstring import MgmAddress
from ndbtop.mgm.events.catalogue import CLUSTER_LOG_DEFAULT_LEVELS, Category, EventType
from ndbtop.mgm.events.decode import Event, decode_event, decode_text_line
from ndbtop.mgm.listener import EventListener
from ndbtop.mgm.tls import TlsOptions
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.clock import Clock
from ndbtop.model.sources import SourceState, SourceStatus

BACKUP_FAILURES = frozenset({EventType.BACKUP_ABORTED, EventType.BACKUP_FAILED_TO_START})
"""The events of a backup that failed (counted in ``backup_failures``)."""
STATE_EVENTS = frozenset({
    EventType.NDB_START_STARTED, EventType.NDB_START_COMPLETED,
    EventType.START_PHASE_COMPLETED, EventType.NDB_STOP_STARTED, EventType.NDB_STOP_ABORTED,
    EventType.NDB_STOP_COMPLETED, EventType.NDB_STOP_FORCED, EventType.DISCONNECTED,
    27, 28,  # NodeFailCompleted, NODE_FAILREP
})
"""Events that change what the Nodes view shows: drawn at once, and ``get status`` is asked
again at once rather than at the next refresh."""
TOLD_STATUS = {
    EventType.NDB_START_STARTED: "STARTING",
    EventType.NDB_START_COMPLETED: "STARTED",
    EventType.NDB_STOP_STARTED: "SHUTTING_DOWN",
}
"""The state an event of the node itself tells, shown until a ``get status`` asked after it."""


_NAME_TO_CATEGORY = {c.loglevel_name: int(c) for c in Category}
BACKUP_LISTEN_LEVEL = 7
"""The threshold of every backup event (BackupStarted ... BackupStatus)."""
FINDINGS_LEVELS = {Category.ERROR: 8, Category.INFO: 2, Category.NODERESTART: 8}
"""The least each category is listened to at for the findings: WarningEvent (ERROR 2),
MissedHeartbeat and DeadDueToHeartbeat (ERROR 8), InfoEvent (INFO 2), ArbitState (6),
ArbitResult (2), NODE_FAILREP and NodeFailCompleted (NODERESTART 8)."""


def levels_from_names(names: dict[str, int] | None) -> dict[int, int]:
    """Listen levels (category number -> level) from ``get cluster loglevel`` names."""
    levels = {int(c): level for c, level in CLUSTER_LOG_DEFAULT_LEVELS.items()}
    for name, level in (names or {}).items():
        if name in _NAME_TO_CATEGORY:
            levels[_NAME_TO_CATEGORY[name]] = level
    backup = int(Category.BACKUP)
    levels[backup] = max(levels.get(backup, 0), BACKUP_LISTEN_LEVEL)
    for category, level in FINDINGS_LEVELS.items():
        levels[int(category)] = max(levels.get(int(category), 0), level)
    return levels


class EventSource:
    """Subscribes to events from the management server ``address()`` names."""

    name = "events"

    def __init__(
        self,
        address: Callable[[], MgmAddress | None],
        levels: Callable[[], dict[str, int] | None],
        clock: Clock,
        on_event: Callable[[Event], None],
        on_update: Callable[[], None],
        tls: TlsOptions | None = None,
        data_nodes: Callable[[], Collection[int] | None] = lambda: None,
    ) -> None:
        self.address = address
        self.data_nodes = data_nodes
        """The configured data nodes, when the configuration is known."""
        self.tls = tls
        self.levels = levels
        self.clock = clock
        self.on_event = on_event
        self.on_update = on_update
        self.health = Health(self.name)
        self.listening_levels: dict[int, int] | None = None
        self.unavailable: tuple[tuple[str, str], ...] = ()
        """Events left out, with why (:func:`ndbtop.mgm.events.admit.refusal`)."""
        self.answered = AsyncEvent()
        """Set once the server answered the subscription, by accepting or refusing it."""
        self.on_reopen: Callable[[], None] | None = None
        """Called when the subscription is open again after it was cut off (or could not
        be opened): the events of the gap were not heard."""
        self._cut = False

    @property
    def status(self) -> SourceStatus:
        """The source's current state."""
        return self.health.status

    async def run(self) -> None:
        """Listen until cancelled, reconnecting with backoff."""
        while True:
            address = self.address()
            if address is None:
                self.health.set_state(SourceState.CONNECTING, "waiting for the management server")
                await self.health.sleep(0.5)
                continue
            wanted = levels_from_names(self.levels())
            listener = EventListener(address, wanted, tls=self.tls)
            try:
                await listener.open()
                self.listening_levels = wanted
                self.health.ok(str(address))
                self.answered.set()
                self.on_update()
                if self._cut:
                    self._cut = False
                    if self.on_reopen is not None:
                        self.on_reopen()

                def alive(wanted: dict[int, int] = wanted) -> bool:
                    # Called after every line, pings included: the stream is alive; stop
                    # when the cluster-log levels changed so the subscription follows them.
                    self.health.ok(None, self.unavailable)
                    return levels_from_names(self.levels()) != wanted

                async for item in listener.items(stop=alive):
                    event = self._decode(item)
                    if event.refused is not None:
                        # Not from a node that can send it: never shown or counted.
                        self.unavailable = (("events refused", f"{event.refused}: left out"),)
                        continue
                    self.on_event(event)
            except MgmError as exc:
                self._cut = True
                delay = self.health.failed(str(exc))
                self.answered.set()
                self.on_update()
                await listener.close()
                await self.health.sleep(delay)
                continue
            await listener.close()

    def _decode(self, item: RawEvent | object) -> Event:
        at = self.clock.wall()
        if isinstance(item, RawEvent):
            return decode_event(item, at, self.data_nodes())
        return decode_text_line(getattr(item, "line", str(item)), at)
