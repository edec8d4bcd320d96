"""Find credentials in transcript text: where they are and what kind they are.

Pure: text in, spans out.  Nothing here stores, hides or prints anything (the
knowledge base stores the findings and redacts on the way out, see
:mod:`kb.redact`).

The rule set is **detect-secrets**' (Yelp, PyPI ``detect-secrets``): the regular
expressions of its regex-based detectors (AWS, GitHub, GitLab, Slack, Stripe,
JWT, SendGrid, npm, PyPI, Azure, Discord, Telegram, Twilio, Mailchimp, Square,
IBM, Cloudant, SoftLayer, basic-auth URLs) and the keyword list of its keyword
detector, taken as data; its scanning machinery (per-line, per-file plugins,
filters, verification over the network) is not used.  logkb adds the kinds it
lacks or catches too narrowly: PEM private key *blocks* (detect-secrets flags
the header line only), today's ``sk-…`` keys (it knows the legacy OpenAI
format only), ``hf_`` and ``github_pat_`` tokens, ``sshpass -p``, ``Bearer``
headers, ``--password``/``--token`` options and high-entropy values assigned to
names like ``*_TOKEN``, ``*_KEY``, ``*SECRET*``, ``PASSWORD``.

Speed: :data:`PREFILTER` is one regular expression that every secret matches;
the knowledge base runs it in DuckDB (RE2, a DFA: ~0.2 s per 100 MB) and hands
only the texts it matches to :func:`find_secrets`, where each rule runs only
when its own literal needle is in the text.  Python's ``re`` cannot do that
first pass fast (an alternation of 40 needles scans ~4 MB/s).

Detectors left out or narrowed, because in agent logs they flag what is not a
secret: public IP addresses (hosts are data here), Artifactory's ``AP…`` words,
the generic entropy scanners (a hash or a build id is not a secret; logkb's own
entropy test applies to assigned values only); the services whose patterns are
bare shapes (Discord, Telegram, Twilio, Mailchimp, IBM, Cloudant, SoftLayer)
fire only in a text that names the service.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # detect-secrets is imported when the rules are first built
    from detect_secrets.plugins.base import RegexBasedDetector

RULESET = "detect-secrets-1.5+logkb-1"
"""Names the rule set; the knowledge base rescans stored text when it changes."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret in one text: ``text[start:end]`` is the secret itself."""

    start: int
    end: int
    kind: str
    """``aws-key``, ``github-token``, ``openai-key``, ``private-key``, ``password``, …"""
    rule: str
    """Which rule found it (a detect-secrets detector name or ``logkb:…``)."""


@dataclass(frozen=True)
class _Rule:
    name: str
    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    """Literal strings one of which the text must hold for the rule to run."""
    group: int = 0
    """Which group of a match is the secret (0: the whole match, -1: the last group that
    matched)."""
    lower: bool = False
    """Needles are lowercase and looked for in the lowercased text."""
    on_lower: bool = False
    """The pattern is written for the lowercased text (it must not start with an
    alternation under ``re.I``: Python's ``re`` then tries every branch at every
    character, 100x slower than a pattern that starts with literals)."""
    check: str = ""
    """Extra test on the value: ``entropy`` (a token-like value), ``password`` (any
    value that is not a placeholder or a variable)."""


def placeholder(kind: str) -> str:
    """What a redacted secret of ``kind`` shows: ``[redacted:aws-key]``."""
    return f"[redacted:{kind}]"


def mask(value: str) -> str:
    """A preview that identifies a secret without showing it: ``AKIA…(20)``."""
    v = value.strip()
    head = v[:4] if len(v) >= 12 else v[:1]
    if v.startswith("-----BEGIN"):
        head = v.split("\n", 1)[0].split("\\n", 1)[0][:40]
    return f"{head}…({len(v)})"


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_PLACEHOLDER_WORDS = frozenset((
    "none", "null", "nil", "true", "false", "yes", "no", "redacted", "password", "passwd",
    "secret", "token", "changeme", "example", "your_token", "your-token", "xxx", "dummy",
    "undefined", "required", "optional", "string", "str", "int", "bool", "env", "value",
    "os.environ", "getenv", "input", "default", "empty", "unset", "self", "this",
))


def _is_placeholder(value: str) -> bool:
    v = value.strip("'\"`")
    low = v.lower()
    if not v or low in _PLACEHOLDER_WORDS or "redacted" in low:
        return True
    if v[0] in "$<{%[(" or v.startswith(("os.", "env.", "process.env", "sys.", "args.")):
        return True
    if set(v) <= set("*xX.-_#?•·0"):  # ****, xxxx, ..., 0000
        return True
    if v.endswith(("()", ")")) or v.endswith(","):  # a call or an argument list
        return True
    return False


def _detect_secrets_rules() -> list[_Rule]:
    """The regex rules of detect-secrets' detectors, with the needle each one needs."""
    from detect_secrets.plugins import (
        aws,
        azure_storage_key,
        basic_auth,
        cloudant,
        discord,
        github_token,
        gitlab_token,
        ibm_cloud_iam,
        ibm_cos_hmac,
        jwt,
        mailchimp,
        npm,
        openai,
        pypi_token,
        sendgrid,
        slack,
        softlayer,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )

    # (detector, kind, needles per pattern (None: skip the pattern), lowercase needles,
    #  which group is the secret)
    table: list[tuple[type[RegexBasedDetector], str, list[tuple[str, ...]], tuple[bool, ...],
                      tuple[int, ...]]] = [
        (aws.AWSKeyDetector, "aws-key", [("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), ("aws",)],
         (False, True), (0, 1)),
        (azure_storage_key.AzureStorageKeyDetector, "azure-key", [("AccountKey=",)],
         (False,), (0,)),
        (basic_auth.BasicAuthDetector, "url-password", [("://",)], (False,), (1,)),
        (cloudant.CloudantDetector, "cloudant-key", [("cloudant",)] * 4,
         (True, True, True, True), (-1, -1, 1, 1)),
        (discord.DiscordBotTokenDetector, "discord-token", [("discord",)], (True,), (0,)),
        (github_token.GitHubTokenDetector, "github-token",
         [("ghp_", "gho_", "ghu_", "ghs_", "ghr_")], (False,), (0,)),
        (gitlab_token.GitLabTokenDetector, "gitlab-token",
         [("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"), ("GR1348941",), ("glcbt-",),
          ("glimt-",), ("glptt-",), ("glagent-",)], (False,) * 6, (0,) * 6),
        (ibm_cloud_iam.IbmCloudIamDetector, "ibm-key", [("ibm",)], (True,), (-1,)),
        (ibm_cos_hmac.IbmCosHmacDetector, "ibm-key", [("ibm",)], (True,), (-1,)),
        (jwt.JwtTokenDetector, "jwt", [("eyJ",)], (False,), (0,)),
        (mailchimp.MailchimpDetector, "mailchimp-key", [("mailchimp",)], (True,), (0,)),
        (npm.NpmDetector, "npm-token", [("_authToken",)], (False,), (1,)),
        (openai.OpenAIDetector, "openai-key", [("T3BlbkFJ",)], (False,), (0,)),
        (pypi_token.PypiTokenDetector, "pypi-token", [("pypi-Ag",)] * 2, (False,) * 2,
         (0,) * 2),
        (sendgrid.SendGridDetector, "sendgrid-key", [("SG.",)], (False,), (0,)),
        (slack.SlackDetector, "slack-token", [("xox",), ("hooks.slack.com",)], (False,) * 2,
         (0,) * 2),
        (softlayer.SoftlayerDetector, "softlayer-key", [("softlayer",), ("softlayer.com",)],
         (True, True), (-1, 1)),
        (square_oauth.SquareOAuthDetector, "square-secret", [("sq0csp-",)], (False,), (0,)),
        (stripe.StripeDetector, "stripe-key", [("k_live_",)], (False,), (0,)),
        (telegram_token.TelegramBotTokenDetector, "telegram-token", [("telegram",)], (True,),
         (0,)),
        (twilio.TwilioKeyDetector, "twilio-key", [("twilio",), ("twilio",)], (True,) * 2, (0,) * 2),
    ]
    rules = []
    for det, kind, needles, lowers, groups in table:
        # detect-secrets types denylist as a property; its detectors set a class attribute
        pats: list[re.Pattern[str]] = list(det.denylist)  # type: ignore[call-overload]
        if len(pats) != len(needles):  # a newer detect-secrets changed a detector
            needles = [needles[0]] * len(pats)
            lowers = (lowers[0],) * len(pats)
            groups = (-1,) * len(pats)
        for pat, nd, low, grp in zip(pats, needles, lowers, groups):
            rules.append(_Rule(det.__name__, kind, pat, nd, group=grp, lower=low))
    return rules


def _keyword_stems() -> tuple[str, ...]:
    """detect-secrets' secret keywords (``api_?key``, ``password``, ``secret``, …)."""
    from detect_secrets.plugins import keyword

    return tuple(keyword.DENYLIST)


_VALUE = r"""(?:"([^"\s\\]{4,400})"|'([^'\s\\]{4,400})'|([^\s"'`;&|,(){}\[\]<>\\]{4,400}))"""


def _logkb_rules() -> list[_Rule]:
    stems = "|".join(_keyword_stems()) + r"|token|auth|credential|key"
    return [
        _Rule("logkb:private-key", "private-key", re.compile(
            r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
            r"(?:.*?-----END \1-----|[A-Za-z0-9+/=\s\\:,-]*)", re.S), ("PRIVATE KEY",)),
        _Rule("logkb:sk-key", "openai-key", re.compile(
            r"(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
            ("sk-",)),
        _Rule("logkb:anthropic-key", "anthropic-key", re.compile(
            r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"), ("sk-ant-",)),
        _Rule("logkb:hf-token", "hf-token", re.compile(
            r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"), ("hf_",)),
        _Rule("logkb:github-pat", "github-token", re.compile(
            r"github_pat_[A-Za-z0-9_]{22,}"), ("github_pat_",)),
        _Rule("logkb:stripe", "stripe-key", re.compile(
            r"(?<![A-Za-z0-9])[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"), ("k_live_", "k_test_")),
        _Rule("logkb:aws-secret", "aws-key", re.compile(
            r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([a-z0-9/+]{40})(?![a-z0-9/+])"),
            ("secret",), group=1, lower=True, on_lower=True),
        _Rule("logkb:sshpass", "password", re.compile(
            r"\bsshpass\s+(?:-[defv]\s*\S*\s+)*-p\s*" + _VALUE), ("sshpass",), group=-1,
            check="password"),
        _Rule("logkb:bearer", "bearer-token", re.compile(
            r"bearer\s+([a-z0-9._~+/=-]{16,})"), ("bearer",), group=1, lower=True,
            on_lower=True, check="entropy"),
        _Rule("logkb:option", "password", re.compile(
            r"(?:^|(?<=[\s'\"]))--?(?:password|passwd|pass|token|api-key|apikey|secret|auth-token)"
            r"(?:=|\s+)" + _VALUE, re.M), ("--", "-p"), group=-1, lower=True, on_lower=True,
            check="password"),
        _Rule("logkb:assignment", "secret", re.compile(
            rf"(?:{stems})[a-z0-9_-]*[\"']?\s*(?:=|:=|:|=>)\s*" + _VALUE),
            ("pass", "pwd", "secret", "token", "key", "auth", "credential", "contras"),
            group=-1, lower=True, on_lower=True, check="assigned"),
    ]


PREFILTER = (
    r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[0-9A-Z]{16}|AccountKey=|://[^\s/@:]+:[^\s/@]+@"
    r"|gh[pousr]_[A-Za-z0-9_]{30}|github_pat_|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent)-"
    r"|GR1348941|eyJ[A-Za-z0-9_=-]{8,}\.|_authToken|T3BlbkFJ|pypi-Ag|SG\.[A-Za-z0-9_-]{22}"
    r"|xox[abposr]-|hooks\.slack\.com|sq0csp-|[rs]k_(?:live|test)_|PRIVATE KEY"
    r"|sk-[A-Za-z0-9_-]{20}|hf_[A-Za-z0-9]{30}|sshpass"
    r"|(?i:bearer\s+[A-Za-z0-9._~+/=-]{16}|discord|telegram|twilio|mailchimp|cloudant"
    r"|softlayer|ibm|aws_?secret"
    r"|(?:pass|pwd|secret|contras)[a-z0-9_.-]*[\"']?\s*(?:=|:)\s*[\"']?[^\s\"']{4}"
    r"|(?:token|key|auth|credential)[a-z0-9_.-]*[\"']?\s*(?:=|:)\s*[\"']?"
    r"[A-Za-z0-9_+=.-][A-Za-z0-9_+/=.-]{15}"
    r"|(?:^|[\s'\"])--?(?:password|passwd|pass|token|api-?key|secret|auth-token)[= ])"
)
# counted repetitions above 8 make RE2's automaton large enough to fall off its fast
# path (2.3x slower on 131 MB of outputs); the rules check the real lengths
PREFILTER = re.sub(r"\{(\d+)\}", lambda m: "{%d}" % min(int(m.group(1)), 8), PREFILTER)
"""What any rule needs, as one regular expression valid in Python's ``re`` and in RE2
(DuckDB's ``regexp_matches``): the knowledge base runs it in SQL over the stored text
and hands :func:`find_secrets` only the texts it matches."""

_RULES: list[_Rule] | None = None
_PREFILTER_RE = re.compile(PREFILTER)


def rules() -> list[_Rule]:
    """Every rule, specific ones first (on overlapping spans the first rule wins)."""
    global _RULES
    if _RULES is None:
        mine = _logkb_rules()
        theirs = _detect_secrets_rules()
        generic = [r for r in theirs if r.kind == "url-password"]  # a token in a URL: its kind
        _RULES = (mine[:-4] + [r for r in theirs if r.kind != "url-password"] + generic
                  + mine[-4:])
    return _RULES


def may_hold_secret(text: str) -> bool:
    """Whether any rule could fire on ``text`` (the cheap test run before the rules)."""
    return _PREFILTER_RE.search(text) is not None


def _span(rule: _Rule, m: re.Match[str], text: str) -> tuple[int, int] | None:
    if rule.group == -1:
        for g in range(m.re.groups, 0, -1):
            if m.group(g) is not None:
                return m.span(g)
        return m.span(0)
    if m.group(rule.group) is None:
        return None
    start, end = m.span(rule.group)
    if rule.group == 0:  # a token pattern that stops early (JWT's lazy tail): to its end
        tail = _JWT_TAIL if rule.kind == "jwt" else _TOKEN_TAIL
        t = tail.match(text, end)
        if t:
            end = t.end()
    return start, end


_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]+")
_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]+")


_STEM_ENDS = ("key", "pass", "passwd", "password", "pwd", "secret", "token", "auth",
              "credential", "credentials", "contrasena", "contraseña", "apikey")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _name_at(text: str, m: re.Match[str]) -> str:
    """The whole identifier an assignment match starts inside (``DB_PASSWORD`` for a
    match at ``PASSWORD``)."""
    i = m.start()
    while i > 0 and text[i - 1] in _NAME_CHARS:
        i -= 1
    j = m.start()
    while j < len(text) and text[j] in _NAME_CHARS:
        j += 1
    return text[i:j].lower()


def _accept(rule: _Rule, m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a candidate, or ``None`` when it is not a secret after all."""
    if _is_placeholder(value):
        return None
    if rule.check == "entropy":
        return rule.kind if len(value) >= 16 and entropy(value) >= 3.0 else None
    if rule.check == "password":
        return rule.kind if len(value) >= 4 else None
    if rule.check == "assigned":
        name = _name_at(text, m)
        if not any(w.endswith(_STEM_ENDS) for w in re.split(r"[_.-]", name) if w):
            return None  # `keyerror:`, `tokenizer_path:`: the keyword is not the name
        if "." in name and "=" not in m.group(0):  # `obj.key: value` in prose or YAML paths
            return None
        if re.search(r"pass|pwd|contras", name):
            # a password is anything assigned that is not a placeholder, but `password:`
            # in prose is followed by words: require a non-word char or digit in it
            if re.fullmatch(r"[A-Za-z]+", value) and len(value) < 12:
                return None
            return "password"
        kind = "token" if "token" in name or "auth" in name else (
            "api-key" if "key" in name else "secret")
        if value.startswith(("/", "./", "../", "~")) or "://" in value:
            return None  # a path or a URL
        if len(value) >= 16 and entropy(value) >= 3.2 and re.search(r"\d", value) \
                and re.search(r"[A-Za-z]", value):
            return kind
        return None
    return rule.kind


def find_secrets(text: str) -> list[Finding]:
    """Every secret in ``text``, in order, overlapping ones merged (first rule wins)."""
    if not text:
        return []
    low: str | None = None
    found: list[Finding] = []
    for rule in rules():
        if rule.lower:
            if low is None:
                low = text.lower()
            hay = low
        else:
            hay = text
        if not any(n in hay for n in rule.needles):
            continue
        if rule.on_lower and len(hay) == len(text):
            matches = rule.pattern.finditer(hay)
        elif rule.on_lower:  # lowercasing changed the length (rare characters): slow path
            matches = re.compile(rule.pattern.pattern, re.I).finditer(text)
        else:
            matches = rule.pattern.finditer(text)
        for m in matches:
            span = _span(rule, m, text)
            if span is None or span[1] - span[0] < 4:
                continue
            value = text[span[0]:span[1]]
            kind = _accept(rule, m, text, value)
            if kind is not None:
                found.append(Finding(span[0], span[1], kind, rule.name))
    return _merge(found)


def _merge(found: Iterable[Finding]) -> list[Finding]:
    """Drop findings that overlap an earlier-ranked one; the rest in text order."""
    kept: list[Finding] = []
    for f in found:  # rules() order: specific first
        if any(f.start < k.end and k.start < f.end for k in kept):
            continue
        kept.append(f)
    return sorted(kept, key=lambda f: (f.start, f.end))


def redact_text(text: str, findings: Iterable[Finding] | None = None) -> str:
    """``text`` with every finding replaced by its placeholder."""
    fs = find_secrets(text) if findings is None else sorted(findings, key=lambda f: f.start)
    if not fs:
        return text
    out, pos = [], 0
    for f in fs:
        if f.start < pos:
            continue
        out.append(text[pos:f.start])
        out.append(placeholder(f.kind))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)
