"""The one error a malformed config.yaml raises."""


class ConfigError(ValueError):
    """config.yaml is malformed: the message names the file, the field and what was expected."""
