"""The graph export is legible: rendered by Graphviz, the fixture's graph is a readable
picture (dead ends in one box per cause, a legend), not a 5,598 px wide hairball."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from .cli_kb import FIXTURE, invoke


def test_dot_renders_small_and_grouped(blackwell_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    r = invoke("graph", "--session", FIXTURE, "--format", "dot", "-o", str(out), "--db",
               str(blackwell_db))
    assert r.exit_code == 0
    dot = out.read_text()
    assert dot.count("subgraph cluster_cause") == 5  # five causes on the fixture
    assert 'label="cause: SM120 unsupported"' in dot and "cluster_legend" in dot
    svg = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    w, h = (float(x) for x in re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"',
                                        svg).groups())
    assert w < 2000 and h < 1000, (w, h)  # points (today ~1815 × 680)
    # the experiments are folded into their approaches: no node per command
    assert svg.count('class="node"') < 40
