"""ndbinfo tables of the dictionary and of each fragment's memory: ``memory_per_fragment``
and ``dict_obj_info``.

The simulated cluster holds a catalogue of tables built once from its size: a few dozen
in a small cluster, 2,000 (each of 8 fragments) from 48 data nodes on. Every table has
its ``PRIMARY`` ordered index; some have a unique index (an ``$unique`` index table) or
a BLOB column (an ``NDB$BLOB_<id>_<col>`` part table), named as NDB names them
(ndbinfo.md §2.8, T-76). One table, ``shop/def/order_events``, is skewed: its fragment 0
holds most of its rows, so the nodes of that fragment's node group fill first.

A fragment lives in one node group, its replicas on every node of the group; a DBINFO
scan returns a row per fragment replica of the started nodes. The sizes follow each
node's DataMemory in use (``memoryusage``): the catalogue is scaled so that a node holds
about as much as it reports used.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import SimDataNode

PAGE = 32768
"""DataMemory page size (bytes): fixed and variable parts are allocated by the page."""
SKEWED = "shop/def/order_events"
"""The skewed table's ``fq_name``."""
SKEWED_SHARE = 0.6
"""The share of the skewed table's rows in its fragment 0."""
_TYPES = {1: "System table", 2: "User table", 3: "Unique hash index", 6: "Ordered index"}
"""``dict_obj_types`` names of the object types served (ndbinfo.md §2.8)."""
_STATE_ONLINE = 4
"""``dict_obj_info.state`` of an online object (T-76 real rows)."""
_SCHEMAS = ("shop", "billing", "auth", "analytics", "inventory")
_WORDS = ("orders", "customers", "payments", "sessions", "items", "events", "accounts",
          "invoices", "stock", "audit", "carts", "tokens", "prices", "shipments", "metrics")
LARGE_CLUSTER = 48
"""Data nodes from which the catalogue has 2,000 tables of 8 fragments."""


@dataclass(frozen=True)
class SimObject:
    """A table, index or BLOB part table of the catalogue."""

    obj_id: int
    obj_type: int
    fq_name: str
    parent: int | None
    """The id of the table it belongs to (a user table's type, 2)."""
    rows: int
    fixed_size: int
    var_size: int
    hash_per_row: int
    fragment_shares: tuple[float, ...]


def _table_names(count: int, rng: random.Random) -> list[str]:
    names = [SKEWED]
    seen = set(names)
    i = 0
    while len(names) < count:
        schema = _SCHEMAS[i % len(_SCHEMAS)]
        word = _WORDS[(i // len(_SCHEMAS)) % len(_WORDS)]
        suffix = "" if i < len(_SCHEMAS) * len(_WORDS) else f"_{i // (len(_SCHEMAS) * len(_WORDS))}"
        name = f"{schema}/def/{word}{suffix}"
        if name not in seen:
            seen.add(name)
            names.append(name)
        i += 1
    rng.shuffle(names)
    return names


def build_catalogue(tables: int, fragments: int, seed: int = 7,
                    falloff: float = 1.1) -> tuple[SimObject, ...]:
    """The tables and their parts: the sizes fall off with rank as ``rank ** -falloff`` (a
    few large tables, a long tail of small ones), one table skewed."""
    rng = random.Random(seed)
    even = tuple(1.0 / fragments for _ in range(fragments))
    skewed = (SKEWED_SHARE, *((1.0 - SKEWED_SHARE) / max(fragments - 1, 1)
                              for _ in range(fragments - 1))) if fragments > 1 else even
    out: list[SimObject] = []
    next_id = 30
    for rank, name in enumerate(_table_names(tables, rng)):
        rows = int(4_000_000 / (rank + 1) ** falloff) + rng.randint(100, 1000)
        if name == SKEWED:
            rows = 3_000_000
        fixed = rng.choice((48, 64, 96, 128, 200))
        var = rng.choice((0, 0, 40, 120, 300))
        shares = skewed if name == SKEWED else even
        table_id = next_id
        out.append(SimObject(table_id, 2, name, None, rows, fixed, var, 16, shares))
        out.append(SimObject(table_id + 1, 6, f"sys/def/{table_id}/PRIMARY", table_id, rows,
                             12, 0, 0, shares))
        next_id += 2
        if rank % 5 == 0:
            out.append(SimObject(next_id, 3, f"sys/def/{table_id}/uk_ref$unique", table_id,
                                 rows, 32, 0, 16, even))
            next_id += 1
        if rank % 7 == 0:
            blob = f"{name.split('/', 1)[0]}/def/NDB$BLOB_{table_id}_3"
            out.append(SimObject(next_id, 2, blob, table_id, rows // 4, 40, 2000, 16, shares))
            next_id += 1
    return tuple(out)


def _pages(used: float) -> int:
    return -(-int(used) // PAGE) * PAGE


class TableTables:
    """The dictionary and each fragment replica's memory, as a DBINFO scan returns them."""

    cluster: SimCluster
    _catalogue: tuple[SimObject, ...] | None = None
    _weights: tuple[tuple[tuple[int, ...], ...], list[float]] | None = None

    def catalogue(self) -> tuple[SimObject, ...]:
        """The cluster's tables and their parts (built at first use)."""
        if self._catalogue is None:
            nodes = len(self.cluster.data_nodes)
            if nodes >= LARGE_CLUSTER:
                # Flatter: 2,000 tables of 8 fragments spread over many node groups.
                self._catalogue = build_catalogue(2000, 8, falloff=0.5)
            else:
                self._catalogue = build_catalogue(40, self._fragments())
        return self._catalogue

    def _groups(self) -> list[list[SimDataNode]]:
        groups: dict[int, list[SimDataNode]] = {}
        for n in sorted(self.cluster.data_nodes.values(), key=lambda n: n.node_id):
            if n.node_group is not None:
                groups.setdefault(n.node_group, []).append(n)
        return [groups[g] for g in sorted(groups)]

    def _fragments(self) -> int:
        groups = self._groups()
        ldm = max((n.type_counts.get("ldm", 1) for g in groups for n in g), default=1)
        return max(min(len(groups) * ldm, 8), 1)

    def _table_dict_obj_info(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        if not nodes:
            return []
        return [(o.obj_type, o.obj_id, 1, _STATE_ONLINE, 2 if o.parent is not None else 0,
                 o.parent or 0, o.fq_name) for o in self.catalogue()]

    def _memory_per_fragment(self, nodes: list[SimDataNode]) -> list[tuple[object, ...]]:
        groups = self._groups()
        if not nodes or not groups:
            return []
        serving = {n.node_id for n in nodes}
        catalogue = self.catalogue()
        names = {o.obj_id: o.fq_name for o in catalogue}
        scale = self._scale(catalogue, groups, nodes)
        rows: list[tuple[object, ...]] = []
        for o in catalogue:
            base = o.parent if o.parent is not None else o.obj_id
            parent = names.get(o.parent) if o.parent is not None else None
            for frag, share in enumerate(o.fragment_shares):
                group = groups[(base + frag) % len(groups)]
                count = int(o.rows * share * scale)
                fixed_used = count * o.fixed_size
                fixed_alloc = _pages(fixed_used)
                var_used = count * o.var_size
                var_alloc = _pages(var_used)
                hash_alloc = _pages(count * o.hash_per_row)
                for n in group:
                    if n.node_id not in serving:
                        continue
                    ldm = max(n.type_counts.get("ldm", 1), 1)
                    rows.append((
                        o.fq_name, parent, _TYPES[o.obj_type], o.obj_id, n.node_id,
                        frag % ldm + 1, frag, fixed_alloc, fixed_alloc - fixed_used,
                        o.fixed_size, count, (fixed_alloc - fixed_used) // o.fixed_size,
                        var_alloc, var_alloc - var_used, count if o.var_size else 0,
                        hash_alloc))
        return rows

    def _group_weights(self, groups: list[list[SimDataNode]]) -> list[float]:
        """Each node group's share of the catalogue (rows times row size), unscaled."""
        key = tuple(tuple(n.node_id for n in g) for g in groups)
        cached = self._weights
        if cached is not None and cached[0] == key:
            return cached[1]
        per_group = [0.0] * len(groups)
        for o in self.catalogue():
            base = o.parent if o.parent is not None else o.obj_id
            size = o.fixed_size + o.var_size + o.hash_per_row
            for frag, share in enumerate(o.fragment_shares):
                per_group[(base + frag) % len(groups)] += o.rows * share * size
        self._weights = (key, per_group)
        return per_group

    def _scale(self, catalogue: tuple[SimObject, ...], groups: list[list[SimDataNode]],
               nodes: list[SimDataNode]) -> float:
        """Row counts times this give each node about the DataMemory it reports used."""
        per_group = self._group_weights(groups)
        mean_group = sum(per_group) / len(per_group)
        used = [n.data_pages_used * PAGE for n in nodes]
        mean_used = sum(used) / len(used)
        if mean_used <= 0 or mean_group <= 0:
            return 0.0
        return 0.9 * mean_used / mean_group

    def skew_pages(self, node: SimDataNode, nodes: list[SimDataNode]) -> int:
        """DataMemory pages ``node`` holds beyond the mean node because its node group has
        more of the catalogue (the skewed table's large fragment): ``memoryusage`` adds them,
        so that the node holding it fills first."""
        groups = self._groups()
        if len(groups) < 2 or node.node_group is None or not nodes:
            return 0
        index = next((i for i, g in enumerate(groups) if g[0].node_group == node.node_group),
                     None)
        if index is None:
            return 0
        per_group = self._group_weights(groups)
        mean_group = sum(per_group) / len(per_group)
        extra = (per_group[index] - mean_group) * self._scale(self.catalogue(), groups, nodes)
        return max(int(extra) // PAGE, 0)
