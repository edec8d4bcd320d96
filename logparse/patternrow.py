"""A rule row's pattern, compiled once.

Rule tables are rows of frozen dataclasses, each with a ``pattern`` field and a real
example (:mod:`logparse.revision`, :mod:`kb.graph.causechoice`,
:mod:`kb.graph.disproved`, :mod:`kb.graph.rootcause`).  :class:`PatternRow` gives each of
them the same ``regex``: the pattern compiled case-insensitively, on first use, once per
row.  Pure.
"""

from __future__ import annotations

import re
from functools import cached_property


class PatternRow:
    """Mixin for a rule row with a ``pattern`` field."""

    pattern: str

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """``pattern``, compiled case-insensitively once."""
        return re.compile(self.pattern, re.I)
