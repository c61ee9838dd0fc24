"""The simulated ndb_mgmd's answers about the cluster: version, status, configuration,
log levels and filters, dumped events and sessions (Services.cpp's replies)."""

from __future__ import annotations

from ndbtop.mgm import errorcodes as ec
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.events.text import to_int32
from ndbtop.mgm.replies import CLUSTER_LOGLEVEL_NAMES, SEVERITY_NAMES
from ndbtop.mgm.status import NODE_TYPES, format_status_reply, parse_types_argument
from ndbtop.mgm.version import make_version, split_version, version_string
from ndbtop.mgm.wire import format_block
from ndbtop.sim.cluster.datanode import STARTED
from ndbtop.sim.config_blob import config_reply, pack_v1, pack_v2
from ndbtop.sim.mgmd.handlers import Handlers, Session


class QueryHandlers(Handlers):
    """Commands that read the cluster's state, or set how it reports."""

    _packed: dict[tuple[int, bool], tuple[object, bytes]]

    async def _get_version(self, session: Session, args: dict) -> bytes:
        v = self.cluster.config.ndb_version
        major, minor, build = split_version(v)
        return format_block(
            "version",
            [
                ("id", v),
                ("major", major),
                ("minor", minor),
                ("build", build),
                ("string", version_string(v, v)),
                ("mysql_major", major),
                ("mysql_minor", minor),
                ("mysql_build", build),
            ],
        )

    async def _set_clientversion(self, session: Session, args: dict) -> bytes:
        session.client_version = (args["major"], args["minor"], args["build"])
        return format_block("set clientversion reply", [("result", "Ok")])

    async def _check_connection(self, session: Session, args: dict) -> bytes:
        return format_block("check connection reply", [("result", "Ok")])

    async def _get_mgmd_nodeid(self, session: Session, args: dict) -> bytes:
        return f"get mgmd nodeid reply\nnodeid:{self.node_id}\n\n".encode()

    async def _get_session_id(self, session: Session, args: dict) -> bytes:
        return format_block("get session id reply", [("id", session.id)])

    async def _get_status(self, session: Session, args: dict) -> bytes:
        types = parse_types_argument(str(args["types"])) if "types" in args else NODE_TYPES
        single_user = session.client_version is not None and session.client_version >= (8, 0, 22)
        nodes = self.cluster.node_statuses(self.node_id)
        return format_status_reply(nodes, types, single_user)

    async def _get_config(self, session: Session, args: dict, v2: bool) -> bytes:
        """``get config`` / ``get config_v2``: the configuration the server holds, or with
        ``from_node`` the one a data node runs (Services.cpp ``getConfig``)."""
        cluster = self.cluster
        config = cluster.config
        from_node = int(args.get("from_node", 0))
        if from_node:
            node = cluster.data_nodes.get(from_node)
            error = None
            if from_node > 255:
                error = f"Nodeid {from_node} is greater than max nodeid 255. "
            elif node is None:
                error = (f"Node {from_node} is not a data node. "
                         if config.node_type(from_node) else f"Nodeid {from_node} does not exist. ")
            elif not node.alive:
                error = f"Data node {from_node} is not alive. "
            if error is not None:
                return format_block("get config reply", [("result", error)])
            assert node is not None
            config = node.running_config
        old_form = cluster.config.ndb_version < make_version(8, 0, 0)
        cached = self._packed.get((id(config), v2))
        if cached is None or cached[0] is not config:
            cached = (config, config_reply(pack_v2(config) if v2 else pack_v1(config),
                                           old_form=old_form))
            self._packed[(id(config), v2)] = cached
        return cached[1]

    async def _get_info_clusterlog(self, session: Session, args: dict) -> bytes:
        f = self.cluster.log_filter
        return format_block("clusterlog", [(name, f[i]) for i, name in enumerate(SEVERITY_NAMES)])

    async def _get_cluster_loglevel(self, session: Session, args: dict) -> bytes:
        levels = self.cluster.bus.cluster_log_levels
        return format_block(
            "get cluster loglevel",
            [(name, levels[250 + i]) for i, name in enumerate(CLUSTER_LOGLEVEL_NAMES)],
        )

    async def _set_cluster_loglevel(self, session: Session, args: dict) -> bytes:
        category, level = int(args["category"]), int(args["level"])
        # Services.cpp checks the level first and prints both with %d.
        if level > 15:
            result = f"Invalid loglevel {to_int32(level)}"
        elif not 250 <= category <= 262:
            result = f"Invalid category {to_int32(category - 250)}"
        else:
            self.cluster.set_cluster_loglevel(category, level)
            result = "Ok"
        return format_block("set cluster loglevel reply", [("result", result)])

    async def _set_loglevel(self, session: Session, args: dict) -> bytes:
        level = int(args["level"])
        result = "Ok" if level <= 15 else "Invalid loglevel: "
        return format_block("set loglevel reply", [("result", result)])

    async def _set_logfilter(self, session: Session, args: dict) -> bytes:
        severity, enable = int(args["level"]), int(args["enable"])
        f = self.cluster.log_filter
        if severity in f:
            if enable >= 0x80000000:
                f[severity] = 0 if f[severity] else 1
            else:
                f[severity] = 1 if enable > 0 else 0
            state = f[severity]
        else:
            state = 0
        return format_block("set logfilter reply", [("result", state)])

    async def _dump_events(self, session: Session, args: dict) -> bytes:
        event_type = int(args["type"])
        if event_type not in (50, 62, 81):
            return format_block(
                "dump events reply", [("result", f"ndb_logevent_type {event_type} not supported")]
            )
        wanted: set[int] | None = None
        if "nodes" in args:
            text = str(args["nodes"])
            try:
                wanted = {int(p) for p in text.split(",") if p.strip()}
            except ValueError:
                return format_block("dump events reply", [("result", f"invalid nodes: '{text}'")])
        blocks: list[bytes] = []
        for node in self.cluster.data_nodes.values():
            if not node.serving or (wanted is not None and node.node_id not in wanted):
                continue
            if event_type == 50:
                for words in self.cluster.memory_usage_words(node):
                    blocks.append(encode_parsable(50, node.node_id, words))
            elif event_type == 62:
                words = self.cluster.backups.status_words(node)
                blocks.append(encode_parsable(62, node.node_id, words))
        head = format_block("dump events reply", [("result", "Ok"), ("events", len(blocks))])
        return head + b"".join(blocks)

    async def _dump_state(self, session: Session, args: dict) -> bytes:
        node_id = int(args["node"])
        words = str(args["args"]).split()
        node = self.cluster.data_nodes.get(node_id)
        if node is None or not node.alive:
            result = ec.ndb_error_string(ec.NO_CONTACT_WITH_PROCESS)
        elif len(words) > 25 or any(len(w) > 12 for w in words):
            result = ec.UNKNOWN_ERROR_TEXT
        else:
            if words and words[0] == "1000" and node.state == STARTED:
                for w in self.cluster.memory_usage_words(node):
                    self.cluster.emit(50, node_id, *w)
            result = "Ok"
        return format_block("dump state reply", [("result", result)])

    async def _report_event(self, session: Session, args: dict) -> bytes:
        words = [int(w) & 0xFFFFFFFF for w in str(args["data"]).split()]
        if words:
            header = words[0]
            self.cluster.emit(header & 0xFFFF, header >> 16, *words[1:])
        return format_block("report event reply", [("result", "ok")])

    async def _get_session(self, session: Session, args: dict) -> bytes:
        return format_block("get session reply", [("id", 0)])

    async def _list_sessions(self, session: Session, args: dict) -> bytes:
        return b"\n"

    async def _purge_stale_sessions(self, session: Session, args: dict) -> bytes:
        return format_block("purge stale sessions reply", [("result", "Ok")])
