"""slmbench.analysis: statistics, analysis topics and the paper's numbers with provenance."""

from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.stats_bootstrap import BootstrapResult, cluster_bootstrap
from slmbench.analysis.stats_corr import Correlation, correlate, fisher_z_interval
from slmbench.analysis.stats_passk import pass_at_k, pass_hat_k
from slmbench.analysis.stats_rates import Rate, cohens_h, is_eligible, newcombe_diff, wilson_interval
from slmbench.analysis.stats_tests import (
    PairComparison,
    fisher_p,
    flip_binomial_p,
    mcnemar_p,
    pairwise_fisher,
)

__all__ = [
    "BootstrapResult", "Correlation", "Number", "Rate", "TopicResult", "cluster_bootstrap",
    "cohens_h", "pairwise_fisher", "PairComparison", "correlate", "fisher_p", "fisher_z_interval", "flip_binomial_p",
    "is_eligible", "mcnemar_p", "newcombe_diff", "pass_at_k", "pass_hat_k", "wilson_interval",
]  # fmt: skip
