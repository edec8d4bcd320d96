"""``python -m bench NAME [args]``: run one benchmark (``ingest``, ``agents``, ``graph``,
``home``, ``replay``, ``tui``, ``search``, ``secrets``, ``labels``, ``labels-misses``, ``decisions``,
``labels-metrics``, ``categories``, ``many``, ``extract``, ``mcp``, ``team``, ``rerun``,
``scale``, ``peers``, ``codex-audit``, ``ab``, ``diff``, ``rules``, ``readers``,
``rule-support``, ``signals``, ``graph-state``, ``prose-classes``,
``ablate``, ``loso``, ``loso-metrics``, ``cause-reach``)."""

from __future__ import annotations

import importlib
import sys

BENCHES = {"ingest": "bench.ingest_bench", "home": "bench.home_bench",
           "agents": "bench.agents_bench", "graph": "bench.graph_bench", "replay": "bench.replay_bench",
           "tui": "bench.tui_bench", "search": "bench.search_bench",
           "secrets": "bench.secrets_bench", "labels": "bench.labels_bench",
           "labels-misses": "bench.labels_misses",
           "categories": "bench.categories_bench", "many": "bench.many_bench",
           "extract": "bench.extract_bench", "mcp": "bench.mcp_bench", "team": "bench.team_bench",
           "rerun": "bench.rerun_bench", "codex-audit": "bench.codex_audit",
           "labels-metrics": "bench.labels_metrics",
           "scale": "bench.scale_bench", "peers": "bench.peers_bench",
           "ab": "bench.ab_bench", "diff": "bench.store_diff",
           "rules": "bench.rules_census",
           "readers": "bench.readers_bench",
           "rule-support": "bench.rule_support",
           "signals": "bench.signals_bench",
           "graph-state": "bench.graph_state_bench",
           "prose-classes": "bench.prose_classes",
           "decisions": "bench.decisions_bench",
           "ablate": "bench.ablate_bench", "loso": "bench.loso_bench",
           "loso-metrics": "bench.loso_metrics",
           "cause-reach": "bench.cause_reach"}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in BENCHES:
        print(f"usage: python -m bench {{{','.join(BENCHES)}}} [options]", file=sys.stderr)
        sys.exit(2)
    name = sys.argv.pop(1)
    importlib.import_module(BENCHES[name]).main(sys.argv[1:])


if __name__ == "__main__":
    main()
