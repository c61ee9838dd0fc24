"""Named contexts: the clusters of ``$XDG_CONFIG_HOME/ndbtop/clusters.toml``.

The public API, for every part of ndbtop that works with several clusters::

    from ndbtop.contexts import load_contexts

    contexts = load_contexts()          # ~/.config/ndbtop/clusters.toml, checked
    prod = contexts.named("prod")       # one line naming the file's contexts if absent
    prod.connectstring, prod.option("mysql_host"), prod.production, prod.color
    contexts.replicas_of("prod")        # the contexts prod's replicates_to names
    contexts.replication()              # every (source, replica) pair

A context is a table named by the context whose keys are the command line's option
names (:data:`~ndbtop.contexts.keys.KEYS`); an unknown key, a bad value or a
``replicates_to`` naming no other context is refused with its line.
"""

from __future__ import annotations

from ndbtop.contexts.keys import COLOURS, KEYS, NAME
from ndbtop.contexts.load import (
    Context,
    Contexts,
    ContextsError,
    clusters_path,
    load_contexts,
    parse_contexts,
)

__all__ = [
    "COLOURS",
    "KEYS",
    "NAME",
    "Context",
    "Contexts",
    "ContextsError",
    "clusters_path",
    "load_contexts",
    "parse_contexts",
]
