"""slmbench.analysis: statistics, analysis topics and the paper's numbers with provenance."""

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "Number": "numbers", "TopicResult": "numbers", "BootstrapResult": "stats_bootstrap",
    "cluster_bootstrap": "stats_bootstrap", "Correlation": "stats_corr", "correlate": "stats_corr",
    "fisher_z_interval": "stats_corr", "pass_at_k": "stats_passk", "pass_hat_k": "stats_passk",
    "Rate": "stats_rates", "cohens_h": "stats_rates", "is_eligible": "stats_rates",
    "newcombe_diff": "stats_rates", "wilson_interval": "stats_rates", "PairComparison": "stats_tests",
    "fisher_p": "stats_tests", "flip_binomial_p": "stats_tests", "mcnemar_p": "stats_tests",
    "pairwise_fisher": "stats_tests", "pairwise_paired": "stats_tests", "paired_sign_p": "stats_tests",
    "wilson_share_interval": "stats_rates",
}  # fmt: skip
"""Where each re-exported name lives; imported on first use, so that importing a submodule (the topic registry
that every Snakemake start reads) does not load scipy and statsmodels."""


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"slmbench.analysis.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'slmbench.analysis' has no attribute {name!r}")


__all__ = [
    "BootstrapResult", "Correlation", "Number", "Rate", "TopicResult", "cluster_bootstrap",
    "cohens_h", "pairwise_fisher", "PairComparison", "correlate", "fisher_p", "fisher_z_interval", "flip_binomial_p",
    "is_eligible", "mcnemar_p", "newcombe_diff", "pass_at_k", "pass_hat_k", "wilson_interval",
    "pairwise_paired", "paired_sign_p", "wilson_share_interval",
]  # fmt: skip
