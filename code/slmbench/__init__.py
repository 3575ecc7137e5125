"""slmbench: how reliable small open-weight language models are as tool-using agents."""

__version__ = "0.1.0"
SCHEMA_VERSION = "1.0"

__all__ = ["SCHEMA_VERSION", "__version__"]
