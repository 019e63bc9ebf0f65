"""Read-only cluster reader: a live consumer group -> :class:`~assignors.model.Scenario`.

Layers, outside in: ``__main__`` (CLI) -> :mod:`cluster.snapshot` (group -> Scenario) ->
:mod:`cluster.reader` (the read-only requests) -> :mod:`cluster.connection` (settings ->
kafka-python). Errors are :mod:`cluster.errors`. The reader never changes a group: it sends only
the requests in :data:`cluster.reader.ALLOWED_API_KEYS`.

May import: :mod:`assignors` (its public names), :mod:`kafka` (kafka-python) and
:mod:`pyarrow` (the snapshot's offsets table) and :mod:`guarded` (the registry of its private uses).
"""
