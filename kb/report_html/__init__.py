"""``logkb report``: a static, self-contained HTML site of sessions (no server, no
network: CSS, script, pictures and search index are inside each page).

:func:`build_report` writes it; :mod:`kb.report_html.text` is the one door every
transcript text goes through (control characters made visible, then HTML-escaped).
"""

from kb.report_html.build import PAGE_BUDGET, Written, build_report, page_name

__all__ = ["PAGE_BUDGET", "Written", "build_report", "page_name"]
