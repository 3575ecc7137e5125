"""slmbench.site: the reviewer's audit site, static HTML built from the raw shards and the paper's numbers."""

from slmbench.site.build import SiteInputError, SiteSummary, build_site
from slmbench.site.encode import js_call, ranges, script_json, shard_ids
from slmbench.site.numbers import NumberKeyError, NumberTrials, number_trials, tex_text

__all__ = [
    "NumberKeyError", "NumberTrials", "SiteInputError", "SiteSummary", "build_site", "js_call",
    "number_trials", "ranges", "script_json", "shard_ids", "tex_text",
]  # fmt: skip
