"""The trials table in Arrow: dictionary-encoded audit text, the merge with a published study's trials, the sort.

Each step is written for a million trials: what pandas did in gigabytes or tens of seconds, Arrow does in
integer codes, one chunk and threads outside Python's lock.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from slmbench.tidy.columns import DICTIONARY, DICTIONARY_COLUMNS, ROLE_FLAGS, SORT_KEYS


def dictionary_encoded(table: pa.Table) -> pa.Table:
    """``table`` with its ``DICTIONARY_COLUMNS`` as ``DICTIONARY`` (one type in every shard, also where a shard's
    column is all missing)."""
    for name in DICTIONARY_COLUMNS:
        at = table.schema.get_field_index(name)
        table = table.set_column(at, name, table.column(name).cast(DICTIONARY))
    return table


def merged_table(ours: pa.Table, external: pd.DataFrame | None, jobs: int = 1) -> pa.Table:
    """Our trials and a published study's (``external``, given) as one Arrow table, sorted by ``SORT_KEYS``.

    Each column keeps our type (text as ``string``); the published study's values are cast to it, and where
    they cannot be (or our column is all missing) the column takes the type Arrow infers for both sides' values
    together. Joined in Arrow: at a million trials, one data frame of both took gigabytes. The columns are put
    in order in ``jobs`` threads (Arrow works outside Python's lock; one column at a time took ten seconds at
    a million trials).
    """
    columns = [_merged_column(ours.column(name), external, name) for name in ours.column_names]
    order = sort_order(pa.table([columns[ours.column_names.index(k)] for k in SORT_KEYS], names=SORT_KEYS))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        ordered = list(pool.map(lambda column: _one_chunk(column).take(order), columns))
    return pa.table(ordered, names=ours.column_names)


def sort_order(keys: pa.Table) -> pa.Array:
    """The row order of a stable sort by every column of ``keys`` ascending, missing values last (as pandas'
    ``sort_values(kind="stable")`` orders them: a float NaN counts as missing). The keys are made one chunk
    first: Arrow's sort of a table of one chunk per shard took four times as long at a million trials."""
    keys = keys.combine_chunks()
    plain = [
        pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)
        if pa.types.is_floating(column.type)
        else column
        for column in keys.columns
    ]
    return pc.sort_indices(
        pa.table(plain, names=keys.column_names),
        sort_keys=[(name, "ascending", "at_end") for name in keys.column_names],
    )


def _one_chunk(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    """The column as one array when it fits 32-bit offsets (a take across the shards' many chunks resolves
    each index's chunk, seconds at a million trials)."""
    return column.combine_chunks() if column.nbytes < 2**31 - 1 else column


def _merged_column(mine: pa.ChunkedArray, external: pd.DataFrame | None, name: str) -> pa.ChunkedArray:
    """Column ``name`` of our trials with the published study's under it (see ``merged_table``)."""
    target = pa.string() if pa.types.is_large_string(mine.type) else mine.type
    if name in ROLE_FLAGS:
        target = pa.bool_()
    if external is None:
        return mine.cast(target)
    theirs = external[name] if name in external else pd.Series(None, index=external.index, dtype=object)
    theirs_array = pa.Array.from_pandas(theirs.astype(object))
    if not pa.types.is_null(target):
        try:
            return pa.chunked_array([*mine.cast(target).chunks, theirs_array.cast(target)], type=target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    both = pd.concat([mine.to_pandas().astype(object), theirs.astype(object)], ignore_index=True)
    return pa.chunked_array([pa.Array.from_pandas(both)])
