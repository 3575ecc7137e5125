"""The one error a file of another tool's format raises when it cannot be read."""


class FormatError(ValueError):
    """A file is not in the format expected, or is corrupt: the message is one line naming the file."""
