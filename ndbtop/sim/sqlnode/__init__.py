"""A simulated MySQL SQL node serving the ``ndbinfo`` database over the MySQL protocol.

Start one with :func:`start_sql_node` and point pymysql or the ``mysql`` client
at its port. The rows come from an :class:`NdbinfoProvider`; SQL is executed
generically (filters, joins, grouping, ordering), so any SELECT a monitoring
tool issues gets the answer a real server would give, with the same column
types, errors and variables.
"""

from ndbtop.sim.sqlnode.provider import NdbinfoProvider, Row, StaticProvider
from ndbtop.sim.sqlnode.server import SqlNodeServer, start_sql_node
from ndbtop.sim.sqlnode.stats import SqlNodeStats, TableLoad

__all__ = [
    "NdbinfoProvider",
    "Row",
    "SqlNodeServer",
    "SqlNodeStats",
    "StaticProvider",
    "TableLoad",
    "start_sql_node",
]
