"""slmbench.importers: third-party study data into the trials schema."""

from slmbench.importers.karmacharya2026 import (
    ImportErrorDetail,
    import_study,
    import_summary,
    params_from_tag,
)

__all__ = ["ImportErrorDetail", "import_study", "import_summary", "params_from_tag"]
