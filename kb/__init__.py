"""logkb's knowledge base: the store, ingest, the graph, replay, search and the CLI."""

__version__ = "0.1.0"
"""Kept equal to ``pyproject.toml``'s version (a test checks): ``logkb --version`` reads it
here instead of loading importlib.metadata."""
