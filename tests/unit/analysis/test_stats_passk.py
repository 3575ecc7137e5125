"""pass@k and pass^k checked against brute-force enumeration of subsets."""

from itertools import combinations

import pytest

from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k


@pytest.mark.parametrize(("n", "c", "k"), [(3, 1, 1), (3, 1, 2), (3, 1, 3), (5, 2, 3), (5, 5, 2), (4, 0, 2)])
def test_against_enumeration(n: int, c: int, k: int) -> None:
    runs = [True] * c + [False] * (n - c)
    subsets = list(combinations(runs, k))
    assert pass_at_k(n, c, k) == pytest.approx(sum(any(s) for s in subsets) / len(subsets))
    assert pass_hat_k(n, c, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


def test_published_values() -> None:
    # the published study reports pass@2 = 0.5556 and pass@3 = 0.7037 for 1 of 3 runs (with replacement:
    # 1 - (2/3)^k); the unbiased estimator without replacement gives 2/3 and 1.
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(3, 1, 3) == 1.0


def test_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 0)
