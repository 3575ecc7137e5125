"""Model registry, weights fetching and verification."""
