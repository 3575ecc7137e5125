"""slmbench.records: the record format, in one place.

``schema`` (a trial record and its events, versioned pydantic models), ``ledger`` (shard files: locked appends with
fsync, a strict reader, the cut of a torn last line), ``shard_cache`` (tables derived per shard, kept while the
shard and the package hold), ``fingerprint`` (where a trial ran), ``hashing`` (file and source hashes),
``atomic`` (atomic, deterministic writes of derived files) and ``imported`` (what marks a record of an imported
study). The modules are imported by name: a command loads only the ones it uses.
"""
