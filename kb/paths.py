"""Where logkb keeps its files (XDG base directories).

* knowledge base: ``--db``, else ``$LOGKB_DB``, else
  ``$LOGKB_HOME/kb.duckdb``, else ``$XDG_DATA_HOME/logkb/kb.duckdb``
  (``~/.local/share/logkb/kb.duckdb``);
* config: ``$XDG_CONFIG_HOME/logkb/config.toml`` (``~/.config/logkb/config.toml``).
"""

from __future__ import annotations

import os
from pathlib import Path


def user_dir() -> Path:
    """logkb's data directory (``$LOGKB_HOME`` wins, for tests and portable setups)."""
    home = os.environ.get("LOGKB_HOME")
    if home:
        return Path(home)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "logkb"


def default_db() -> Path:
    env = os.environ.get("LOGKB_DB")
    if env:
        return Path(env)
    return user_dir() / "kb.duckdb"


def config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "logkb" / "config.toml"
