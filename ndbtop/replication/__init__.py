"""Reading replication from SQL nodes: the statements, their rows as typed values, and the
blocking reader of one SQL node (:mod:`~ndbtop.replication.reader`)."""
