"""slmbench.harness."""
