"""``python -m kb``: the ``logkb`` command line."""

from kb.cli import cli

cli()
