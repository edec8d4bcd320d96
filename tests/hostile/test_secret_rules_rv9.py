"""Review of round 9's secret kinds (rv9): the faults found, each held by a test.

Every value is made up (built from pieces at import time)."""

from __future__ import annotations

import json

import pytest

from logparse.secrets import may_hold_secret, redact_text, rules
from tests.hostile.test_secret_rules_wallets import FOUND

ROUND9 = ("logkb:aws-configure", "logkb:aws-prompt", "logkb:keypair-bytes", "logkb:mnemonic",
          "logkb:hex-private-key")
_EXAMPLES = [(r.name, ex) for r in rules() if r.name in ROUND9 for ex in (r.example, *r.more)]
CASES = {f"{n}-{i}": ex for i, (n, ex) in enumerate(_EXAMPLES)} | FOUND


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_prefilter_passes_round_9s_secrets_json_escaped(name: str) -> None:
    """The store runs the prefilter over every stored text, a message's raw JSON too (the
    Parquet export's ``raw``, a tool's input): ``{\\"privateKey\\": \\"0x…\\"}`` passed
    the hex rule, which reads escaped quotes, but not the prefilter, so the key was never
    looked for and the export showed it."""
    text, secret = CASES[name]
    for form in (json.dumps(text), json.dumps(json.dumps(text))):
        assert may_hold_secret(form), form
        assert secret[-12:] not in redact_text(form, depth=2)
