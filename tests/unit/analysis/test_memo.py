"""TableMemo: one build per table while it lives, another for another table or a changed length."""

import gc

import pandas as pd

from slmbench.analysis.memo import TableMemo


def test_built_once_per_table_and_again_when_the_table_changes() -> None:
    builds: list[int] = []

    def build(table: pd.DataFrame) -> int:
        builds.append(len(table))
        return len(table)

    memo = TableMemo(build)
    first, second = pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [1, 2]})
    assert memo(first) == memo(first) == 2 and builds == [2]
    assert memo(second) == 2 and builds == [2, 2]  # equal but another table
    first.loc[2] = [3]
    assert memo(first) == 3 and builds == [2, 2, 3]  # grown in place
    del second
    gc.collect()
    memo(pd.DataFrame({"a": []}))
    assert len(memo._held) == 2  # the freed table's entry went when a new one was built
