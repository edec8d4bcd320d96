"""The knowledge graph of a campaign: approaches, experiments, dead ends and causes.

``extract`` (rules over event rows) → ``build_graph`` (networkx) → ``store``
(persisted per scope, queried without rebuilding).  A *scope* is a top-level
session together with its subagent sessions.
"""

from kb.graph.build import build_graph
from kb.graph.extract import Extraction, extract

__all__ = ["Extraction", "build_graph", "extract"]
