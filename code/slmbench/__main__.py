"""``python -m slmbench``: the command line without relying on PATH (the rules use it)."""

from slmbench.cli import main

main()
