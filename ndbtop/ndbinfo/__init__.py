"""Reading ``ndbinfo`` through a SQL node: connection options, typed errors, the SQL texts
per NDB version, and the blocking collector that turns them into
:class:`~ndbtop.model.ndbinfo.NdbinfoSample` values.

Everything here blocks on the network; callers run it in a worker thread.
"""
