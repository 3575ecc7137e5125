"""``python -m slmbench``: the same command line as the ``slmbench`` script (rules call it this way)."""

from slmbench.cli import main

main()
