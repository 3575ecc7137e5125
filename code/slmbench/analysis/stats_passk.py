"""pass@k (unbiased estimator) and pass^k for repeated runs of one task."""

from __future__ import annotations


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of ``k`` runs drawn without replacement from ``n`` passes.

    The unbiased estimator of Chen et al. (2021): ``1 - C(n - c, k) / C(n, k)``.

    Args:
        n: Runs of the task.
        c: Passing runs.
        k: Runs drawn, ``1 <= k <= n``.
    """
    from scipy.special import comb  # imported on first use (start-up time)

    _check(n, c, k)
    return float(1.0 - comb(n - c, k, exact=True) / comb(n, k, exact=True))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all ``k`` runs drawn without replacement from ``n`` pass: ``C(c, k) / C(n, k)``."""
    from scipy.special import comb  # imported on first use (start-up time)

    _check(n, c, k)
    return float(comb(c, k, exact=True) / comb(n, k, exact=True))


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
