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
names like ``*_TOKEN``, ``*_KEY``, ``*SECRET*``, ``PASSWORD``; and (issue 24)
``mysql -pPASS``, ``curl -u user:pass``, ``docker login -p``, cookies (``curl -b``,
``Cookie:``), ``Authorization: Basic`` and other ``Authorization`` values, the
userinfo of a URL of any scheme (``redis://:pw@host``), PEM body lines quoted
without their BEGIN line, prefixed tokens folded over two lines, and secrets in
JSON-escaped text (escaped once or more); and wallets' secrets: a keypair's byte
array, ``0x`` hex keys, BIP-39 phrases (after a cue, or with none when the checksum
holds: numbered, in a grid, quoted or hyphenated too), the literal code falls back on
(``os.environ.get("X") or "…"``), Solana keys in base58 (with no cue when the 64 bytes are a seed and its
Ed25519 public key), Stellar secret seeds (their StrKey checksum), Jupiter API keys;
and (safe12) the values of environment variables named ``*_PASS``, ``*_PWD``,
``*_SECRET`` (short ``*_TOKEN`` and ``*_KEY`` ones too); (safe13) a password's or a
secret's name in any case (``admin_pass = …``, ``db_passwd: …``, ``secret_key=…``), a
private key's body in pieces with no BEGIN line, told by its bytes' structure;
(safe13b) a keypair's byte array in pieces (JSON strings, each number quoted, arrays
added), a password's name joined to its head (``adminpass``, ``rootpwd``), a token's or
an API key's name in lower case with a short literal (``github_token = "…"``);
(safe14) such names in camelCase, an HTTP header's or joined in capitals (``apiKey``,
``X-Api-Key``, ``AUTHTOKEN``, ``ADMINPASS``, ``ROOTPW``), passwords on more programs'
command lines (:data:`_CLI_PASSWORDS`), in ``.netrc`` lines, piped to ``sudo -S``, in
a URL's query, short ``Bearer`` values; a path after ``pwd``/``OLDPWD`` is no secret.
(prose14) a password said in prose or after a program's prompt (``my password is
…``, ``Password for user admin: …``, ``pw: …``; the value only, when it is no word),
and a map's key assigned structured text (``cacheKey = "user:1234:profile"``) is none.
Each logkb rule is a table row with
an example (``_Rule.example``); ``tests/hostile/test_secret_rules.py`` walks them.

Speed: :data:`PREFILTERS` are two regular expressions one of which every secret
matches; the knowledge base runs them in DuckDB (RE2, a DFA: ~0.2 s per 100 MB) and hands
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
from itertools import filterfalse, repeat
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # detect-secrets is imported when the rules are first built
    from detect_secrets.plugins.base import RegexBasedDetector

RULESET = "detect-secrets-1.5+logkb-16"
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
    value that is not a placeholder or a variable), ``userpass`` (a password that is not
    a number: ``-u 1000:1000`` is a uid), ``cookie`` (``name=value`` pairs), ``basic``
    (base64 of ``user:password``), ``pembody`` (a line of a PEM key's body)."""
    example: tuple[str, str] = ("", "")
    """A text the rule fires on and the secret it finds there (tests walk them all)."""
    fold: bool = False
    """A token with a fixed prefix: also found when a line break splits it."""
    more: tuple[tuple[str, str], ...] = ()
    """More examples like :attr:`example` (the tests walk them too)."""


def placeholder(kind: str) -> str:
    """What a redacted secret of ``kind`` shows: ``[redacted:aws-key]``."""
    return f"[redacted:{kind}]"


_PUBLIC_PREFIX = re.compile(
    r"(?:A(?:KIA|SIA|BIA|CCA)|gh[pousr]_|github_pat_|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt"
    r"|agent|oas)-|sk-ant-(?:api\d\d-)?|sk-(?:proj-|svcacct-|admin-)?|hf_|xox[abposr]-"
    r"|[rs]k_(?:live|test)_|SG\.|eyJ|pypi-|npm_|sq0csp-|jup_|0x)")
"""The prefixes that name a kind of token and hold none of its secret."""


def mask(value: str) -> str:
    """A preview that identifies a secret without showing any of it: its public prefix
    (``AKIA…(20)``, ``ghp_…(40)``, a PEM block's header) and its length; a password, a
    mnemonic phrase or a random key shows none of its characters (``…(40)``: four letters
    name a BIP-39 word, a keypair's first byte is a byte of the key)."""
    v = value.strip()
    m = _PUBLIC_PREFIX.match(v)
    head = m.group() if m else ""
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
    if low.startswith(("change-me", "changeme", "change_me", "replace-me", "your-", "your_")):
        return True  # `JWT_SECRET=change-me-in-production-use-32-random-bytes`
    return False


_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
"""An upper-case constant's name (``TOKEN_2022_PROGRAM_ID``): code that names a value."""
_PUBLIC = re.compile(r"pub(?:lic)?_?key")
"""A public key's name: what it holds is meant to be shown."""


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
          ("glimt-",), ("glptt-",), ("glagent-",), ("gloas-",)], (False,) * 7, (0,) * 7),
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
            groups = (0,) * len(pats)  # the whole match: never a prefix group
        for pat, nd, low, grp in zip(pats, needles, lowers, groups):
            rules.append(_Rule(det.__name__, kind, pat, nd, group=grp, lower=low,
                               fold=grp == 0 and kind in _FOLDED))
    return rules


def _keyword_stems() -> tuple[str, ...]:
    """detect-secrets' secret keywords (``api_?key``, ``password``, ``secret``, …)."""
    from detect_secrets.plugins import keyword

    return tuple(keyword.DENYLIST)


_FOLDED = frozenset(("aws-key", "github-token", "gitlab-token", "slack-token", "npm-token",
                     "pypi-token", "openai-key", "anthropic-key", "hf-token", "stripe-key",
                     "sendgrid-key", "jwt"))
"""Kinds whose tokens have a fixed prefix: a terminal or an editor may fold them over two
lines, and the finder joins the lines to find them."""


def _x(*parts: str) -> str:
    """A fake secret built from pieces (so that no scanner takes this file for a leak)."""
    return "".join(parts)


_PW = _x("Hunter", "2-", "x9Q!")
"""The example password of the rules below."""
_TOK = _x("Zk3", "mP9qR2", "vX7tL4", "wN8bH6")
_MW = _x("Tr0ub", "&4d;or|x(9)<y>,z")
"""A password with every shell metacharacter, typed unquoted."""

_KEYPAIR = "[" + ",".join(str((i * i * 37 + i * 11 + 5) % 256) for i in range(64)) + "]"
"""A made-up keypair as ``solana-keygen`` writes it: 64 bytes as a JSON array."""
_HEX = _x("6323c46a8f7693e56a2ad5f8c76403f8", "7e9f53e2c9ffa007d16140583c0346c5")
_PHRASE = _x("velvet orbit canyon humble ladder pepper", " ritual sample tobacco unusual wagon zebra")
"""A made-up BIP-39 phrase (12 words of the list)."""


def _example_keypair() -> tuple[str, str]:
    """A made-up Solana keypair in base58 (its seed is a hash of a phrase: no wallet
    holds it) and its seed alone (32 bytes), for the base58 rows' examples.  The public
    half is written out: deriving it imported ``cryptography`` (45 ms) whenever the rules
    were built; the rows' test proves it is the seed's (the rule checks it)."""
    import hashlib

    seed = hashlib.sha256(b"logkb made-up example keypair").digest()
    pub = bytes.fromhex("715b5de058191f66f6a166dbaca517e5" "8b19a5a3181e6eeb3f7d5a27d327b196")
    return b58encode(seed + pub), b58encode(seed)


def _example_phrase() -> str:
    """A made-up BIP-39 phrase with a valid checksum (12 words; entropy: a hash)."""
    import hashlib

    return bip39_phrase(hashlib.sha256(b"logkb made-up example phrase").digest()[:16])


_B58 = "1-9A-HJ-NP-Za-km-z"
"""Base58's alphabet as a character class's body (no ``0``, ``O``, ``I``, ``l``)."""
_WORD_GAP = (r"(?:[ \t\r\n,\"'\[\]>*|`#/._:)-]|\\{1,16}[nrt\"']|[0-9]{1,2}(?![0-9]))"
             r"{1,32}")
"""What stands between two words of a phrase found without a cue: blanks, a line break,
the commas, quotes and brackets of a list of words, as is or JSON-escaped; and as a
wallet shows the words (safe11b): a list's number (``2.``, ``2)``), a quote's ``>``, the
hyphens of words joined by them, Markdown's bold, code and table marks; (safe12) a
number with no dot (``2 word``, ``#2 word``, ``Word 2: x``: the label is skipped by
:func:`_bip39_phrases`), a ``/``, ``.`` or ``_`` joining the words.  A number is one or
two digits and no more (``[0-9]{1,2}`` alone would read ``1234`` four ways: exponential
backtracking on a run of digits)."""
_BYTE = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_GAP = r"(?:\s|\\+[nrt])*"
_PIECE_SEP0 = r"[^0-9A-Za-z]{0,16}"
_PIECE_SEP = (r"(?:[^0-9A-Za-z]{1,16}(?:[A-Za-z_][A-Za-z0-9_.]{0,23}[^0-9A-Za-z]{1,16})?)")
"""Between two numbers of a keypair in pieces (safe13b): up to 16 characters that are no
letter or digit (a comma, the quotes and ``+`` joining strings, ``] + [``, a line break),
with one name in them at most (``]) + bytes([``); a digit after a letter is no number."""
"""White space between a JSON array's items, as is or JSON-escaped (``\\n``)."""

_WRAP_GAP = (r"(?<![ \t])[ \t]*(?:\\{0,8}[\"'`][ \t]*)?(?:[+|\\,-][ \t]*)?"
             r"(?:(?:\r?\n|(?:\\{1,8}r)?\\{1,8}n)[ \t]*){1,3}"
             r"(?:(?:>|#|//|\||\\{0,8}[\"'`(])[ \t]*){0,4}")
"""Between the lines of a wrapped key: blanks a terminal pads a line with, what closes a
line (a string's quote, a ``+`` or a table cell's ``|``; safe12: a ``-`` or a shell's
``\\`` joining the lines), a line break (as is or JSON-escaped; safe12: up to three, a
blank line between pieces), the next line's indent and a quote's, a comment's, a cell's
or a string's marks (``> ``, ``# ``, ``// ``, ``| ``, ``"``), bounded: linear (the blanks
before the break are read from the first of them only: from each, a run of blanks cost
its length squared)."""

_VALUE = (r"""(?:`([^`\s\\]{4,400})`|"([^"\s\\]{4,400})"|'([^'\s\\]{4,400})'"""
          r"""|([^\s"'`;&|,(){}\[\]<>\\]{4,400}))""")
"""An assigned value (``NAME=value``): a query string's ``&`` or a call's ``)`` ends it;
in backquotes, Markdown's code (``**API Key**: `…```)."""
_QUOTED = (r"""(?:\\*"([^"\n\\]{4,400})\\*"|\\*'([^'\n\\]{4,400})\\*'"""
           r"""|`([^`\n\\]{4,400})`)""")
"""A quoted literal in code (what the quotes hold, spaces too; quotes JSON-escaped)."""
_SHORT_PW = _x("Hx9k", "q2Lm7zP")
_PROSE_VALUE = (r"""(?:\\*"([^"\n\\]{4,200})\\*"|\\*'([^'\n\\]{4,200})\\*'"""
                r"""|`([^`\n\\]{4,200})`|([^\s"'`<>\\]{3,399}[^\s"'`<>\\.,;:)]))""")
"""A password said in prose (``logkb:prose-password``): what quotes hold, spaces too, or
one word to white space, a sentence's ``.``, ``,``, ``;``, ``:`` or ``)`` after it left
out (prose14)."""
"""A short password (11 characters, no token: :func:`_token_like` says no)."""
_BOLD = r"(?:\*\*)?"
"""Markdown's bold around a name or after its colon (``**Secret Key**:``, ``**Key:**``)."""

_WORD_UNQUOTED = (r"""(?:[^\s"'\\]|\\[^\snrtu"\\/bf]|"[^"\n]*"|'[^'\n]*')""")
_WORD = (r"""(?:"(\S(?:(?:[^"\\\n]|\\[^\n])*?\S)?)"(?!\S)|'(\S(?:[^'\n]*?\S)?)'(?!\S)"""
         r"|((?:[^\s\"'\\]|\\[^\snrtu\"\\/bf])" + _WORD_UNQUOTED + r"{0,399}))")
"""An option's value (``-p VALUE``, ``--token=VALUE``): one shell word, to its end by
shell quoting rules (rvsafe2).  Unquoted, it runs to white space: ``&``, ``;``, ``|``,
``(`` and the like are part of a password typed unquoted, and stopping at them showed
its tail; a backslash escapes the next character (but ``\\n``, ``\\"``, ``\\u``
of JSON-escaped text end it).  Quoted, it is what the quotes hold, spaces too, when
the quotes are a word of their own (``"mysql --password " + pw`` is code, not a
value)."""


def _cut(value: str, n: int) -> list[str]:
    """``value`` in pieces of ``n`` characters (a key's body wrapped at ``n`` columns)."""
    return [value[i:i + n] for i in range(0, len(value), n)]


def _made_up_rsa_der() -> bytes:
    """The DER of a made-up RSA private key (PKCS#1's shape: a SEQUENCE of the version and
    eight INTEGERs), its numbers bytes of a hash: no key anybody holds, no cryptography
    run, the structure the key-body rows read."""
    import hashlib

    def integer(n: int, seed: bytes) -> bytes:
        body = b""
        while len(body) < n:
            body += hashlib.sha256(seed + bytes([len(body) % 256])).digest()
        body = bytes([body[0] | 0x80]) + body[1:n]
        return b"\x02" + _der_len(n + 1) + b"\x00" + body

    parts = (b"\x02\x01\x00" + integer(256, b"n") + b"\x02\x03\x01\x00\x01"
             + integer(256, b"d") + integer(128, b"p") + integer(128, b"q")
             + integer(128, b"dp") + integer(128, b"dq") + integer(128, b"qi"))
    return b"\x30" + _der_len(len(parts)) + parts


def _der_len(n: int) -> bytes:
    return bytes([n]) if n < 0x80 else (bytes([0x81, n]) if n < 0x100
                                         else bytes([0x82, n >> 8, n & 0xFF]))


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


_RSA_B64 = _b64(_made_up_rsa_der())
"""The made-up key's body in base64, one line (the rows cut it)."""
_B64_PIECE = re.compile(r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9+/=_-])(?!(?<=\\)[nrt]))"
                        r"[A-Za-z0-9+/]{16,}={0,2}"
                        r"(?![A-Za-z0-9+/=_-])")
"""A piece of a key's body: 16 base64 characters or more between other characters (after
a JSON-escaped line break too)."""


_CLI_PASSWORDS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    # (programs, their needles, the option before the password, an example: {} the password)
    (r"redis-cli", ("redis-cli",), r"-a|--pass", "redis-cli -h cache -a {} ping"),
    (r"mongo(?:sh|dump|restore|import|export|stat|top)?", ("mongo",), r"-p|--password",
     "mongosh -u admin -p {} --authenticationDatabase admin"),
    (r"gpg2?", ("gpg",), r"--passphrase", "gpg --batch --passphrase {} -d notes.gpg"),
    (r"zip|unzip|zipcloak", ("zip",), r"-P|--password", "zip -P {} backup.zip db.sql"),
    (r"ssh-keygen", ("ssh-keygen",), r"-N|-P", "ssh-keygen -t ed25519 -N {} -f deploy_key"),
    (r"smbclient", ("smbclient",), r"--password", "smbclient //nas/share --password {}"),
    (r"ldap(?:search|add|modify|delete|passwd|whoami)", ("ldap",), r"-w",
     "ldapsearch -x -D cn=admin -w {} -b dc=x"),
    (r"psexec(?:\.py)?|wmiexec(?:\.py)?|winexe|xfreerdp|rdesktop",
     ("psexec", "wmiexec", "winexe", "xfreerdp", "rdesktop"), r"-p|/p:",
     "xfreerdp /u:admin /p:{} /v:win"),
    (r"x11vnc", ("x11vnc",), r"-passwd|-storepasswd", "x11vnc -storepasswd {} ~/.vnc/passwd"),
)
"""Programs that take a password on their command line and the option that gives it
(safe14), each a row of :func:`_cli_password_rows` with its example."""


def _cli_password_rows() -> list[_Rule]:
    """A row per program of :data:`_CLI_PASSWORDS`, and the ones whose password is glued
    to its option or to a user's name (``7z -pPW``, ``openssl … pass:PW``,
    ``smbclient -U user%PW``, ``htpasswd -b FILE USER PW``)."""
    out = []
    for progs, names, opt, ex in _CLI_PASSWORDS:
        first = names[0]
        out.append(_Rule(f"logkb:cli-{first}", "password", re.compile(
            r"(?:(?<=\\[nrt])|(?<![\w/.-]))(?:" + progs + r")\b[^\n;&|]{0,300}?(?<=[\s'\"])(?:" + opt
            + r")(?:=|:|\s+|(?<=:))" + _WORD), names, group=-1,
            check="password", example=(ex.format(_SHORT_PW), _SHORT_PW)))
    out += [
        _Rule("logkb:cli-7z", "password", re.compile(
            r"(?:(?<=\\[nrt])|(?<![\w/.-]))(?:7z|7za|7zr|unrar|rar)\b[^\n;&|]{0,300}?(?<=\s)-p(?=\S)" + _WORD),
            ("7z", "rar"), group=-1, check="password",
            example=(f"7z x -p{_SHORT_PW} dump.7z", _SHORT_PW)),
        _Rule("logkb:cli-openssl", "password", re.compile(
            r"(?:(?<=\\[nrt])|(?<![\w/.-]))openssl\b[^\n;&|]{0,300}?(?<=\s)-(?:pass(?:in|out)?|passphrase"
            r"|k|kfile)\s+(?:pass:)?" + _WORD), ("openssl",), group=-1, check="openssl",
            example=(f"openssl pkcs12 -export -passout pass:{_SHORT_PW} -in c.pem", _SHORT_PW),
            more=((f"openssl enc -aes-256-cbc -k {_SHORT_PW} -in f", _SHORT_PW),)),
        _Rule("logkb:cli-smb-user", "password", re.compile(
            r"(?:(?<=\\[nrt])|(?<![\w/.-]))(?:smbclient|smbmap|rpcclient|smbget|mount\.cifs|net)\b"
            r"[^\n;&|]{0,300}?(?<=\s)(?:-U|--user(?:name)?)(?:=|\s+)['\"]?[^\s%'\"]{1,100}%"
            r"([^\s'\"]{1,400})"), ("smb", "rpcclient", "cifs", "net "), group=1,
            check="password", example=(f"smbclient //nas/share -U admin%{_SHORT_PW}", _SHORT_PW)),
        _Rule("logkb:cli-htpasswd", "password", re.compile(
            r"(?:(?<=\\[nrt])|(?<![\w/.-]))htpasswd\s+(?:-[a-zA-Z]*b[a-zA-Z]*)\s+(?:-\S+\s+)*\S+\s+\S+\s+" + _WORD),
            ("htpasswd",), group=-1, check="password",
            example=(f"htpasswd -b .htpasswd admin {_SHORT_PW}", _SHORT_PW)),
    ]
    return out


def _logkb_rules() -> tuple[list[_Rule], list[_Rule]]:
    """logkb's rules as (specific, generic): the specific ones run before detect-secrets'
    detectors, the generic ones (a password, a URL's userinfo, an assigned value) after
    them, so that a token in a URL or an assignment is shown as what it is."""
    stems = "|".join(_keyword_stems()) + r"|token|auth|credential|key"
    body = [_x("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"),
            _x("q7Hd2LmR9sKp4Wz8Xc1Vb6Nf3Jg5Ty0U", "eA+oI/uY2tR4wE6qP8zL0kM3nB5vC7xZ")]
    pem = _x("-----BEGIN RSA ", "PRIVATE KEY-----\n") + "\n".join(body) + _x(
        "\n-----END RSA ", "PRIVATE KEY-----")
    glpat = _x("glpat-", "aB3dE5gH7jK9mN1pQ2sT")
    b64 = "SHVudGVyMi14OVEhOmFkbWlu"  # base64 of "Hunter2-x9Q!:admin"
    import json

    kp58, seed58 = _example_keypair()
    kp_raw = b58decode(kp58) or b""
    kp_pieces = ("[" + ",".join(str(b) for b in kp_raw[:24]) + ",",
                 ",".join(str(b) for b in kp_raw[24:]) + "]")
    bad58 = b58encode(bytes(range(7, 71)))  # 64 bytes that are no Ed25519 keypair
    phrase = _example_phrase()
    xlm = strkey(_STELLAR_SEED, bytes(range(40, 72)))  # a made-up Stellar secret seed
    listed = phrase.replace(" ", '", "')  # the phrase as a JSON list's items
    pw = phrase.split()
    numbered = " ".join(f"{i}. {w}" for i, w in enumerate(pw, 1))
    # a wallet's grid of 3 columns, read down each column (safe11b)
    grid = "\n".join("   ".join(f"{r + 4 * c + 1:>2}. {pw[r + 4 * c]}" for c in range(3))
                     for r in range(4))
    specific = [
        _Rule("logkb:private-key", "private-key", re.compile(
            r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
            r"(?:.*?-----END \1-----|[A-Za-z0-9+/=\s\\:,-]*)", re.S), ("PRIVATE KEY",),
            example=(f"cat id_rsa\n{pem}\n", pem)),
        _Rule("logkb:pem-body", "private-key", re.compile(
            r"(?<![A-Za-z0-9+/=_:.-])[A-Za-z0-9+/]{64,76}={0,2}(?![A-Za-z0-9+/=_-])"), (),
            check="pembody",
            example=(f"the key's second line was\n  {body[1]}\nin the old file", body[1])),
        _Rule("logkb:key-body-run", "private-key", _B64_PIECE, (), check="keyrun",
            # a key's body in pieces (safe13): lines of any width, JSON strings, a
            # listing's numbered lines, with no BEGIN line and no cue: hidden when its
            # bytes are a private key's (DER or OpenSSH integers in a row), or a BEGIN
            # or END line of a private key stands next to the pieces
            example=(f"$ tail -n +2 k\n{body[0][:40]}\n{body[0][40:]}\n{body[1]}\n"
                     + _x("-----END RSA ", "PRIVATE KEY-----"), body[0][:40]),
            more=(("\n".join(f'  "{p}",' for p in _cut(_RSA_B64[100:], 40)),
                   _cut(_RSA_B64[100:], 40)[0]),
                  ("\n".join(_cut(_RSA_B64[304:], 76)), _cut(_RSA_B64[304:], 76)[0]))),
        _Rule("logkb:sk-key", "openai-key", re.compile(
            r"(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
            ("sk-",), fold=True, example=(f"export OPENAI_API_KEY=sk-proj-{_TOK}{_TOK}",
                                          f"sk-proj-{_TOK}{_TOK}")),
        _Rule("logkb:anthropic-key", "anthropic-key", re.compile(
            r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}"), ("sk-ant-",), fold=True,
            example=(f"ANTHROPIC_API_KEY=sk-ant-api03-{_TOK}", f"sk-ant-api03-{_TOK}")),
        _Rule("logkb:hf-token", "hf-token", re.compile(
            r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"), ("hf_",), fold=True,
            example=(f"huggingface-cli login --token hf_{_TOK}{_TOK[:10]}",
                     f"hf_{_TOK}{_TOK[:10]}")),
        _Rule("logkb:github-pat", "github-token", re.compile(
            r"github_pat_[A-Za-z0-9_]{22,}"), ("github_pat_",), fold=True,
            example=(f"gh auth login --with-token github_pat_{_TOK}{_TOK}",
                     f"github_pat_{_TOK}{_TOK}")),
        _Rule("logkb:jupiter-key", "api-key", re.compile(
            r"(?<![A-Za-z0-9_])jup_[A-Za-z0-9]{32,}"), ("jup_",), fold=True,
            example=(f"- Configured Jupiter API key `jup_{_HEX}`", f"jup_{_HEX}")),
        _Rule("logkb:stripe", "stripe-key", re.compile(
            r"(?<![A-Za-z0-9])[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"), ("k_live_", "k_test_"),
            fold=True, example=(f"stripe.api_key = 'sk_live_{_TOK}'", f"sk_live_{_TOK}")),
        _Rule("logkb:gitlab-folded", "gitlab-token", re.compile(
            r"(?<![A-Za-z0-9_-])gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{20,}"),
            ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-",
             "glagent-", "gloas-"), fold=True,
            example=(f"git push https://oauth2:{glpat}@gitlab.example/a/b", glpat)),
        _Rule("logkb:aws-secret", "aws-key", re.compile(
            r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([a-z0-9/+]{40})(?![a-z0-9/+])"),
            ("secret",), group=1, lower=True, on_lower=True,
            example=(f"aws_secret_access_key = {_TOK}{_TOK[:19]}", f"{_TOK}{_TOK[:19]}")),
        _Rule("logkb:aws-configure", "aws-key", re.compile(
            r"\baws\s+configure\s+set\s+(?:--profile[= ]\S+\s+)?(?:[a-z0-9_.-]*\.)?"
            r"(?:aws_secret_access_key|aws_access_key_id|aws_session_token)\s+" + _WORD),
            ("aws_secret_access_key", "aws_access_key_id", "aws_session_token"), group=-1,
            lower=True, on_lower=True, check="password",
            example=(f"aws configure set aws_secret_access_key {_TOK}{_TOK[:19]}",
                     f"{_TOK}{_TOK[:19]}"),
            more=((f"aws configure set aws_access_key_id {_TOK[:20].upper()} --profile ci",
                   _TOK[:20].upper()),
                  (f"aws configure set aws_session_token IQoJ{_TOK}{_TOK}", f"IQoJ{_TOK}{_TOK}"),
                  (f"aws configure set default.aws_secret_access_key '{_TOK}{_TOK[:19]}'",
                   f"{_TOK}{_TOK[:19]}"))),
        _Rule("logkb:aws-prompt", "aws-key", re.compile(
            r"\baws (?:secret access key|access key id|session token) \[[^\]\n]{0,60}\]:"
            r"[ \t]*([^\s'\"]{4,400})"),
            ("aws secret access key", "aws access key id", "aws session token"), group=1,
            lower=True, on_lower=True, check="password",
            example=(f"AWS Secret Access Key [None]: {_TOK}{_TOK[:19]}\nDefault region name",
                     f"{_TOK}{_TOK[:19]}")),
        _Rule("logkb:keypair-bytes", "private-key", re.compile(
            r"\[" + _GAP + r"(?:" + _BYTE + _GAP + "," + _GAP + "){63}" + _BYTE + _GAP + r"\]"),
            ("[",),
            check="keypair", example=(f"cat ~/.config/solana/id.json\n{_KEYPAIR}\n", _KEYPAIR),
            more=((f"wallet: {_KEYPAIR.replace(',', ', ')}", _KEYPAIR.replace(",", ", ")),
                  ("cat id.json\n" + _KEYPAIR.replace(",", ",\n  ") + "\n",
                   _KEYPAIR.replace(",", ",\n  ")))),
        _Rule("logkb:keypair-cut", "private-key", re.compile(
            r"(\[" + _GAP + r"(?:" + _BYTE + _GAP + "," + _GAP + "){32,63}(?:" + _BYTE
            + r")?)(?:…|\.\.\.)?[\\\"'`\s]{0,16}\Z"), ("[",), group=1,
            check="keypair-cut",
            example=(f"cat ~/.config/solana/id.json\n{_KEYPAIR[:160]}", _KEYPAIR[:160]),
            more=((f"'description': 'Save the keypair: echo {_KEYPAIR[:140]}'",
                   _KEYPAIR[:140]),)),
        _Rule("logkb:keypair-pieces", "private-key", re.compile(
            # a keypair's byte array in pieces (safe13b): JSON strings or quoted pieces
            # joined on one line or a few (`"[1,…,20," + "21,…]"`, `["174", "47", …]`,
            # `bytes([…]) + bytes([…])`): 64 numbers from a `[`, what stands between them
            # short and no letter or digit but one name (`bytes`); hidden when the 64 bytes
            # are a seed and its Ed25519 public key (:func:`_is_keypair`)
            r"\[(?=" + _PIECE_SEP0 + r"(" + _BYTE + r"(?:" + _PIECE_SEP + _BYTE
            + r"){63})(?![0-9]))"), ("[",), group=1, check="keypair-pieces",
            example=(f"K = '{kp_pieces[0]}' + '{kp_pieces[1]}'",
                     f"{kp_pieces[0][1:]}' + '{kp_pieces[1][:-1]}"),
            more=((json.dumps(kp_pieces), f'{kp_pieces[0][1:]}", "{kp_pieces[1][:-1]}'),
                  (json.dumps([str(b) for b in kp_raw]),
                   '", "'.join(str(b) for b in kp_raw)),
                  (f"bytes({kp_pieces[0]}]) + bytes([{kp_pieces[1]})",
                   f"{kp_pieces[0][1:]}]) + bytes([{kp_pieces[1][:-1]}"))),
        _Rule("logkb:base58-keypair", "private-key", re.compile(
            r"(?<![A-Za-z0-9])[" + _B58 + r"]{85,88}(?![A-Za-z0-9])"), (), check="b58-keypair",
            example=(f"kp = Keypair.from_base58_string('{kp58}')", kp58),
            more=((f"$ cat .env\nRPC_URL=http://127.0.0.1:8899\nWALLET={kp58}\n", kp58),
                   (f'{{"cluster": "devnet", "wallet": "{kp58}"}}', kp58),
                   (f"Here is the new wallet, import {kp58} into Phantom.", kp58))),
        _Rule("logkb:base58-keypair-wrapped", "private-key", re.compile(
            # pieces of base58 on lines in a row: the first may end a line (`WALLET=…`),
            # the last may start one; a terminal or an editor wrapped the key (safe11),
            # padded its lines with blanks, quoted or commented them (rsafe11)
            r"(?<![A-Za-z0-9])[" + _B58 + r"]{1,88}(?:" + _WRAP_GAP + r"["
            + _B58 + r"]{1,88}){1,43}(?![A-Za-z0-9])"), (), check="b58-wrapped",
            example=(f"WALLET={kp58[:50]}\n{kp58[50:]}\n", f"{kp58[:50]}\n{kp58[50:]}"),
            more=((f"ok\n{kp58[:30]}\n  {kp58[30:60]}\n  {kp58[60:]}\ndone",
                   f"{kp58[:30]}\n  {kp58[30:60]}\n  {kp58[60:]}"),
                  # safe12: joined by `\\`, as Python's strings, ten to a line
                  (f"solana-keygen recover \\\n  {kp58[:44]}\\\n  {kp58[44:]}\n",
                   f"{kp58[:44]}\\\n  {kp58[44:]}"),
                  ("K = (\n" + "\n".join(f'  "{kp58[i:i + 30]}"' for i in range(0, 88, 30))
                   + "\n)", '\"\n  \"'.join(kp58[i:i + 30] for i in range(0, 88, 30))),
                  ("\n".join(kp58[i:i + 10] for i in range(0, 88, 10)),
                   "\n".join(kp58[i:i + 10] for i in range(0, 88, 10))))),
        _Rule("logkb:npm-token", "npm-token", re.compile(
            # 36 characters (a whole one ending a line is not folded), fewer when cut
            r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{16,36}"), ("npm_",), fold=True,
            check="entropy",
            example=(f"NPM_CONFIG_TOKEN: npm_{_TOK}{_TOK[:15]}", f"npm_{_TOK}{_TOK[:15]}"),
            # a tool's description cut the token short (an opencode `bash` title)
            more=((f'"description": "Run //registry.npmjs.org/:_authToken=npm_{_TOK}"',
                   f"npm_{_TOK}"),)),
        _Rule("logkb:stellar-seed", "private-key", re.compile(
            # the literal first: `re` then skips to each `S` (a lookbehind first: 3x slower)
            r"S(?<![A-Za-z0-9]S)[A-Z2-7]{55}(?![A-Za-z0-9])"), ("S",), check="stellar-seed",
            example=(f"- **Secret Key**: `{xlm}`", xlm),
            more=((f"STELLAR_AGENT_SECRET={xlm}", xlm),)),
        _Rule("logkb:base58-key", "private-key", re.compile(
            r"(?:priv(?:ate)?[ _-]?key|secret[ _-]?key|key[ _-]?pair)(?:\\*[\"'])?\s*"
            r"(?:=|:=|:|=>|\s)\s*(?:\\*[\"'])?([1-9a-z]{32,90})(?![0-9a-z])"),
            ("priv", "secret", "keypair", "key pair", "key_pair", "key-pair"), group=1,
            lower=True, on_lower=True, check="b58-key",
            example=(f"PRIVATE_KEY={seed58}", seed58),
            more=((f'{{"secretKey": "{seed58}"}}', seed58),
                  (f"private key: {seed58}", seed58),
                  (f"solana transfer --keypair {bad58} 9 1", bad58))),
        _Rule("logkb:mnemonic", "mnemonic", re.compile(
            r"(?:mnemonic|seed[ _-]?phrase|recovery[ _-]?phrase|secret[ _-]?phrase"
            r"|seed[ _-]?words)([^\n]{0,400}(?:\n[^\n]{0,400}){0,25})"),
            ("mnemonic", "phrase", "seed words", "seed_words", "seed-words", "seedwords"),
            group=1, lower=True, on_lower=True, check="mnemonic",
            example=(f'cast wallet import dev --mnemonic "{_PHRASE}"', _PHRASE),
            more=((f"MNEMONIC={_PHRASE}", _PHRASE),
                  ("Save this seed phrase and your BIP39 passphrase to recover your new "
                   f"keypair:\n{_PHRASE}\n====", _PHRASE),
                  (f"seed phrase: {_PHRASE} then I funded it", _PHRASE))),
        _Rule("logkb:bip39-phrase", "mnemonic", re.compile(
            r"(?:(?<=\\[nrt])|(?<![A-Za-z0-9_\\]))[A-Za-z]{3,8}(?:" + _WORD_GAP
            + r"[A-Za-z]{3,8}){11,}(?![A-Za-z0-9])"), (), check="bip39",
            example=(f"$ echo '{phrase}' > wallet.txt", phrase),
            more=((f'words = ["{listed}"]', listed),
                  (f"Use this one for the test wallet:\n{phrase}\nthen fund it", phrase),
                  # safe11: a wallet's backup screen writes it in capitals, a note in
                  # Title Case (the checksum is the same)
                  (f"Backup:\n{phrase.upper()}\n", phrase.upper()),
                  (f"Your words: {phrase.title()}.", phrase.title()),
                  # safe11b: numbered as a wallet shows them, in a grid, quoted, hyphens
                  (numbered, numbered[3:]),
                  (grid, grid[4:]),
                  ("\n".join("> " + w for w in pw), "\n> ".join(pw)),
                  (f"id: {'-'.join(pw)}", "-".join(pw)),
                  ("\n".join(f"{i}. **{w}**" for i, w in enumerate(pw, 1)),
                   "**\n".join(f"{i}. **{w}" for i, w in enumerate(pw, 1))[5:]))),
        _Rule("logkb:hex-private-key", "private-key", re.compile(
            r"(?:priv(?:ate)?|secret|signer|deployer)[ _-]?key(?:\\*[\"'])?" + _BOLD
            + r"\s*(?:=|:=|:|=>|\s)" + _BOLD
            + r"\s*(?:\\*[\"'`])?(0x[0-9a-f]{16,128}|[0-9a-f]{32,128})(?![0-9a-f])"),
            ("priv", "secret", "signer", "deployer"), group=1,
            lower=True, on_lower=True, fold=True,
            example=(f"PRIVATE_KEY=0x{_HEX}", f"0x{_HEX}"),
            more=((f"cast send --private-key 0x{_HEX} 0xabc 'f()'", f"0x{_HEX}"),
                  (f'{{"privateKey": "0x{_HEX}"}}', f"0x{_HEX}"),
                  # a tool's description cut the command (and the key) short
                  (f'"description": "Run cast send --private-key 0x{_HEX[:34]}"',
                   f"0x{_HEX[:34]}"),
                  (f"solana-keygen recover --secret-key {_HEX}{_HEX}", f"{_HEX}{_HEX}"),
                  (f"- **Private Key**: `0x{_HEX}`", f"0x{_HEX}"))),
        _Rule("logkb:basic-auth", "basic-auth", re.compile(
            r"\bbasic\s+([a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=])"), ("basic",), group=1,
            lower=True, on_lower=True, check="basic",
            example=(f"curl -H 'Authorization: Basic {b64}' https://api.example", b64)),
        _Rule("logkb:auth-header", "token", re.compile(
            r"\bauthorization\s*:\s*(?!basic\b|bearer\b)(?:token\s+)?([^\s'\"]{8,})"),
            ("authorization",), group=1, lower=True, on_lower=True, check="short-token",
            example=(f"Authorization: token {_TOK}{_TOK}", f"{_TOK}{_TOK}"),
            more=((f"Authorization: token {_SHORT_PW}", _SHORT_PW),)),
        _Rule("logkb:cookie-header", "cookie", re.compile(
            r"\b(?:set-)?cookie\s*:[ \t]*([^\n\r'\"]{4,2000})"), ("cookie",), group=1,
            lower=True, on_lower=True, check="cookie",
            example=(f"curl -H 'Cookie: session={_TOK}; theme=dark' https://x.example",
                     f"session={_TOK}; theme=dark")),
        _Rule("logkb:cookie-option", "cookie", re.compile(
            r"(?<![^\s'\"])-(?:b|-cookie)(?:=|\s+)"
            r"(?:\"([^\"\n]{4,2000})\"|'([^'\n]{4,2000})'|([^\s'\"]{4,2000}))", re.M),
            ("-b", "--cookie"), group=-1, check="cookie",
            example=(f"curl -b 'sid={_TOK}' https://x.example", f"sid={_TOK}")),
    ]
    generic = [
        _Rule("logkb:mysql-p", "password", re.compile(
            r"\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlsh)"
            r"\b[^\n;&|]{0,300}?(?<=\s)-p(?=\S)" + _WORD), ("mysql", "mariadb"), group=-1,
            check="password", example=(f"mysql -uroot -p{_PW} app", _PW),
            more=((f"mysql -uroot -p{_MW} app", _MW),
                  ("mysql -uroot -p'Tr0ub&4 dor' app", "Tr0ub&4 dor"))),
        _Rule("logkb:user-colon", "password", re.compile(
            r"(?<![^\s'\"])-(?:u|-user|-proxy-user|U)(?:=|\s+)"
            r"(?:'[^\s:']{1,100}:(?!//)([^'\n]{1,400})'(?!\S)"
            r"|\"[^\s:\"]{1,100}:(?!//)((?:[^\"\\\n]|\\[^\n]){1,400})\"(?!\S)"
            r"|['\"]?[^\s:'\"]{1,100}:(?!//)(" + _WORD_UNQUOTED + r"{1,400}))", re.M),
            ("-u", "--user", "-U"), group=-1,
            check="userpass", example=(f"curl -u admin:{_PW} https://x.example", _PW),
            more=((f"curl -u admin:{_MW} https://x.example", _MW),
                  ("curl -u admin:Tr0ub@4dor https://x.example", "Tr0ub@4dor"),
                  ("curl -u 'admin:Tr0 ub&4dor' https://x.example", "Tr0 ub&4dor"))),
        _Rule("logkb:login-p", "password", re.compile(
            r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|helm\s+registry)\s+login\b"
            r"[^\n;&|]{0,300}?(?<=\s)(?:-p|--password)(?:=|\s+)" + _WORD),
            ("login",), group=-1, check="password",
            example=(f"docker login -u me -p {_PW} registry.example", _PW),
            more=((f"docker login -u me -p {_MW} registry.example", _MW),
                  ("docker login -p 'Tr0 ub&4dor' reg", "Tr0 ub&4dor"),
                  ("docker login -u me -p Tr0ub\\&4dor reg", "Tr0ub\\&4dor"))),
        _Rule("logkb:url-userinfo", "url-password", re.compile(
            r"://[^\s/@:'\"]{0,200}:([^\s/'\"]{1,400})@"), ("://",), group=1,
            check="password",
            example=(f"redis-cli -u redis://:{_PW}@cache.example:6379", _PW),
            more=(("psql 'postgres://u:Tr0ub@4dor@db.example/app'", "Tr0ub@4dor"),)),
        *_cli_password_rows(),
        _Rule("logkb:netrc", "password", re.compile(
            # a netrc line (`machine h login u password p`, safe14): curl's, wget's, git's
            r"(?:(?<=\\[nrt])|\b)machine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+" + _WORD),
            ("machine",), group=-1, check="password",
            example=(f"$ cat ~/.netrc\nmachine api.example login me password {_PW}\n", _PW),
            more=((f"machine h\n  login me\n  password {_SHORT_PW}\n", _SHORT_PW),)),
        _Rule("logkb:piped-password", "password", re.compile(
            # a password piped or fed to a program that reads it on stdin (safe14):
            # `echo PW | sudo -S …`, `echo PW | docker login --password-stdin`,
            # `sudo -S … <<< PW`
            r"(?:(?<=\\[nrt])|\b)(?:echo(?:\s+-[neE]+)?|printf(?:\s+'%s(?:\\n)?')?)\s+" + _WORD
            + r"\s*\|\s*(?=[^\n|;&]*(?:(?<=\s)-S\b|--password-stdin|passwd\b))"
            r"|(?:(?<=\\[nrt])|\b)sudo\b[^\n|;&]*?(?<=\s)-S\b[^\n|;&]*?<<<\s*" + _WORD),
            ("echo", "printf", "<<<"), group=-1, check="password",
            example=(f"echo '{_PW}' | sudo -S apt-get update", _PW),
            more=((f"echo {_SHORT_PW} | docker login -u me --password-stdin reg", _SHORT_PW),
                  (f"sudo -S whoami <<< {_SHORT_PW}", _SHORT_PW))),
        _Rule("logkb:url-query", "token", re.compile(
            # a credential in a URL's query (safe14): `?key=…`, `&auth=…`, `&sig=…`
            r"[?&](?:key|auth|sig|signature|secret|client_secret|apikey|api_key|access_key"
            r"|token|access_token|auth_token)=([^&#\s\"'<>\\]{8,400})"), ("?", "&"),
            group=1, lower=True, check="query",
            example=(f"curl 'https://api.example/v1?key={_SHORT_PW}&q=1'", _SHORT_PW),
            more=((f"GET /cb?auth={_SHORT_PW} 200", _SHORT_PW),)),
        _Rule("logkb:sshpass", "password", re.compile(
            r"\bsshpass\s+(?:-[defv]\s*\S*\s+)*-p\s*" + _WORD), ("sshpass",), group=-1,
            check="password", example=(f"sshpass -p '{_PW}' ssh root@h true", _PW),
            more=((f"sshpass -p {_MW} ssh root@h true", _MW),)),
        _Rule("logkb:bearer", "bearer-token", re.compile(
            r"bearer\s+([a-z0-9._~+/=-]{8,})"), ("bearer",), group=1, lower=True,
            on_lower=True, check="short-token",
            example=(f"Authorization: Bearer {_TOK}{_TOK}", f"{_TOK}{_TOK}"),
            # safe14: a short token mixing capitals, small letters and digits
            more=((f'"Authorization": "Bearer {_SHORT_PW}"', _SHORT_PW),)),
        _Rule("logkb:option", "password", re.compile(
            r"(?:^|(?<=[\s'\"]))--?(?:password|passwd|pass|token|api-key|apikey|secret|auth-token)"
            r"(?:=|\s+)" + _WORD, re.M), ("--", "-p"), group=-1, lower=True, on_lower=True,
            check="password", example=(f"mysql -u root --password={_PW}", _PW),
            more=((f"tool --password={_MW.lower()} x", _MW.lower()),
                  ("tool --secret 'tr0 ub&4dor' x", "tr0 ub&4dor"))),
        _Rule("logkb:shell-default", "password", re.compile(
            # a shell's or a compose file's default for a secret's variable (safe11b)
            r"\$\{(?P<var>[a-z_][a-z0-9_]{0,64}):?[-=]([^}\s\"'`\\]{4,400})\}"),
            ("${",), group=2, lower=True, on_lower=True, check="fallback",
            example=(f"POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{_SHORT_PW}}}", _SHORT_PW),
            more=((f'curl -H "X-Token: ${{API_TOKEN:={_TOK}}}" x.example', _TOK),
                  (f"psql -W ${{DB_PASSWORD-{_SHORT_PW}}}", _SHORT_PW))),
        _Rule("logkb:env-secret", "password", re.compile(
            # an environment variable whose name ends in a secret's word (safe12):
            # detect-secrets' keywords miss `ADMIN_PASS`, and a value of one word or a
            # short token is a secret there (`.env`, `export`, `-e`, compose, JSON)
            r"(?<![A-Za-z0-9_$.-])(?P<name>[A-Z][A-Z0-9_]{0,64}?_(?:PASS(?:WD|WORD|PHRASE)?"
            r"|PWD?|SECRET|TOKEN|KEY))(?:\\*[\"'])?[ \t]*(?:=|:[ \t]+)(?:" + _VALUE
            # its quotes JSON-escaped (`{\\"ADMIN_TOKEN\\": \\"…\\"}`)
            + r"""|\\+["']([^"'\s\\]{4,400})\\+["'])"""),
            ("PASS", "PWD", "SECRET", "TOKEN", "KEY"), group=-1, check="env",
            example=(f"ADMIN_PASS={_SHORT_PW}", _SHORT_PW),
            more=((f"docker run -e MYSQL_ROOT_PASS='{_PW}' mysql:8", _PW),
                  ("environment:\n  RABBITMQ_DEFAULT_PASS: hunter\n", "hunter"),
                  (f'{{"ADMIN_TOKEN": "{_SHORT_PW}"}}', _SHORT_PW),
                  # safe14: `_PW` (`LDAP_ADMIN_PW`, `DB_PW`)
                  ("environment:\n  DB_PW: hunter\n", "hunter"))),
        _Rule("logkb:name-secret", "password", re.compile(
            # a password's or a secret's name in any case (safe13): `admin_pass = …`,
            # `db-passwd: …`, `spring.datasource.password=…`, `secret_key=…`, `adminPass`;
            # the name's end first, in the lowered text (literals: `re` skips to a `p` or
            # an `s`), its head and its case read back by :func:`_name_secret_kind`
            r"(?:pass(?:wd|word|phrase)?|pwd?|secret(?:[_.-]?key)?)"
            r"(?![a-z0-9_])(?P<q>\\*[\"'])?[ \t]*(?P<op>=>|:=|=|:(?:[ \t]+|(?=\\*[\"'`])))"
            r"[ \t]*(?:" + _VALUE
            + r"""|\\+["']([^"'\s\\]{4,400})\\+["'])"""),
            ("pass", "pw", "secret"), group=-1, lower=True, on_lower=True, check="name",
            example=(f"admin_pass = {_SHORT_PW}", _SHORT_PW),
            more=((f"db_passwd: {_SHORT_PW}\n", _SHORT_PW),
                  (f"secret_key='{_MW[:9]}'", _MW[:9]),
                  ("export smtp_pass=hunter\n", "hunter"),
                  (f'{{"db-password":"{_SHORT_PW}"}}', _SHORT_PW),
                  (f"spring.datasource.password={_SHORT_PW}", _SHORT_PW),
                  (f"$db_pass = '{_SHORT_PW}';", _SHORT_PW),
                  (f'const adminPass = "{_SHORT_PW}";', _SHORT_PW),
                  (f"Django_Secret_Key = '{_PW}'", _PW),
                  # safe14: a joined name in capitals, `…pw`
                  ("ADMINPASS=hunter22\n", "hunter22"), (f"ROOTPW={_SHORT_PW}", _SHORT_PW),
                  (f"ldap_rootpw = '{_SHORT_PW}'", _SHORT_PW))),
        _Rule("logkb:name-token", "token", re.compile(
            # a token's or an API key's name in lower case and a literal (safe13b):
            # `github_token = "…"`, `openai_apikey: …`, `access_key=…`; short values too
            # (the assignment row wants 16 characters), code stays shown
            r"(?:token|api[_-]?key|access[_-]?key|Token|Key|TOKEN|KEY)"
            r"(?![A-Za-z0-9_])(?P<q>\\*[\"'])?[ \t]*(?P<op>=>|:=|=|:(?:[ \t]+|(?=\\*[\"'`])))"
            r"[ \t]*(?:" + _VALUE
            + r"""|\\+["']([^"'\s\\]{4,400})\\+["'])"""),
            ("token", "apikey", "api_key", "api-key", "access_key", "access-key",
             "accesskey", "Token", "Key", "TOKEN", "KEY"), group=-1, check="name-token",
            example=(f"github_token = '{_SHORT_PW}'", _SHORT_PW),
            more=((f"openai_apikey: {_SHORT_PW}\n", _SHORT_PW),
                  (f'{{"x_api_key": "{_SHORT_PW}"}}', _SHORT_PW),
                  (f"access_key={_SHORT_PW[:8]}", _SHORT_PW[:8]),
                  # safe14: a name in camelCase, a header's, joined in capitals
                  (f'const apiKey = "{_SHORT_PW[:9]}";', _SHORT_PW[:9]),
                  (f"authToken='{_SHORT_PW}'", _SHORT_PW),
                  (f'curl -H "X-Api-Key: {_SHORT_PW}" h', _SHORT_PW),
                  (f"AUTHTOKEN={_SHORT_PW}", _SHORT_PW),
                  ("accessToken: 'AbCdEfGhIjKl'", "AbCdEfGhIjKl"))),
        _Rule("logkb:assignment", "secret", re.compile(
            # a name's tail is bounded: unbounded, a lower-cased base58 run read to its
            # end from each stem in it (`…key…`): quadratic (rsafe11)
            rf"(?:{stems})[a-z0-9_-]{{0,64}}[\"']?{_BOLD}\s*(?:=|:=|:|=>){_BOLD}\s*" + _VALUE),
            ("pass", "pwd", "secret", "token", "key", "auth", "credential", "contras"),
            group=-1, lower=True, on_lower=True, check="assigned",
            example=(f"SERVICE_TOKEN={_TOK}{_TOK[:5]} ./deploy", f"{_TOK}{_TOK[:5]}"),
            more=((f"- **API Key**: `{_TOK}{_TOK[:5]}`", f"{_TOK}{_TOK[:5]}"),
                  (f"**Password:** `{_PW}`", _PW),
                  # safe11b: a cut marker after a value is no call's arguments
                  (f"DB_PASSWORD={_SHORT_PW}[…]", _SHORT_PW),
                  (f"export DB_PASSWORD={_SHORT_PW}(...)", _SHORT_PW))),
        _Rule("logkb:code-fallback", "password", re.compile(
            # code that reads a secret, and the literal it falls back on or reads from
            # (safe11b): `os.environ.get("X") or "…"`, `getenv("T", "…")`, `decode("…")`
            rf"(?:{stems})[a-z0-9_-]{{0,64}}(?:\\*[\"'])?\s*(?:=|:=|:|=>)\s*(?:await\s+)?"
            r"[a-z_$][a-z0-9_$]*(?:\??\.[a-z_$][a-z0-9_$]*){0,8}\s*"
            r"(?:\([^()\n]{0,300}?,\s*(?:[a-z_]+\s*=\s*)?" + _QUOTED + r"\s*[,)]"
            r"|(?:\([^()\n]{0,300}\)|\[[^\[\]\n]{0,300}\])?"
            r"(?:\s+or\s+|\s*(?:\|\||\?\?)\s*)" + _QUOTED
            + r"|\(\s*" + _QUOTED + r"\s*\))"),
            ("pass", "pwd", "secret", "token", "key", "auth", "credential", "contras"),
            group=-1, lower=True, on_lower=True, check="fallback",
            example=(f'password = os.environ.get("DB_PASSWORD") or "{_MW[:9]}"', _MW[:9]),
            more=((f'token = getenv("T", "{_TOK}")', _TOK),
                  (f'secret = decode("{_TOK}{_TOK[:5]}")', f"{_TOK}{_TOK[:5]}"),
                  (f"const apiKey = process.env.API_KEY ?? '{_TOK}';", _TOK),
                  (f'{{"password": os.getenv("PW", default="{_PW}")}}', _PW))),
        _Rule("logkb:prose-password", "password", re.compile(
            # a password said in prose or typed after a program's prompt (prose14):
            # `my password is …`, `the password is: …`, `Password for user admin: …`,
            # `use password … to log in`, `pw: …`, `passphrase "…"`; the value only is
            # hidden, and only when it is no word (:func:`_prose_password_kind`)
            r"(?<![a-z0-9_$.-])(?P<w>pass(?:word|wd|phrase|code)|pwd?)(?![a-z0-9_])"
            r"(?P<c>[ \t]+(?:for|of|to)[ \t]+[^\n:=]{1,60}?(?::|[ \t](?:is|was)(?![a-z0-9_'])"
            r"(?:[ \t]*:)?)"
            r"|[ \t]+(?:is|was|will[ \t]+be|is[ \t]+now|now[ \t]+is|(?:set|changed|reset)"
            r"[ \t]+to|to)(?![a-z0-9_'])(?:[ \t]*:)?"
            r"|[ \t]*(?:\([^()\n]{0,20}\)[ \t]*)?:|[ \t]*(?:[│|]|\\+u2502)"
            r"|(?=[ \t]))[ \t]*" + _PROSE_VALUE),
            ("pass", "pw"), group=-1, lower=True, on_lower=True, check="prose",
            example=(f"ok, my password is {_SHORT_PW} for the staging box", _SHORT_PW),
            more=((f"The password is: {_PW}", _PW),
                  (f"Password for user admin: {_MW[:11]}\n", _MW[:11]),
                  (f"use password {_SHORT_PW[:8]}# to log in", f"{_SHORT_PW[:8]}#"),
                  (f"pw: {_SHORT_PW}", _SHORT_PW),
                  ('passphrase "velvet orbit canyon humble"', "velvet orbit canyon humble"),
                  (f"[sudo] password for alice: {_SHORT_PW}", _SHORT_PW),
                  (f"the admin password was {_SHORT_PW}.", _SHORT_PW),
                  (f"reset the password to '{_SHORT_PW[:6]}'", _SHORT_PW[:6]),
                  (f"ALTER USER app WITH PASSWORD '{_PW}';", _PW),
                  (f"the password for the db is `{_SHORT_PW}`", _SHORT_PW),
                  # safe15: a weak word after an explicit `is`/`:` (`admin`, not `wrong`),
                  # `pwd` and a value that is no word
                  ("ok so the password is admin", "admin"),
                  ("Password: hunter\n", "hunter"),
                  ("ssh in as deploy, pwd admin123", "admin123"),
                  (f"│ Admin password │ {_MW[:11]}   │", _MW[:11]))),
        _Rule("logkb:login-pair", "password", re.compile(
            # a login and its password joined by `/` after a cue (safe15): `login admin /
            # admin123`, `admin: `admin` / `admin123``, `credentials: root/t00r`; the
            # password only, when it is no word or the login again (`admin/admin`)
            r"(?<![a-z0-9_/.-])(?:log[ \t]?in|log[ \t]?on|sign[ \t]?in|credentials?|creds"
            r"|admin|account)(?:[ \t]+(?:is|as|with|are|was|were))?(?:[ \t]*:[ \t]*|[ \t]+)"
            r"(?P<q>[`'\"]?)(?P<u>[a-z0-9_.@+-]{2,64})(?P=q)[ \t]*/[ \t]*(?P<q2>[`'\"]?)"
            r"([^\s`'\"/\\]{4,200}?)(?P=q2)(?=[\s.,;:)\"'`\\]|$)"),
            ("login", "log in", "logon", "log on", "signin", "sign in", "credential", "creds",
             "admin", "account"), group=-1, lower=True, on_lower=True, check="pair",
            example=("the site runs on port 8882, login admin / admin123", "admin123"),
            more=(("admin: `admin` / `admin123`", "admin123"),
                  ("Credentials: root/t00r!", "t00r!"),
                  ("log in as deploy / Pl4ne-tree", "Pl4ne-tree"))),
        _Rule("logkb:form-password", "password", re.compile(
            # a password in a form's or a query's body (safe15): `-d 'log=a&pwd=…'`,
            # `--data-urlencode "password=…"`, `?user=a&pass=…`, a PowerShell body
            # `@{log="a"; pwd="…"}`; whatever the value is, a weak word too (where the
            # pair stands is read back by :func:`_form_kind`)
            r"(?:pass(?:word|wd|phrase)?|pwd|pw)[0-9]?\]?(?![a-z0-9_])"
            r"(?:=([^&\s'\"#<>\\]{1,400})"
            r"|[ \t]*=[ \t]*(?:\\*\"([^\"\n\\]{1,400})\\*\"|\\*'([^'\n\\]{1,400})\\*')"
            r"(?=[ \t]*[;}]))"),
            ("pass", "pw"), group=-1, lower=True, on_lower=True, check="form",
            example=("curl -s -X POST -d \"log=editor&pwd=admin&wp-submit=Log+In\" "
                     "http://localhost:8882/wp-login.php", "admin"),
            more=((f"curl --data-urlencode 'password={_SHORT_PW}' http://localhost/login",
                   _SHORT_PW),
                  ("GET /login?user=admin&pass=hunter HTTP/1.1", "hunter"),
                  (f"user=admin&passwd={_SHORT_PW[:6]}", _SHORT_PW[:6]),
                  (f"curl -d pwd={_SHORT_PW}&user=a http://localhost/x", _SHORT_PW),
                  ('$body = @{log="admin"; pwd="hunter"; wp_submit="Log In"}', "hunter"))),
    ]
    return specific, generic


PREFILTER = (
    r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[0-9A-Z]{16}|AccountKey=|://[^\s/@:]+:[^\s/@]+@"
    r"|gh[pousr]_[A-Za-z0-9_]{30}|github_pat_|gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent)-"
    r"|GR1348941|eyJ[A-Za-z0-9_=-]{8,}\.|_authToken|T3BlbkFJ|pypi-Ag|SG\.[A-Za-z0-9_-]{22}"
    r"|xox[abposr]-|hooks\.slack\.com|sq0csp-|[rs]k_(?:live|test)_|PRIVATE KEY|npm_[A-Za-z0-9]{16}"
    r"|sk-[A-Za-z0-9_-]{20}|hf_[A-Za-z0-9]{30}|jup_[A-Za-z0-9]{32}|sshpass"
    r"|(?i:bearer\s+[A-Za-z0-9._~+/=-]{8}|discord|telegram|twilio|mailchimp|cloudant"
    r"|softlayer|ibm|aws_?secret"
    # a name and its value, their quotes JSON-escaped too (a file written with
    # `{"apiKey": …}` stands in the call's JSON input as `{\\"apiKey\\": \\"…`)
    r"|(?:pass|pwd?|secret|contras)[a-z0-9_.-]*(?:\\*[\"'])?(?:\*\*)?\s*(?:=>?|:=?)(?:\*\*)?\s*"
    r"(?:\\*[\"'`])?[^\s\"'`]{4}"
    r"|(?:token|key|auth|credential)[a-z0-9_.-]*(?:\\*[\"'])?(?:\*\*)?\s*(?:=|:)(?:\*\*)?\s*"
    r"(?:\\*[\"'`])?[A-Za-z0-9_+=.-][A-Za-z0-9_+/=.-]{15}"
    # code reading a secret and the literal it falls back on or reads from (safe11b)
    r"|(?:pass|pwd|secret|token|key|auth|credential)[a-z0-9_.-]*(?:\\*[\"'])?\s*(?:=|:)\s*"
    r"[a-z_$][a-z0-9_$.]*\s*(?:\([^()\n]*,\s*(?:[a-z_]+\s*=\s*)?\\*[\"'`][^\"'`\s\\]{4}"
    r"|(?:\([^()\n]*\)|\[[^\[\]\n]*\])?\s*(?:or|\|\||\?\?)\s*\\*[\"'`][^\"'`\s\\]{4}"
    r"|\(\s*\\*[\"'`][A-Za-z0-9_+/=.-]{16})"
    # a shell's default for a secret's variable: `${DB_PASSWORD-…}`, `${API_TOKEN:=…}`
    r"|\$\{[a-z0-9_]*(?:pass|pwd|secret|token|key|auth|credential)[a-z0-9_]*:?[-=][^}\s]{4}"
    r"|(?:^|[\s'\"])--?(?:password|passwd|pass|token|api-?key|secret|auth-token)[= ]"
    r"|cookie\s*:[^\n]*=|authorization\s*:\s*\S|basic\s+[A-Za-z0-9+/]{8}"
    r"|aws_access_key_id|aws_session_token|mnemonic|seed[ _-]?(?:phrase|words)"
    r"|aws (?:secret access key|access key id|session token) \["
    r"|(?:recovery|secret)[ _-]?phrase"
    # a hex key after its cue, its quotes JSON-escaped too (`\\"privateKey\\": \\"0x…`)
    r"|key(?:\\*[\"'])?(?:\*\*)?\s*(?:=|:|=>|\s)(?:\*\*)?\s*(?:\\*[\"'`])?(?:0x)?[0-9a-f]{16})"
    r"|(?:mysql|mariadb)[^\n]*\s-p\S|login[^\n]*\s(?:-p|--password)[= ]"
    # a token's or a key's environment variable and a short value (safe12)
    r"|_(?:TOKEN|KEY)(?:\\*[\"'])?[ \t]*(?:=|:[ \t])[ \t]*(?:\\*[\"'`])?[^\s\"'`$<{%]{8}"
    # a token's or an API key's name in lower case and a short literal (safe13b)
    r"|(?:token|apikey|api[_-]key|access[_-]?key|Token|Key|TOKEN|KEY)(?:\\*[\"'])?[ \t]*"
    r"(?:=>?|:=?)[ \t]*"
    r"(?:\\*[\"'`])?[^\s\"'`$<{%]{8}"
    r"|://[^\s/@:]*:[^\s/@]+@|(?:^|[\s'\"])(?:-u|--user|-U)[= ]\S*:"
    # safe14: a password on a command line, in a netrc, piped to `sudo -S`, in a query
    r"|(?:redis-cli|mongo|gpg|zip|ssh-keygen|smb|ldap|psexec|wmiexec|winexe|rdp|rdesktop"
    r"|vnc|7z|rar|openssl|rpcclient|cifs|net |htpasswd)[^\n]*\s(?:-[a-zA-Z]{1,2}|--pass"
    r"|/p:|-passw|-storepasswd|--user|--password)"
    r"|machine\s+\S+\s[\s\S]{0,120}?password\s|(?:\s-S\b|--password-stdin)[^\n]*|<<<"
    r"|[?&](?:key|auth|sig|signature|secret|client_secret|apikey|api_key|access_key|token"
    r"|access_token|auth_token)=[^&#\s]{8}"
    r"|(?:^|[\s'\"])(?:-b|--cookie)[= ]\S*="
    # prose14: a password said in prose or after a program's prompt
    r"|(?i:(?:pass(?:word|wd|phrase|code)|pwd?)[ \t]+(?:is|was|for|of|to|will|now|set|changed"
    r"|reset)[ \t]|(?:pass(?:word|phrase|code)|pwd)[ \t]+(?:[\"'`]|[A-Za-z0-9]*[^A-Za-z0-9\s]"
    r"|[A-Za-z]*[0-9])"
    # safe15: a login and its password joined by `/` after a cue
    r"|(?:log[ \t]?[io]n|sign[ \t]?in|credentials?|creds|admin|account)(?:[ \t]+(?:is|as|with"
    r"|are|was|were))?(?:[ \t]*:[ \t]*|[ \t]+)[`'\"]?[A-Za-z0-9_.@+-]{2,64}[`'\"]?[ \t]*/"
    r"[ \t]*[`'\"]?[^\s`'\"/]{4}"
    r"|\bpw[ \t]*:[ \t]*\S|pass(?:word|wd|phrase|code)[ \t]*\([^()\n]{0,20}\)[ \t]*:"
    r"|pass(?:word|wd|phrase|code)[ \t]*(?:[│|]|\\+u2502)[ \t]*(?:[\"'`]|[A-Za-z0-9]*[^A-Za-z0-9\s│|]"
    r"|[A-Za-z]*[0-9]))"
)
# counted repetitions above 8 make RE2's automaton large enough to fall off its fast
# path (2.3x slower on 131 MB of outputs); the rules check the real lengths
PREFILTER = re.sub(r"\{(\d+)\}", lambda m: "{%d}" % min(int(m.group(1)), 8), PREFILTER)
# but a PEM body line is told from any word only by its length: 64 to 76 base64
# characters between delimiters (a longer or base64url run is not one)
PREFILTER += (r"|(?m:(?:^|[\s\"'>`*]|\\{1,8}[nt])[A-Za-z0-9+/]{64,76}={0,2}"
              r"(?:$|[\s\"'`,.\\]))")
# and a keypair's byte array by its first bytes (the counts above cannot say 64)
PREFILTER += r"|\[" + _GAP + r"(?:[0-9]{1,3}" + _GAP + "," + _GAP + r"){8}[0-9]"
# or in pieces (safe13b): each number quoted, pieces joined (`["174", "47", …]`)
PREFILTER += r"|\[[^0-9A-Za-z]{0,12}(?:[0-9]{1,3}[^0-9A-Za-z]{1,12}){8}[0-9]"
# a base58 key after its cue (`--keypair KEY`, `secret key KEY`)
PREFILTER += (r"|(?i:(?:priv(?:ate)?[ _-]?key|secret[ _-]?key|key[ _-]?pair)(?:\\*[\"'])?\s*"
              r"(?:=|:=|:|=>|\s)\s*(?:\\*[\"'])?[" + _B58 + r"]{8})")
"""What any rule needs but the runs :data:`PREFILTERS` holds apart, as one regular
expression valid in Python's ``re`` and in RE2 (DuckDB's ``regexp_matches``): the
knowledge base runs both in SQL over the stored text and hands :func:`find_secrets`
only the texts one of them matches."""

_B58_RUN = (r"(?:^|[^A-Za-z0-9]|\\{1,8}[nrt])(?:[" + _B58 + r"]{85,88}|S[A-Z2-7]{55})"
            r"(?:$|[^A-Za-z0-9])")
"""A Solana keypair in base58 with no cue (64 bytes: 85 to 88 characters of the alphabet
between other characters; a transaction's signature passes too: the rules tell them
apart), or a Stellar secret seed (``S`` and 55 base32 characters)."""
_PHRASE_GAP_RE2 = r"""(?:[ \t\r\n,"'\[\]>*|`#/._:)0-9-]|\\+[nrt"'])+"""
"""(safe12: digits in the class, not ``[0-9]{1,2}`` repeated: Python's ``re`` runs this
prefilter too, and read a run of digits an exponential number of ways.)"""
_PHRASE_RUN = (r"(?:^|[^A-Za-z0-9_\\]|\\{1,8}[nrt])(?:[A-Za-z][a-z]{2,7}"
               r"(?:" + _PHRASE_GAP_RE2 + r"[A-Za-z][a-z]{2,7}){11}"
               r"|[A-Z]{3,8}(?:" + _PHRASE_GAP_RE2 + r"[A-Z]{3,8}){11})")
"""A recovery phrase with no cue: twelve words in a row (:data:`_WORD_GAP` between
them), in lower case, Title Case or capitals (safe11: a wallet's backup screen prints
them in capitals), numbered, quoted or joined by hyphens (safe11b)."""
_WRAP_CLOSE = r"""[ \t]*(?:\\{0,8}["'`][ \t]*)?(?:[+|\\,-][ \t]*)?"""
_WRAP_OPEN = r"""[ \t]*(?:(?:>|#|//|\||\\{0,8}["'`(])[ \t]*){0,4}"""
_WRAP_BR = r"(?:\r?\n|(?:\\{1,8}r)?\\{1,8}n)"
_B58_WRAP = (r"(?:^|[^A-Za-z0-9])[" + _B58 + r"]{29,88}" + _WRAP_CLOSE + _WRAP_BR
             + r"|(?:\n|\\{1,8}n)" + _WRAP_OPEN + r"[" + _B58
             + r"]{29,88}(?:$|[^A-Za-z0-9]|\\)"
             # narrower lines (safe12): two whole lines of base58 in a row
             r"|(?:^|\n|\\{1,8}n)" + _WRAP_OPEN + r"[" + _B58 + r"]{8,28}" + _WRAP_CLOSE
             + r"(?:" + _WRAP_BR + r"[ \t]*){1,3}" + _WRAP_OPEN + r"[" + _B58 + r"]{8,28}"
             + _WRAP_CLOSE + r"(?:$|" + _WRAP_BR + r")"
             # safe13: a keypair in 13 pieces or more, six lines of 2 to 7 in a row
             r"|(?:(?:^|\n|\\{1,8}n)" + _WRAP_OPEN + r"[" + _B58 + r"]{2,7}" + _WRAP_CLOSE
             + r"){6}(?:$|" + _WRAP_BR + r")")
"""A Solana keypair in base58 wrapped over lines (safe11): a piece of 29 characters or
more ends a line or starts one, after a quote's or a comment's marks (rsafe11: and
a JSON-escaped ``\\n`` after it; two pieces of 85 characters: one is 43 or more; more
pieces: each middle one fills a line); or (safe12) two whole lines of 8 to 28 characters
in a row (a narrow wrap: 4 to 11 pieces), each in a string's quotes, a table's cell,
ended by ``-``, ``\\`` or ``+``."""
_B64_WRAP = (r"(?:^|\n|\\{1,8}n)[ \t>\"'`\\]*[A-Za-z0-9+/]{32,76}={0,2}[ \t\"'`,+|\\]*"
             r"(?:\n|\\{1,8}n)[ \t>\"'`\\]*(?:[0-9]{1,6}(?:→|\t|\\{1,8}t)[ \t]*)?[A-Za-z0-9+/]{32}"
             # or strings on one line (`["…", "…"]`)
             r"|[\"'`][A-Za-z0-9+/]{32,76}={0,2}\\{0,8}[\"'`][ \t]*[,+]?[ \t]*\\{0,8}[\"'`]"
             r"[A-Za-z0-9+/]{32}")
"""A key's body wrapped narrower than 64 columns (safe13): two lines in a row of 32 base64
characters or more, in strings' quotes or a listing's numbered lines too
(:func:`_key_runs` decides)."""
PREFILTERS: tuple[str, ...] = (PREFILTER, _B58_RUN + "|" + _PHRASE_RUN + "|" + _B58_WRAP
                               + "|" + _B64_WRAP)
"""The prefilter as the knowledge base runs it: a text may hold a secret when one of
these matches it.  Two, because RE2 gives each pattern its own automaton: the counted
runs of the second in :data:`PREFILTER`'s alternation made it 10x slower (1.7 s instead
of 0.17 s over the 7 MB of 22 real sessions; its state sets no longer fit the DFA's
budget), while apart they cost 10-20 % more than :data:`PREFILTER` alone.  The wrapped
keypair's runs (safe11) joined the second: on the 14 MB of the shared sessions, three
times over, a third automaton cost 20-35 % more than the two before it, joined 7-23 %
(a loaded machine: medians of 7 runs)."""

_RULES: list[_Rule] | None = None
_PREFILTER_RES = tuple(re.compile(
    p.replace("[a-z0-9_.-]*", "[a-z0-9_.-]{0,64}").replace("[a-z0-9_$.]*", "[a-z0-9_$.]{0,80}")
    .replace("[a-z0-9_]*", "[a-z0-9_]{0,64}")
    .replace("[^()\\n]*", "[^()\\n]{0,300}").replace("[^\\[\\]\\n]*", "[^\\[\\]\\n]{0,300}"))
    for p in PREFILTERS)
""":data:`PREFILTERS` for Python's ``re`` (:func:`may_hold_secret`): a name's tail is
bounded, which RE2's automaton does not need and ``re`` does (rsafe11: unbounded, each
stem of a lower-cased base58 run read to the run's end, 445 s on 210 kB)."""


def rules() -> list[_Rule]:
    """Every rule, specific ones first (on overlapping spans the first rule wins)."""
    global _RULES
    if _RULES is None:
        specific, generic = _logkb_rules()
        theirs = _detect_secrets_rules()
        url = [r for r in theirs if r.kind == "url-password"]  # a token in a URL: its kind
        # logkb's userinfo rule first: it runs to the last `@` (a password holding `@`)
        # where detect-secrets' stops at the first and the rest showed
        mine = [r for r in generic if r.name == "logkb:url-userinfo"]
        _RULES = (specific + [r for r in theirs if r.kind != "url-password"] + mine + url
                  + [r for r in generic if r not in mine])
    return _RULES


def may_hold_secret(text: str) -> bool:
    """Whether any rule could fire on ``text`` (the cheap test run before the rules)."""
    return any(rx.search(text) is not None for rx in _PREFILTER_RES)


def _span(rule: _Rule, m: re.Match[str], text: str) -> tuple[int, int] | None:
    if rule.group == -1:
        for g in range(m.re.groups, 0, -1):
            if m.group(g) is not None:
                return m.span(g)
        return m.span(0)
    if m.group(rule.group) is None:
        return None
    start, end = m.span(rule.group)
    if rule.name == "NpmDetector" and text.startswith("npm_", start):
        # detect-secrets' `npm_.+` runs to the line's end: over a JSON text's quotes and
        # braces, whose replacement broke the raw message (`export --include-raw`)
        t = _TOKEN_TAIL.match(text, start + 4)
        return (start, t.end()) if t else None
    if rule.group == 0 and rule.kind != "private-key":  # a token pattern that stops early
        # (JWT's lazy tail): to its end
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


def _name_start(text: str, m: re.Match[str]) -> int:
    """Where the identifier an assignment match starts inside begins."""
    i = m.start()
    while i > 0 and text[i - 1] in _NAME_CHARS:
        i -= 1
    return i


def _name_at(text: str, m: re.Match[str]) -> str:
    """The whole identifier an assignment match starts inside (``DB_PASSWORD`` for a
    match at ``PASSWORD``)."""
    i = _name_start(text, m)
    j = m.start()
    while j < len(text) and text[j] in _NAME_CHARS:
        j += 1
    return text[i:j].lower()


_KEYPAIR_CUE = re.compile(
    r"(?i:key[ _-]?pair|secret[ _-]?key|private[ _-]?key|priv[ _-]?key|id\.json|wallet"
    r"|solana|signer|deployer|payer|authority|seed)")
"""A word before a byte array that names it a key (the 200 characters before it)."""


_PIECE_NUM = re.compile(r"(?<![A-Za-z0-9_])[0-9]+")
"""A number of a keypair in pieces (not the ``8`` of ``Uint8Array``)."""


def _is_keypair(values: list[int]) -> bool:
    """Whether 64 bytes are an Ed25519 seed followed by its public key (a Solana
    ``id.json`` keypair), derived with the ``cryptography`` package."""
    if len(values) != 64 or any(not 0 <= v < 256 for v in values):
        return False
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = Ed25519PrivateKey.from_private_bytes(bytes(values[:32]))
    return seed.public_key().public_bytes_raw() == bytes(values[32:])


_B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58_ALPHABET)}


def b58decode(value: str) -> bytes | None:
    """The bytes a base58 string (Bitcoin's alphabet, Solana's keys) stands for, or
    ``None`` when a character is not of the alphabet.  Each leading ``1`` is a zero
    byte.  Quadratic in the length (Python's big integers): call it on short runs."""
    n = 0
    for c in value:
        d = _B58_INDEX.get(c)
        if d is None:
            return None
        n = n * 58 + d
    zeros = len(value) - len(value.lstrip("1"))
    return b"\0" * zeros + n.to_bytes((n.bit_length() + 7) // 8, "big")


def b58encode(data: bytes) -> str:
    """``data`` in base58 (the inverse of :func:`b58decode`)."""
    n = int.from_bytes(data, "big")
    out = []
    while n:
        n, r = divmod(n, 58)
        out.append(_B58_ALPHABET[r])
    zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * zeros + "".join(reversed(out))


def _b58_key(value: str, sizes: tuple[int, ...]) -> bytes | None:
    """The bytes of a base58 ``value`` when they are a key's size and look random (16
    different values at least: not the system program's 32 zero bytes)."""
    raw = b58decode(value)
    if raw is None or len(raw) not in sizes or len(set(raw)) < 16:
        return None
    return raw


_ED25519_ORDER = 2**252 + 27742317777372353535851937790883648493
"""The order L of Ed25519's base point: a signature's second half S is below it."""


_ED25519_P = 2**255 - 19
_ED25519_D = -121665 * pow(121666, -1, _ED25519_P) % _ED25519_P


def _is_point(enc: bytes) -> bool:
    """Whether 32 bytes encode a point of Ed25519 (RFC 8032 5.1.3: y below p, and
    (y² - 1) / (d·y² + 1) a square mod p): half of random 32 bytes do."""
    y = int.from_bytes(enc, "little") & ((1 << 255) - 1)
    if y >= _ED25519_P:
        return False
    u = (y * y - 1) % _ED25519_P
    v = (_ED25519_D * y * y + 1) % _ED25519_P
    x2 = u * pow(v, -1, _ED25519_P) % _ED25519_P
    return x2 == 0 or pow(x2, (_ED25519_P - 1) // 2, _ED25519_P) == 1


def _is_signature(raw: bytes) -> bool:
    """Whether 64 bytes may be an Ed25519 signature (R a point, then S < L
    little-endian, as RFC 8032 requires of every signature a verifier accepts): a
    Solana transaction's id.  A keypair's second half is a public key, above L 15 times
    in 16; 64 random bytes pass 1 time in 32 (S below L 1 in 16, R a point 1 in 2), and
    an expanded secret key (a clamped scalar, then a prefix) never: its first half's
    low 3 bits are clear and its top bits 01, which 1 signature in 32 shares (rsafe11:
    hidden then, the safe side)."""
    clamped = raw[0] & 7 == 0 and raw[31] & 0xC0 == 0x40
    return (int.from_bytes(raw[32:], "little") < _ED25519_ORDER and not clamped
            and _is_point(raw[:32]))


_EVM_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
"""An Ethereum-style address: public (a private key is 32 bytes, 64 digits)."""
_STELLAR_SEED = 18 << 3
"""The version byte of a Stellar secret seed (``S…``; an account is ``G…``, 6 << 3)."""


def _crc16_xmodem(data: bytes) -> int:
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def strkey(version: int, payload: bytes) -> str:
    """A Stellar StrKey: the version byte and the payload, their CRC16-XModem
    (little-endian) after them, in base32."""
    import base64

    data = bytes([version]) + payload
    return base64.b32encode(data + _crc16_xmodem(data).to_bytes(2, "little")).decode()


def _is_stellar_seed(value: str) -> bool:
    """Whether ``value`` is a Stellar secret seed: base32 of the seed's version byte, 32
    bytes and their checksum (an account, a contract id or a word in capitals fails)."""
    import base64
    import binascii

    try:
        raw = base64.b32decode(value)
    except (binascii.Error, ValueError):
        return False
    return (len(raw) == 35 and raw[0] == _STELLAR_SEED
            and _crc16_xmodem(raw[:33]) == int.from_bytes(raw[33:], "little"))


_PUBLIC_BEFORE = re.compile(r"(?i:pub(?:lic)?[ \t])\Z")
"""The word before a name that makes it a public key's (``Public key: …``)."""


_DECLARED = re.compile(r"(?:^|[\s;{(])(?:const|let|var|val|final|my)\s+\Z")
"""A declaration's keyword before a name: in such code a literal is quoted."""
_IDENT_PATH = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\??\.[A-Za-z_$][A-Za-z0-9_$]*)*")
"""An identifier or a member path (``req.body.password``, ``opts?.token``)."""


def _token_like(value: str) -> bool:
    """Whether a value is random like a token (long, letters and digits, high entropy):
    no name a programmer gives a variable or a function."""
    return (len(value) >= 16 and entropy(value) >= 3.2 and re.search(r"\d", value)
            is not None and re.search(r"[A-Za-z]", value) is not None)


_CUT_MARK = re.compile(
    r"[\[(][ \t]*(?:…|\\+u2026|\.\.\.?|(?i:truncated|cut|snip(?:ped)?|omitted|elided|redacted))"
    r"[^\[\]()\n]{0,40}[\])]")
"""A cut marker or an ellipsis in brackets (``[…]``, ``(...)``, ``[truncated 120
chars]``): what a tool or a writer puts where a text was cut, no call's arguments."""


def _reads_code(rule: _Rule, m: re.Match[str], text: str, value: str) -> bool:
    """Whether an unquoted value assigned to a secret's name is code that reads one
    (safe11): a call or an index follows it (``data.get("password")``,
    ``creds["db"]``), or a declaration's keyword stands before the name and the value is
    an identifier or a member path (``const password = req.body.password;``)."""
    if m.lastindex != m.re.groups:  # quoted: a literal
        return False
    if "." not in value and _token_like(value):
        return False  # `API_KEY=…(`, `TOKEN=…[…]`: a token a bracket follows (rsafe11)
    after = text[m.end():m.end() + 1]
    if after in ("(", "[") and text[m.end() - len(value) - 1] == "=" \
            and _CUT_MARK.match(text, m.end()) is not None:
        return False  # `DB_PASSWORD=Hx9kq2Lm7zP[…]`: a value a cut marker follows (safe11b)
    if after in ("(", "["):
        return True
    start = _name_start(text, m)
    return (_IDENT_PATH.fullmatch(value) is not None
            and _DECLARED.search(text, max(0, start - 12), start) is not None)


def _fallback_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a literal in code that reads a secret (``logkb:code-fallback``): the
    fallback of a secret's name (``or "…"``, a getter's default) is a password when the
    name is one (anything but a placeholder or a word), a token when it looks like one;
    a literal a call reads from (``decode("…")``) only when it looks like a token
    (``data.get("password")`` names a key)."""
    if _CONSTANT.fullmatch(value) or value.startswith(("/", "./", "../", "~")) \
            or "://" in value:
        return None
    name = m.group(1).lower() if m.re.groupindex.get("var") else _name_at(text, m)
    if not any(w.endswith(_STEM_ENDS) for w in re.split(r"[_.-]", name) if w) \
            or _PUBLIC.search(name):
        return None
    # the third alternative of the code's row: `decode("…")`
    read_from = not m.re.groupindex.get("var") and (m.lastindex or 0) > 6
    if re.search(r"pass|pwd|contras", name) and not read_from:
        return None if re.fullmatch(r"[A-Za-z]+", value) and len(value) < 12 else "password"
    if " " in value or not _token_like(value) or _EVM_ADDRESS.fullmatch(value):
        return None
    return "token" if "token" in name or "auth" in name else (
        "api-key" if "key" in name else "secret")


_NOT_SECRET_WORDS = frozenset(("on", "off", "enabled", "disabled", "enable", "disable",
                               "auto", "always", "never", "required", "secret", "hidden"))
_PASS_ENDS = ("PASS", "PASSWD", "PASSWORD", "PASSPHRASE", "PWD", "PW")


def _classes(value: str) -> int:
    """How many of lower case, capitals, digits and other characters ``value`` mixes."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def _env_kind(name: str, value: str) -> str | None:
    """The kind of a value assigned to an environment variable named for a secret
    (``logkb:env-secret``), or ``None``: a password's or a secret's variable holds a
    secret whatever it is (a weak password too) unless it is a placeholder, a variable
    (``$X``, ``${X}``, ``%X%``, ``<placeholder>``), a path, a URL or a constant's name;
    a token's or a key's a mix of three kinds of characters (``SORT_KEY=created_at`` is
    a column) or a token's entropy.  ``changeme`` and the like stay shown: a default
    everybody knows is no secret to hide."""
    if _is_placeholder(value) or value.lower() in _NOT_SECRET_WORDS or "PUBLIC" in name \
            or "PUB_" in name or value.startswith(("/", "./", "../", "~")) \
            or "://" in value or _CONSTANT.fullmatch(value):
        return None
    if name.endswith(_PASS_ENDS):
        return "password"
    if name.endswith("SECRET"):
        return "secret"
    if _EVM_ADDRESS.fullmatch(value) or not (
            _token_like(value) or (len(value) >= 8 and _classes(value) >= 3)):
        return None
    return "token" if name.endswith("TOKEN") else "api-key"


_NAME_ENDS = ("pass", "passwd", "password", "passphrase", "pwd", "pw", "secret", "secretkey",
              "secret_key", "secret-key", "secret.key")
_TYPE_WORDS = frozenset(("bytes", "float", "any", "object", "list", "dict", "char", "text",
                         "boolean", "integer", "number", "secretstr", "secretbytes", "field"))
"""A type's name after a name and its colon (``db_password: bytes``): no value."""
_CAMEL_TYPE = re.compile(r"(?:[A-Z][a-z]+){2,}")
"""A class's name in CamelCase (``SecretStr``, ``PasswordField``): a type, no value."""
_ENV_LINE = re.compile(
    r"(?:^|\n|\\{1,8}n)[ \t]*[\\\"'`]{0,8}[ \t]*(?:(?:export|set|setenv|declare|-)[ \t]+)?\Z")
"""What stands before a name on its line in shell, ``.env`` or YAML: nothing, ``export``
(a string's quote first: the line is a JSON string's)."""


_SECRET_WORD = re.compile(r"(?i:pass|pwd|secret)")
_CAMEL = re.compile(r"[a-z][A-Z]")


def _secret_var(value: str) -> bool:
    """Whether ``value`` is an identifier named for a secret, made of words
    (``old_db_pass``, ``cfg.dbPass``; not ``mysupersecret``, a word)."""
    return (_IDENT_PATH.fullmatch(value) is not None and _SECRET_WORD.search(value) is not None
            and (any(c in value for c in "._$") or _CAMEL.search(value) is not None))


def _names_a_secret(rule: _Rule, m: re.Match[str], value: str) -> bool:
    """Whether an unquoted value is a variable or a member named for a secret
    (``db_pass = settings.db_pass``, ``self.password = password``): code passing one on."""
    return m.lastindex == m.re.groups and _secret_var(value)


_PATH = re.compile(r"(?:~|\.{1,2})?(?:/[\w.+@%~-]*)+|[A-Za-z]:(?:[\\/]+[\w .+@%~-]*)+"
                   r"|\\{2}[\w.-]+(?:\\[\w .$+@%~-]*)*")
"""A path: absolute, from ``~``, ``.`` or ``..``, a Windows drive's or a share's."""
_REL_PATH = re.compile(r"\.{1,2}|(?<![\w.+@-])[\w.+@-]+(?:/[\w.+@-]+)+/?")
"""A relative path (``src/app``, ``..``): a directory's name only after ``pwd``."""


def _directory(name: str, value: str) -> bool:
    """Whether ``value`` is a directory or a path, not a password (safe14): a path of
    only a path's characters (``/home/me``, ``~/x``, ``C:\\Users\\me``) after any
    password's name (``DB_PASSWORD=/run/secrets/db`` names the file that holds it), a
    relative one (``src/app``, ``..``) after a working directory's (``pwd``, ``oldpwd``,
    ``cwd``: the shell's ``PWD``/``OLDPWD`` hold directories, not passwords)."""
    v = value.strip("'\"`")
    if _PATH.fullmatch(v) is not None and ("/" in v or "\\" in v):
        return True
    low = name.lower().rstrip("'\"\\ \t")
    return low.endswith(("pwd", "cwd")) and _REL_PATH.fullmatch(v) is not None


def _name_secret_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a value assigned to a password's or a secret's name in any case
    (``logkb:name-secret``, safe13), or ``None``.  Whatever the value is, a weak word
    too, unless it is a placeholder, a variable, a path, a URL, a constant's or a type's
    name, or code: a call or an index after it, a member path (``settings.db_pass``), an
    identifier after ``const``.  A bare word (letters and ``_``, no digit) unquoted is a
    variable in code (``connect(db_pass=password)``, ``admin_pass = new_pass``): a
    secret only on a line of its own in shell, ``.env`` or YAML (``admin_pass=hunter``,
    ``db_passwd: hunter``); the bare names (``password``, ``passwd``) only quoted."""
    start, end = _name_start(text, m), m.start()
    name = text[start:m.start("op")].rstrip(" \t\"'\\").lower()
    if not name.endswith(_NAME_ENDS) or "pub" in name or name.startswith(("http", "www")):
        return None
    if end > start:  # the name's last word: after a separator, or capitalised after one
        before, first = text[end - 1], text[end]
        if not (before in "_.-" or (first.isupper() and (before.islower() or before.isdigit()))
                or _joined_name(text[start:end], text[end:m.start("op")])):
            return None  # `bypass`, `compass`, `PASSWORD` inside `MYPASSWORD`
    elif m.group(0)[:6].lower() not in ("passwd", "passwo", "passph", "secret") \
            or name in ("secret", "pass", "pwd", "pw"):
        return None  # a bare `secret:`, `pass:`, `pwd`: no name of a secret's variable
    compound = name not in ("pass", "passwd", "password", "passphrase", "pwd", "pw", "secret")
    if start > 0 and text[start - 1] in "@/":
        return None  # `@db_pass=`, a path's piece: no assignment
    vstart = m.start(m.lastindex or 0)
    quoted = vstart > 0 and text[vstart - 1] in "\"'`"
    low = value.lower()
    if _is_placeholder(value) or low in _NOT_SECRET_WORDS or low in _TYPE_WORDS \
            or value.startswith(("/", "./", "../", "~")) or "://" in value \
            or _CONSTANT.fullmatch(value) or _directory(name, value):
        return None
    if not quoted:
        if not compound:
            return None  # `password: hunter2` in prose: the assignment row's to judge
        after = text[m.end():m.end() + 1]
        if after in ("(", "[") and _CUT_MARK.match(text, m.end()) is None:
            return None  # `db_pass=get(…)`, `db_pass = creds["db"]`
        if ("." in value and _IDENT_PATH.fullmatch(value)) or _secret_var(value):
            return None  # `db_pass = settings.db_pass`, `db_pass = old_db_pass`
        if _CAMEL_TYPE.fullmatch(value):
            return None  # `db_password: SecretStr`
        if re.fullmatch(r"[A-Za-z_]+", value):
            op = m.group("op")
            line_head = _ENV_LINE.search(text, max(0, start - 40), start) is not None
            if not (line_head and (op == "=" and text[m.start("op") - 1] not in " \t"
                                   or op.startswith(":"))):
                return None  # a variable in code: `f(db_pass=password)`
        if _DECLARED.search(text, max(0, start - 12), start) is not None \
                and _IDENT_PATH.fullmatch(value):
            return None  # `const dbPass = userInput`
    return "secret" if "secret" in name else "password"


_JOINED_HEADS = {
    "pass": frozenset(("admin", "root", "db", "user", "mysql", "pg", "postgres", "redis",
                       "smtp", "mail", "ftp", "sftp", "ssh", "sudo", "login", "master", "app",
                       "api", "ldap", "mongo", "rabbit", "vnc", "wifi", "proxy", "store",
                       "keystore", "sa", "sql")),
    "secret": frozenset(("client", "app", "api", "jwt", "session", "webhook", "shared",
                         "consumer", "oauth", "signing", "hmac", "cookie", "master")),
}
"""The words a ``pass`` or a ``secret`` joined to them with no separator makes a secret's
name (safe13b: ``adminpass``, ``clientsecret``; not ``bypass``, ``compass``,
``topsecret``)."""
_JOINED_NOT = frozenset(("no", "by", "com", "sur", "tres", "over", "under", "en", "im"))
"""Heads that make a joined ``passwd`` a word or a flag (``nopasswd``)."""


def _joined_name(head: str, end: str) -> bool:
    """Whether a name in lower case whose last word ``end`` (``pass``, ``password``,
    ``pwd``, ``secret``…) is joined to the word before it with no separator is a secret's
    (safe13b): ``adminpass``, ``dbpassword``, ``rootpwd``, ``mysql_rootpass``.  Before
    ``password``, ``passwd``, ``passphrase`` or ``pwd`` any word of two letters or more
    (no English word ends so); before ``pass`` or ``secret`` only the words of
    :data:`_JOINED_HEADS` (and before ``pw``, safe14: ``rootpw``).  A name in capitals
    is read the same when all of it is (safe14: ``ADMINPASS``, ``ROOTPW``); ``PASSWORD``
    inside ``MyPASSWORD`` stays apart."""
    word = re.split(r"[_.-]", head)[-1]
    stem = end.rstrip("\\\"' \t")
    if stem.isupper() and word.isupper():  # safe14: `ADMINPASS`, `ROOTPW`, `DBPASSWORD`
        word, end = word.lower(), end.lower()
    if not (end.islower() and re.fullmatch(r"[a-z][a-z0-9]+", word)) or word in _JOINED_NOT:
        return False
    stem = end.lower().rstrip("\\\"' \t")
    if stem.startswith(("password", "passwd", "passphrase", "pwd")):
        return True
    key = "pass" if stem in ("pass", "pw") else (
        "secret" if stem.startswith("secret") else "")
    return bool(key) and word in _JOINED_HEADS[key]


_KEY_HEADS = ("api", "access", "secret", "auth", "master", "client", "license", "licence",
              "signing", "encryption", "subscription", "app", "service", "admin", "private",
              "session", "webhook", "consumer", "shared", "hmac", "jwt", "deploy", "account",
              "integration", "developer", "write",
              # a service's name (`openaiKey`, `stripeKey`)
              "openai", "anthropic", "stripe", "google", "gemini", "mistral", "groq",
              "cohere", "replicate", "github", "gitlab", "slack", "twilio", "sendgrid",
              "mailgun", "algolia", "mapbox", "firebase", "supabase", "pinecone", "resend",
              "sentry", "datadog", "aws", "azure", "cloudflare", "vercel", "heroku",
              "huggingface", "deepseek", "perplexity", "openrouter", "tavily", "serper",
              "elevenlabs", "deepgram", "helius", "alchemy", "infura", "moralis",
              "etherscan", "birdeye", "coingecko", "jupiter", "notion", "airtable",
              "shopify", "paypal", "plaid", "clerk", "okta")
"""The words before a ``Key`` in a cased name that make it a credential's (``apiKey``,
``secretAccessKey``, ``X-Api-Key``, ``APIKEY``); ``sortKey``, ``primaryKey``,
``cacheKey``, ``hotKey`` stay shown."""
_TOKEN_NOT = frozenset((
    "next", "page", "continuation", "cancel", "cancellation", "eos", "bos", "pad", "unk",
    "sep", "cls", "mask", "start", "end", "stop", "max", "min", "num", "sync", "resume",
    "lexer", "parser", "invalid", "expected", "current", "last", "first", "prev",
    "previous", "special", "sentence", "word", "sub", "design", "color", "colour",
    "spacing", "font", "theme", "style", "type", "kind", "syntax", "input", "output",
    "prompt", "completion", "total", "count", "split", "cache", "cached", "reasoning",
    "is", "has", "get", "set", "to", "from", "with", "no", "csrf", "xsrf"))
"""The words before a ``Token`` in a cased name that make it no credential's
(``nextToken``, ``eosToken``, ``cancelToken``, ``colorToken``, ``csrfToken``)."""
_CASED_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def _cased_token_name(name: str, head: str, end: str) -> bool:
    """Whether a name with capitals in it, its last word ``end`` (``Token``, ``Key``,
    ``TOKEN``, ``KEY``) after ``head``, names a token or an API key (safe14): in
    camelCase or PascalCase (``authToken``, ``openaiApiKey``), an HTTP header's
    (``X-Api-Key``, ``Private-Token``) or joined in capitals (``AUTHTOKEN``, ``APIKEY``);
    ``API_KEY`` and the like are ``logkb:env-secret``'s.  Before ``Key`` a word of
    :data:`_KEY_HEADS`, before ``Token`` any word but :data:`_TOKEN_NOT`'s."""
    end = end.rstrip(" \t\"'\\")
    if not head or not (end in ("Token", "Key") or end in ("TOKEN", "KEY")):
        return False
    if end.isupper() and head.endswith("_") and head.isupper():
        return False  # `GITHUB_TOKEN`: the environment variable's row
    if end.isupper() and not head.isupper():
        return False  # `myTOKEN`: no name anybody writes
    words: list[str] = _CASED_WORD.findall(head)
    if not words:
        return False
    last = words[-1].lower()
    if end.lower() == "key":
        return last.endswith(_KEY_HEADS)
    return last not in _TOKEN_NOT and not last.isdigit()


def _words_name(value: str) -> bool:
    """Whether ``value`` is made of words a programmer names a variable with
    (``userApiKey1``, ``session_token_v2``: each run of letters 3 long or more, split
    where a small letter meets a capital), not a token's random letters (``x7Gq9LmP2``)."""
    runs = _CASED_WORD.findall(value.replace("_", " ").replace(".", " "))
    letters = [re.sub(r"[0-9]+", "", w) for w in runs]
    return bool(letters) and all(len(w) >= 3 or w.lower() in ("v", "id", "db", "to", "is",
                                                               "by", "of", "no", "")
                                 for w in letters)


def _case_switches(value: str) -> int:
    """How often ``value`` turns from a small letter to a capital or back."""
    return sum(1 for a, b in zip(value, value[1:])
               if a.isalpha() and b.isalpha() and a.islower() != b.islower())


def _name_token_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a literal assigned to a token's or an API key's name in lower case
    (``logkb:name-token``, safe13b): ``github_token = "…"``, ``openai_apikey: …``,
    ``access_key=…``; or ``None``.  The name is a compound one, in lower case (capitals
    are ``logkb:env-secret``'s); the value eight characters or more with a digit and a
    letter or a symbol (``max_token = 4096`` is a count), no placeholder, variable, path,
    URL, address, type or code (a call or an index after it, a member path, an identifier
    with ``_`` or after ``const``)."""
    start, end = _name_start(text, m), m.start()
    name = text[start:m.start("op")].rstrip(" \t\"'\\")
    if "pub" in name.lower() or name.lower().startswith(("http", "www")) \
            or text[max(0, start - 1):start] in ("@", "/", "$"):
        return None
    cased = name != name.lower()
    if cased:  # safe14: `apiKey`, `authToken`, `X-Api-Key`, `AUTHTOKEN`
        if not _cased_token_name(name, text[start:end], text[end:m.start("op")]):
            return None
    elif (name == "token" and text[max(0, start - 1):start] not in ("?", "&")) \
            or (end > start and text[end - 1] not in "_.-"):
        return None  # `token = …`, `mytoken`, `tokenizer`: no compound name of one
    vstart = m.start(m.lastindex or 0)
    quoted = vstart > 0 and text[vstart - 1] in "\"'`"
    low = value.lower()
    if _is_placeholder(value) or low in _NOT_SECRET_WORDS or low in _TYPE_WORDS \
            or value.startswith(("/", "./", "../", "~")) or "://" in value \
            or _CONSTANT.fullmatch(value) or _EVM_ADDRESS.fullmatch(value):
        return None
    if len(value) < 8 or _classes(value) < 2 or not (
            any(c.isdigit() for c in value) or _case_switches(value) >= 4):
        return None  # `maxToken: 4096`; safe14: `AbCdEfGhIjK` mixes case like a token
    if cased and _IDENT_PATH.fullmatch(value) and _words_name(value) and not quoted:
        return None  # `apiKey: userApiKey1`, `authToken: sessionToken2`: code
    if not quoted:
        after = text[m.end():m.end() + 1]
        if after in ("(", "[") and _CUT_MARK.match(text, m.end()) is None:
            return None  # `api_key = keys[0]`, `user_token = make(…)`
        if _IDENT_PATH.fullmatch(value) and ("." in value or "_" in value) \
                and not _token_like(value):
            return None  # `api_key = cfg.api_key2`, `id_token = id_token_v2`
        if _DECLARED.search(text, max(0, start - 12), start) is not None \
                and _IDENT_PATH.fullmatch(value):
            return None
    return "api-key" if name.lower().endswith("key") else "token"


_PEM_CUE = re.compile(
    r"(?i:(?<![A-Za-z0-9+/])(?:keys?\b|key's|priv(?:ate)?[ _-]?key|secret|credential|pkcs)"
    r"|(?<![A-Za-z0-9+])id_(?:rsa|dsa|ecdsa|ed25519)|\.(?:pem|key|p12|pfx)\b)")
"""A word before a base64 line that names it a key's (the 300 characters before it), a
word of its own (safe13: ``pkcs`` inside a line of a base64 dump named none)."""
_PEM_BODY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
                            " \t\r\n>\\")
"""What the lines of a key's body and the breaks between them are made of."""
_PEM_REACH = 64 * 80
"""How far after a base64 line its private key's END line may stand (64 lines)."""
_OPENSSH_HEAD = "b3BlbnNzaC1rZXktdjE"
"""``openssh-key-v1`` in base64: an OpenSSH private key's body starts so."""


def _der_private_head(value: str) -> bool:
    """Whether a base64 line starts a private key's body: an OpenSSH key, or DER of a
    SEQUENCE whose first item is a version INTEGER 0 or 1 (PKCS#1, PKCS#8, SEC1; a
    certificate or a public key starts with a SEQUENCE instead)."""
    import base64
    import binascii

    if value.startswith(_OPENSSH_HEAD):
        return True
    try:
        raw = base64.b64decode(value[:24])
    except (binascii.Error, ValueError):
        return False
    if len(raw) < 8 or raw[0] != 0x30:
        return False
    at = 2 + (raw[1] & 0x7F if raw[1] & 0x80 else 0)
    return raw[at:at + 3] in (b"\x02\x01\x00", b"\x02\x01\x01")


def _pem_end_after(text: str, end: int) -> bool:
    """Whether only lines of a key's body stand between ``end`` and a private key's END
    line (a block quoted from its middle).  String methods: no pattern tried at each
    line of a long dump."""
    i = text.find("-----END ", end, end + _PEM_REACH)
    return (i >= 0 and "PRIVATE KEY-----" in text[i:i + 60]
            and _PEM_BODY_CHARS.issuperset(text[end:i]))


def _in_public_block(text: str, start: int) -> bool:
    """Whether ``start`` is inside a PEM block that holds no private key (``PUBLIC KEY``,
    ``CERTIFICATE``): its BEGIN line above, no END line between."""
    i = text.rfind("-----BEGIN ", max(0, start - _PEM_REACH), start)
    return (i >= 0 and "PRIVATE" not in text[i:i + 60].split("\n", 1)[0]
            and text.find("-----END ", i, start) < 0)


def _pem_context(text: str, start: int, end: int, value: str, body_end: int) -> bool:
    """Whether a base64 line of 64 to 76 characters outside a PEM block is a key's body
    (safe12): after a word naming a key (:data:`_PEM_CUE`), first of a private key's
    body by its structure, above a private key's END line, or the next line of a body
    so found (``body_end``: where the last line of ``text`` hidden as a key's body ends,
    -1 none).  A base64 dump (an image, ``base64``'s 76 columns, ``openssl base64``'s
    64) is not one."""
    gap = text[body_end:start] if body_end >= 0 and 0 <= start - body_end <= 40 else ""
    if gap and ("\n" in gap) and gap.strip(" \t>\r\n\\n") == "":
        return True  # the next line of a body already found
    if _in_public_block(text, start):
        return False  # a public key's or a certificate's body (safe13)
    return (_PEM_CUE.search(text, max(0, start - 300), start) is not None
            or _der_private_head(value) or _pem_end_after(text, end))


_PIECE_GAP = re.compile(
    r"(?<![ \t])[ \t]*(?:\\{0,8}[\"'`][ \t]*)?(?:[,+|\\;][ \t]*)?(?:"
    # a line break or up to three (as is or JSON-escaped), then the next line's marks: a
    # listing's line number (`cat -n`, a Read tool's `  12→`), a quote's, a comment's,
    # a cell's or a string's
    r"(?:(?:\r?\n|(?:\\{1,8}r)?\\{1,8}n)[ \t]*){1,3}(?:[0-9]{1,6}(?:\u2192|\t|:|[ \t]*\|)[ \t]*)?"
    r"(?:(?:>|#|//|\||\\{0,8}[\"'`(])[ \t]*){0,4}"
    # or none: strings on one line (`"…", "…"`, `"…" + "…"`, `"…" "…"`)
    r"|(?<=[\"'`,+ \t])\\{0,8}[\"'`])")
"""What stands between two pieces of a key's body (:func:`_key_runs`)."""
_PEM_BEGIN_BEFORE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\"'`,\s]|\\{1,8}[nrt]|\\{1,8}(?=[\"'`])){0,24}\Z")
_PEM_END_AFTER = re.compile(
    r"(?:[\"'`,\s]|\\{1,8}[nrt]|\\{1,8}(?=[\"'`])){0,24}-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----")
_RUN_MIN = 64
"""A run of pieces this long at least may be a key's body (an Ed25519 key's is 64)."""


def _key_runs(text: str) -> list[tuple[int, int]]:
    """The pieces of private keys' bodies in ``text`` (safe13): base64 pieces of 16
    characters or more joined into runs by line breaks or strings' quotes
    (:data:`_PIECE_GAP`), whatever their width, hidden piece by piece when the run is a
    private key's: the bytes it decodes to hold one's structure (:func:`_key_bytes`), or
    a private key's BEGIN line stands before it or its END line after it.  A run of 16
    pieces and more needs no cue (a body cut at the top, a dump of many JSON strings);
    base64 of other data (an image, a wheel, a certificate: one large integer) has no
    such structure.  Linear: each piece is read once and each run decoded once (four
    alignments)."""
    if len(text) < _RUN_MIN:
        return []
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []

    def flush() -> None:
        total = sum(b - a for a, b in run)
        if total < _RUN_MIN or (len(run) == 1 and total < 100) \
                or max(b - a for a, b in run) < 32:
            return  # a key's lines hold 32 characters at least (a listing of paths: none)
        joined = "".join(text[a:b] for a, b in run)
        if (_der_private_head(joined)
                or _PEM_BEGIN_BEFORE.search(text, max(0, run[0][0] - 120), run[0][0])
                or _PEM_END_AFTER.match(text, run[-1][1])
                or _key_bytes(joined)):
            out.extend(run)

    for m in _B64_PIECE.finditer(text):
        a, b = m.span()
        if run and not (a - run[-1][1] <= 48
                        and _PIECE_GAP.fullmatch(text, run[-1][1], a) is not None):
            flush()
            run = []
        run.append((a, b))
    if run:
        flush()
    return out


def _key_bytes(b64: str) -> bool:
    """Whether base64 (a run's pieces joined, cut anywhere on a line of whole groups)
    decodes, at one of its four alignments, to a private key's structure: two large DER
    INTEGERs in a row (an RSA key's d, p, q …; a certificate or a public key holds one),
    two large SSH mpints in a row (an OpenSSH RSA key's private part), an OpenSSH
    Ed25519 key's private part (its public key, then the seed and the same public key),
    or OpenSSH's magic."""
    import base64
    import binascii

    for off in range(4):
        n = (len(b64) - off) // 4 * 4
        if n < _RUN_MIN:
            break
        try:
            raw = base64.b64decode(b64[off:off + n])
        except (binascii.Error, ValueError):
            continue
        if _der_integers(raw) or _ssh_integers(raw) or _ssh_private_part(raw) \
                or b"openssh-key-v1\0" in raw:
            return True
    return False


_SSH_KEY_TYPE = re.compile(rb"\0\0\0[\x07-\x30](?:ssh-|ecdsa-|sk-)")


def _ssh_private_part(raw: bytes) -> bool:
    """Whether an OpenSSH private key's private part starts in ``raw``: two equal check
    integers, then the key's type (a public key's blob has no check integers)."""
    for m in _SSH_KEY_TYPE.finditer(raw):
        i = m.start()
        if i >= 8 and raw[i - 8:i - 4] == raw[i - 4:i]:
            return True
    return False


def _big_int(raw: bytes, i: int, head: int, size: int) -> bool:
    """Whether ``raw[i + head:i + head + size]`` may be a large positive integer in its
    canonical form (no sign bit; a leading zero only before one)."""
    if not 64 <= size <= 1100 or i + head + 2 > len(raw):
        return False
    first = raw[i + head]
    return first < 0x80 and (first != 0 or raw[i + head + 1] >= 0x80)


def _der_int_at(raw: bytes, i: int) -> int:
    """The end of a large DER INTEGER starting at ``i``, or -1."""
    if i + 4 > len(raw) or raw[i] != 0x02:
        return -1
    if raw[i + 1] == 0x81:
        head, size = 3, raw[i + 2]
    elif raw[i + 1] == 0x82:
        head, size = 4, raw[i + 2] << 8 | raw[i + 3]
    else:
        return -1
    return i + head + size if _big_int(raw, i, head, size) else -1


def _der_integers(raw: bytes) -> bool:
    i = raw.find(b"\x02")
    while i != -1:
        j = _der_int_at(raw, i)
        if j != -1:
            k = j + 5 if raw[j:j + 5] == b"\x02\x03\x01\x00\x01" else j  # e = 65537
            if k + 4 <= len(raw) and _der_int_at(raw, k) != -1:
                return True
        i = raw.find(b"\x02", i + 1)
    return False


def _ssh_int_at(raw: bytes, i: int) -> int:
    if i + 6 > len(raw) or raw[i] or raw[i + 1]:
        return -1
    size = raw[i + 2] << 8 | raw[i + 3]
    return i + 4 + size if _big_int(raw, i, 4, size) else -1


def _ssh_integers(raw: bytes) -> bool:
    i = raw.find(b"\0\0")
    while i != -1:
        j = _ssh_int_at(raw, i)
        if j != -1:
            k = j + 7 if raw[j:j + 7] == b"\0\0\0\x03\x01\0\x01" else j  # e = 65537
            if k + 6 <= len(raw) and _ssh_int_at(raw, k) != -1:
                return True
        if raw[i + 2:i + 4] == b"\0\x40" and i >= 36 and raw[i - 36:i - 32] == b"\0\0\0\x20" \
                and raw[i + 36:i + 68] == raw[i - 32:i] and len(raw) >= i + 68:
            return True  # Ed25519: string pub(32), string seed+pub(64)
        i = raw.find(b"\0\0", i + 1)
    return False


_TECH_WORD = re.compile(r"(?i:sha|md|base|utf|aes|rsa|ecdsa|argon|pbkdf|crc|ed|blake|hs|rs|es"
                        r"|ps|bcrypt|scrypt|x|v|ipv|http|tls|ssl|oauth|oidc|totp|hotp|fido|u2f"
                        r"|webauthn|mfa|2fa|e2e|i18n|k8s)[0-9]*[a-z]?")
"""A technical word with a number in it (``sha256``, ``base64``, ``utf8``, ``argon2id``,
``pbkdf2``): what prose says a password is hashed or encoded with, no password."""
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


_STRUCTURED = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]{2,}|[0-9]+)(?:[:/#|](?:[A-Za-z][a-z]*|[0-9]+))+")
"""Structured text of words and numbers (``user:1234:profile``, ``orders/42``): a cache's
or a map's key, no credential's value."""


def _credential_key_name(text: str, m: re.Match[str]) -> bool:
    """Whether the name an assignment match starts inside is a credential's key (its
    word before ``key`` one of :data:`_KEY_HEADS`: ``apiKey``, ``secret_key``), not a
    map's (``cacheKey``, ``sort_key``, ``key``)."""
    i = _name_start(text, m)
    j = m.start()
    while j < len(text) and text[j] in _NAME_CHARS:
        j += 1
    words = [w.lower() for w in _CASED_WORD.findall(text[i:j])]
    if not words or not words[-1].endswith("key"):
        return True  # `…token`, `…auth`: not a key's name, the row's other checks judge
    head = words[-1][:-3] or (words[-2] if len(words) > 1 else "")
    return head.endswith(_KEY_HEADS)


def _prose_word(value: str) -> bool:
    """Whether an unquoted ``value`` after a password's name in prose is words, not a
    password (prose14): letters only (``wrong``, ``required``, ``Stored``), a technical
    word (``sha256``, ``base64``), a number under six digits, or words, numbers and short
    pieces joined by ``-``, ``_``, ``.``, ``/`` (``bcrypt-hashed``, ``256-bit``,
    ``user.password``, ``v1.2``), after a sentence's ``!`` or ``?`` and Markdown's marks
    are taken off.  A value with another symbol (``S3cr3t!x``, ``Tr0ub4dor&3``), letters
    and digits in one piece (``hunter22x``) or six digits or more is a password."""
    v = value.strip("*_~").rstrip("!?")
    if not v:
        return True
    if re.search(r"[^A-Za-z0-9./_-]", v):
        return False
    if v.isdigit():
        return len(v) < 6
    pieces = [p for p in re.split(r"[./_-]+", v) if p]
    if len(pieces) > 1:
        return all(p.isalpha() or p.isdigit() or len(p) <= 4 or _TECH_WORD.fullmatch(p)
                   for p in pieces)
    return v.isalpha() or _TECH_WORD.fullmatch(v) is not None


_EXPLICIT_CUE = re.compile(r"(?:^|[ \t])(?:is|was|be|now|(?:set|changed|reset)[ \t]+to)"
                           r"(?:[ \t]*:)?\Z|:\Z")
"""A prose cue that says what a password *is* (``is``, ``was``, ``will be``, ``set to``,
``for user admin:``, ``:``), after which one weak word is the password (safe15)."""
_PREDICATE_WORDS = frozenset((
    # what prose says a password is, rather than what it is (safe15): adjectives,
    # adverbs, determiners, prepositions and pronouns that stand after `is`
    "wrong", "right", "correct", "incorrect", "invalid", "valid", "empty", "blank", "set",
    "weak", "strong", "short", "long", "same", "new", "old", "fine", "good", "bad", "ok",
    "okay", "safe", "unsafe", "secure", "insecure", "simple", "complex", "plain", "clear",
    "random", "unique", "known", "unknown", "shown", "given", "taken", "sent", "kept",
    "lost", "case", "not", "too", "also", "still", "just", "only", "now", "then", "here",
    "there", "what", "whatever", "something", "anything", "nothing", "this", "that",
    "these", "those", "the", "a", "an", "my", "your", "his", "her", "our", "their", "its",
    "some", "any", "each", "every", "all", "both", "either", "neither", "it", "in", "on",
    "at", "of", "for", "from", "with", "by", "as", "into", "under", "over", "inside",
    "outside", "via", "per", "and", "or", "but", "so", "if", "when", "where", "which",
    "who", "how", "why", "very", "quite", "much", "more", "less", "most", "least",
    "enough", "else", "different", "unchanged", "mandatory", "obligatory", "plaintext",
    "cleartext", "hashed", "salted", "encrypted", "stored", "saved", "used", "reused",
    "needed", "missing", "expired", "visible", "masked", "obscured", "accepted",
    "rejected", "ignored", "checked", "validated", "verified", "generated", "printed",
    "logged", "cached", "synced", "stale", "fresh", "current", "previous", "default",
    "temporary", "permanent", "personal", "shared", "local", "remote", "global", "real",
    "fake", "actual", "literally", "probably", "usually", "always", "never", "already",
    "wrongly", "available", "unavailable", "configured", "provided", "supplied", "entered",
    "typed", "mismatched", "mismatch", "identical", "sensitive", "insensitive", "length",
    "hint", "prompt", "field", "input", "box", "reset", "change", "update", "updated",
    "rotated", "revoked", "disabled", "enabled", "locked", "unlocked", "stuck", "broken",
    "fixed", "gone", "back", "out", "up", "down", "off", "ready", "done", "great", "bogus",
    "garbage", "gibberish", "nonsense", "unset", "unused", "redundant", "irrelevant",
    "optional", "required"))
"""Words prose puts after ``password is`` that say something about it."""
_PREDICATE_END = re.compile(r"(?:ed|ing|ly|able|ible|ful|less|ous|ive|ness|tion|sion|ment"
                            r"|ity|ent|ant|ance|ence|al|ic|ary|ory|ish|ise|ize|est)\Z")
"""How an English predicate ends (``hashed``, ``missing``, ``readable``, ``obvious``):
what prose says of a password, no weak password (safe15)."""
_CODE_AFTER = re.compile(r"(?<![ \t])[ \t]*(?:[,;})\]]|\?\?|\|\||&&|\.[A-Za-z_(]|\(|\[)")
"""What follows a value in code (an object's next member, a call, an operator)."""
_CODE_LINE_BEFORE = re.compile(r"[{,(\[][ \t]*(?:\r?\n|\\{1,8}n)[ \t]*\Z")
"""The line before ends as an object's or a call's does, and the name starts its own."""


def _weak_word(m: re.Match[str], text: str, value: str) -> bool:
    """Whether a value of letters only after an explicit cue (``the password is admin``,
    ``Password: hunter``) is a weak password, not a word prose says of one (safe15):
    not one of :data:`_PREDICATE_WORDS` nor ending like one (:data:`_PREDICATE_END`),
    not a class's name in CamelCase, not a sentence's first word (more words after it
    on the line, after a colon or capitalised: ``Password: Enter the one you set``,
    ``password (optional): leave empty``), not code (an object's member
    or a call's argument: ``{ password: hash }``, ``password: pwd,``)."""
    v = value.strip("*_~").rstrip("!?")
    if not v.isalpha() or len(v) < 4:
        return False
    low = v.lower()
    if low in _PREDICATE_WORDS or _PREDICATE_END.search(low) or _CAMEL_TYPE.fullmatch(v) \
            or (_CAMEL.search(v) and not v.isupper()):
        return False
    end = m.end()
    if re.match(r"[ \t]+[A-Za-z]", text[end:end + 2]) and (
            m.group("c").rstrip().endswith(":") or (v[0].isupper() and v[1:].islower())):
        return False  # `Password: Enter the one you set`, `password: leave empty`
    if _CODE_AFTER.match(text, end):
        return False
    start = m.start()
    return _CODE_LINE_BEFORE.search(text, max(0, start - 40), start) is None


def _form_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a value after a password's name and ``=`` (``logkb:form-password``,
    safe15): a password, weak or not, when the pair stands in a form's or a query's
    body: after ``?`` or ``&``, before ``&``, first in a ``curl -d``/``--data…``/``-F``
    argument, or in a PowerShell body's ``@{…}`` (quoted); its name a password's, alone
    or after a word and ``_``/``.``/``-``/``[`` (``user_pass``, ``user[password]``; not
    ``bypass``, ``compass``).  Not a placeholder, a variable (``$pwd``, ``%PASS%``,
    ``{password}``), a path or a URL."""
    i = m.start()
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_.[-"):
        i -= 1
    head = text[i:m.start()].lower()
    if head and not (head[-1] in "_.[-" or head in _FORM_HEADS):
        return None  # `bypass=…`, `compass=…`
    if m.lastindex is not None and m.lastindex > 1:  # quoted: a PowerShell body's pair
        if re.search(r"@\{[^{}\n]*\Z", text[max(0, i - 400):i]) is None:
            return None
    elif not (text[i - 1:i] in ("?", "&") or text.startswith("&", m.end())
              or _FORM_OPTION.search(text, max(0, i - 60), i)):
        return None
    encoded = re.match(r"%[0-9A-Fa-f]{2}", value) is not None
    if (not encoded and _is_placeholder(value)) or value.lower() in _NOT_SECRET_WORDS \
            or value.startswith(("/", "./", "../", "~")) or "://" in value \
            or (value[0] == "%" and value.endswith("%")):
        return None
    return "password"


_FORM_HEADS = frozenset(("user", "admin", "login", "log", "new", "old", "confirm", "current",
                         "root", "db", "wp", "my", "account"))
"""Words a form's password field is named with, joined (``userpass``, ``newpassword``)."""
_FORM_OPTION = re.compile(r"(?:^|[\s'\"])(?:-d|--data(?:-raw|-binary|-urlencode|-ascii)?"
                          r"|-F|--form(?:-string)?)(?:[ \t]+|=)\\*['\"]?\Z")
"""A curl option whose argument is a form's body, its quote opened (``-d '``)."""


def _pair_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of the second of a login and password joined by ``/`` after a cue
    (``logkb:login-pair``, safe15): a password when it is no word (``admin123``) or the
    login again (``admin/admin``); not a placeholder (``admin / password``)."""
    if _is_placeholder(value) or value.lower() in _NOT_SECRET_WORDS:
        return None
    if not _prose_word(value):
        return "password"
    return "password" if value.lower() == m.group("u") and value.isalpha() else None


def _prose_password_kind(m: re.Match[str], text: str, value: str) -> str | None:
    """The kind of a value after a password's name in prose or a prompt
    (``logkb:prose-password``, prose14), or ``None``.  Unquoted, a password unless
    :func:`_prose_word` says it is words (``the password is wrong``, ``password is
    required``, ``my password is the same as before``).  Quoted after ``is``, ``:`` or
    ``for …:``, a password unless it is a placeholder or code (a member path, a secret's
    variable); quoted right after the name (``passphrase "…"``, ``WITH PASSWORD '…'``),
    as unquoted, but a passphrase's words in quotes are the passphrase.  Never a
    placeholder, a variable, a path, a URL, an e-mail address or a constant's name."""
    low = value.lower()
    if _is_placeholder(value) or low in _NOT_SECRET_WORDS or low in _TYPE_WORDS \
            or value.startswith(("/", "./", "../", "~")) or "://" in value \
            or _CONSTANT.fullmatch(value) or _EMAIL.fullmatch(value):
        return None
    cue = (m.group("c") or "").strip()
    bare = not cue
    if bare and m.group("w") in ("passwd", "pw"):
        return None  # `sudo passwd deploy2`: the command and a user's name
    if m.group("w") == "pwd" and (_directory("pwd", value) or value.startswith("-")
                                  or _prose_word(value)):
        return None  # `pwd: src/app`, `pwd -P`, `pwd: app`: the working directory
    vstart = m.start(m.lastindex or 0)
    quoted = m.lastindex != m.re.groups and vstart > 0 and text[vstart - 1] in "\"'`"
    if not quoted:
        if not _prose_word(value):
            return "password"
        return "password" if _EXPLICIT_CUE.search(cue) and _weak_word(m, text, value) \
            else None
    if _IDENT_PATH.fullmatch(value) and ("." in value or _secret_var(value)):
        return None  # `the password is `user.password``: code named
    if bare:
        if " " in value:
            return "password" if m.group("w").startswith("passphrase") else None
        return None if _prose_word(value) else "password"
    return "password"


def _accept(rule: _Rule, m: re.Match[str], text: str, value: str, body_end: int = -1
            ) -> str | None:
    """The kind of a candidate, or ``None`` when it is not a secret after all
    (``body_end``: :func:`_pem_context`'s, for a key body's line)."""
    if rule.check == "stellar-seed":
        return rule.kind if _is_stellar_seed(value) else None
    if rule.check == "b58-keypair":  # 64 bytes that are a seed and its public key
        raw = _b58_key(value, (64,))
        return rule.kind if raw is not None and _is_keypair(list(raw)) else None
    if rule.check == "b58-key":
        # after a private or secret key's name: a seed (32 bytes) or a key (64); after
        # a keypair's, 64 only (32 bytes there are its public key)
        pair = "pair" in m.group(0)[:m.start(1) - m.start()]
        raw = _b58_key(value, (64,) if pair else (32, 64))
        if raw is not None and len(raw) == 64 and _is_signature(raw) \
                and not _is_keypair(list(raw)):
            return None  # a transaction's signature after the cue (safe11): public
        return rule.kind if raw is not None else None
    if rule.check == "keypair-pieces":  # a Solana keypair only: the bytes say it
        nums = [int(n) for n in _PIECE_NUM.findall(value)]
        return rule.kind if len(set(nums[:32])) >= 12 and _is_keypair(nums) else None
    if rule.check in ("keypair", "keypair-cut"):
        nums = [int(n) for n in re.findall(r"[0-9]+", value)]
        if len(set(nums)) < 16:  # a zeroed buffer, a few repeated values
            return None
        cued = _KEYPAIR_CUE.search(text, max(0, m.start() - 200), m.start()) is not None
        if rule.check == "keypair-cut":  # a keypair cut after its seed (32 bytes): named
            return rule.kind if cued else None
        if len({b - a for a, b in zip(nums, nums[1:])}) < 16:  # an index list, a ramp
            return None
        # a Solana keypair, or 64 varied bytes named as a key (not a pixel row)
        return rule.kind if cued or _is_keypair(nums) else None
    if rule.check == "mnemonic":  # the span is already the phrase (:func:`_mnemonic`)
        return rule.kind
    if _is_placeholder(value) and not (rule.check == "form"
                                       and re.match(r"%[0-9A-Fa-f]{2}", value)):
        return None  # (a form's value URL-encoded is no `%VAR%`)
    if rule.check == "entropy":
        return rule.kind if len(value) >= 16 and entropy(value) >= 3.0 else None
    if rule.check == "short-token":  # safe14: 8 characters of three kinds will do
        return rule.kind if (len(value) >= 16 and entropy(value) >= 3.0) or (
            len(value) >= 8 and _classes(value) >= 3 and not _CONSTANT.fullmatch(value)
            and not _words_name(value)) else None
    if rule.check == "openssl":  # `-passin env:VAR`, `file:path`, `stdin`: no password
        return None if value.startswith(("env:", "file:", "fd:", "stdin")) or len(value) < 4 \
            else rule.kind
    if rule.check == "query":
        return rule.kind if (_classes(value) >= 2 and any(c.isdigit() for c in value)
                             and any(c.isalpha() for c in value)) else None
    if rule.check == "password":
        return rule.kind if len(value) >= 4 else None
    if rule.check == "userpass":
        return rule.kind if len(value) >= 4 and not value.isdigit() else None
    if rule.check == "cookie":
        return rule.kind if "=" in value and len(value.split("=", 1)[1].strip()) >= 4 else None
    if rule.check == "basic":
        import base64
        import binascii

        try:
            plain = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        except (binascii.Error, ValueError):
            return None
        return rule.kind if b":" in plain and len(plain) >= 5 else None
    if rule.check == "pembody":
        ok = (any(c.isupper() for c in value) and any(c.islower() for c in value)
              and any(c.isdigit() for c in value) and value.count("/") <= 6
              and entropy(value) >= 4.6)
        return rule.kind if ok and _pem_context(text, m.start(), m.end(), value,
                                                body_end) else None
    if rule.check == "fallback":
        return _fallback_kind(m, text, value)
    if rule.check == "env":
        return _env_kind(m.group("name"), value)
    if rule.check == "name":
        return _name_secret_kind(m, text, value)
    if rule.check == "name-token":
        return _name_token_kind(m, text, value)
    if rule.check == "prose":
        return _prose_password_kind(m, text, value)
    if rule.check == "form":
        return _form_kind(m, text, value)
    if rule.check == "pair":
        return _pair_kind(m, text, value)
    if rule.check == "assigned":
        if _reads_code(rule, m, text, value):
            return None
        name = _name_at(text, m)
        if not any(w.endswith(_STEM_ENDS) for w in re.split(r"[_.-]", name) if w):
            return None  # `keyerror:`, `tokenizer_path:`: the keyword is not the name
        if "websocket" in name:
            return None  # `Sec-WebSocket-Key:`: a handshake's nonce (safe14)
        if "." in name and "=" not in m.group(0):  # `obj.key: value` in prose or YAML paths
            return None
        if _PUBLIC.search(name) or _CONSTANT.fullmatch(value.rstrip(",;")) or \
                _PUBLIC_BEFORE.search(text, max(0, _name_start(text, m) - 8),
                                      _name_start(text, m)):
            return None  # `pubkey: TOKEN_2022_PROGRAM_ID`: a public key, a constant's name
        if re.search(r"pass|pwd|contras", name):
            # a password is anything assigned that is not a placeholder, but `password:`
            # in prose is followed by words: require a non-word char or digit in it
            if re.fullmatch(r"[A-Za-z]+", value) and len(value) < 12:
                return None
            if _directory(name, value):
                return None  # `OLDPWD=/home/me`, `pwd: /srv/app` (safe14)
            if _names_a_secret(rule, m, value):
                return None  # `db_pass = settings.db_pass` (safe13)
            return "password"
        kind = "token" if "token" in name or "auth" in name else (
            "api-key" if "key" in name else "secret")
        if value.startswith(("/", "./", "../", "~")) or "://" in value:
            return None  # a path or a URL
        if _EVM_ADDRESS.fullmatch(value):
            return None  # `MANA_TOKEN = "0x…"` (20 bytes): a token's contract address
        if kind == "api-key" and _STRUCTURED.fullmatch(value) \
                and not _credential_key_name(text, m):
            return None  # `cacheKey = "user:1234:profile"`: a key of a map (prose14)
        if len(value) >= 16 and entropy(value) >= 3.2 and re.search(r"\d", value) \
                and re.search(r"[A-Za-z]", value):
            return kind
        return None
    return rule.kind


def find_secrets(text: str, *, depth: int = 1) -> list[Finding]:
    """Every secret in ``text``, in order, overlapping ones merged (first rule wins).

    Also found: a prefixed token folded over two lines (the finding spans the line
    break), and a secret inside JSON-escaped text, escaped once or more (a Codex output
    is stored escaped twice: ``\\\\n`` for a line break); each escaped occurrence of it
    is a finding.  ``depth``: how many levels of escapes are undone (``messages.raw``
    holds a Codex output escaped twice)."""
    if not text:
        return []
    found = _folded(text)  # first: a folded token wins over its first line alone
    folded_esc: list[Finding] = []
    rest_esc: list[Finding] = []
    if "\\" in text and depth > 0:
        folded_esc, rest_esc = _escaped(text, depth)
    # an escaped fold (`ghp_…\\n…`) wins over its first line alone too: found after
    # the text's own rules, an assignment rule took the first line and the rest showed
    return _merge(found + folded_esc + _find(text) + rest_esc)


_FOLD_RE = re.compile(r"(?<=[A-Za-z0-9_+/=-])(?:\r?\n|\\r?\\n)[ \t]*(?=[A-Za-z0-9_+/=-])")
"""A line break inside a run of token characters (as is or JSON-escaped)."""


def _folded(text: str) -> list[Finding]:
    """Prefixed tokens split by a line break: found in the text with those breaks taken
    out, and mapped back to the text (a finding covers the break)."""
    if "\n" not in text:
        return []
    present = _present(text)
    low = text.lower()
    present_low = _present(low)  # a rule of lowercase needles (`priv`) asks the lowered text
    folding = [r for r in rules() if r.fold and (
        _holds(r, low, present_low) if r.lower else _holds(r, text, present))]
    if not folding:
        return []
    pieces: list[str] = []
    where: list[int] = []  # where[i]: the offset in text of joined[i]
    pos = 0
    for m in _FOLD_RE.finditer(text):
        pieces.append(text[pos:m.start()])
        where.extend(range(pos, m.start()))
        pos = m.end()
    if pos == 0:
        return []
    pieces.append(text[pos:])
    where.extend(range(pos, len(text)))
    where.append(len(text))
    joined = "".join(pieces)
    out = []
    for f in _find(joined, folding):
        stop = f.end
        # a fixed-length token (`ghp_` and 36, `AKIA` and 16) already whole at the end of
        # a line is not folded: the next line's first word (`error:`, `AGAIN=`) is not
        # part of it, and redacting it would hide text that is no secret
        for i in range(f.start, f.end - 1):
            if where[i + 1] != where[i] + 1 and _whole_fixed(joined[f.start:i + 1], folding):
                stop = i + 1
                break
        start, end = where[f.start], where[stop - 1] + 1
        if end - start != stop - f.start:  # it spans a break: not found in the text itself
            out.append(Finding(start, end, f.kind, f.rule))
    return out


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _whole_fixed(value: str, folding: list[_Rule]) -> bool:
    """Whether ``value`` is a whole token of a folding rule whose token cannot be longer
    (its pattern does not match ``value`` with one more of its own characters)."""
    longer = value + value[-1]
    digits = value.removeprefix("0x")
    if len(digits) == (64 if value.startswith("0x") else 128) and set(digits) <= _HEX_DIGITS:
        return True  # a whole 0x key (32 bytes) or keypair (64): the next line is no part
    for r in folding:
        if any(g.start == 0 and g.end == len(value) for g in _find(value, [r])):
            if r.pattern.fullmatch(longer.lower() if r.on_lower else longer) is None:
                return True
    return False


_WRAP_BREAK = re.compile(_WRAP_GAP)
"""A line break between a wrapped key's pieces (:data:`_WRAP_GAP`)."""


_B58_SET = frozenset(_B58_ALPHABET)
_WRAP_MIN = 29
"""The longest piece of a wrapped keypair is this long at least (:data:`_B58_WRAP`)."""


_NARROW_MIN = 8
_SHORT_RUN = 12
"""A keypair cut into 13 pieces or more (safe13): lines this many in a row of 2 to 7
characters of base58 (a column of short words or numbers passes too: the rule then
tries only joins that mix capitals, small letters and digits)."""
"""A narrow wrap's lines (safe12) hold this many characters of base58 at least."""
_WRAP_MARKS = " \t\r\\\"'`|+-(),;>#/"
"""What may stand around a wrapped key's piece on its line (:data:`_WRAP_GAP`)."""


def _may_wrap(text: str) -> bool:
    """Whether a line of ``text`` starts or ends with :data:`_WRAP_MIN` characters of
    base58, or two lines in a row (blank ones between them aside) are base58 of
    :data:`_NARROW_MIN` characters or more (the gate of the wrapped keypair's row:
    string methods, no pattern tried at every character)."""
    if "\n" not in text and "\\n" not in text:
        return False
    whole = 0  # lines of base58 in a row
    short = 0  # lines of 2 to 7 characters of base58 in a row (safe13: 13 pieces or more)
    for line in text.replace("\\r", "\r").replace("\\n", "\n").split("\n"):
        if len(line) < _NARROW_MIN:
            piece = line.strip(_WRAP_MARKS)
            if 2 <= len(piece) and _B58_SET.issuperset(piece):
                short += 1
                if short >= _SHORT_RUN:
                    return True
            elif piece:
                whole = short = 0
            continue
        piece = line.strip(_WRAP_MARKS)
        if 2 <= len(piece) < _NARROW_MIN and _B58_SET.issuperset(piece):
            short += 1
            if short >= _SHORT_RUN:
                return True
            continue
        short = 0
        line = line.strip(_WRAP_MARKS)
        if len(line) >= _WRAP_MIN and (_B58_SET.issuperset(line[:_WRAP_MIN])
                                       or _B58_SET.issuperset(line[-_WRAP_MIN:])):
            return True
        if len(line) >= _NARROW_MIN and _B58_SET.issuperset(line):
            whole += 1
            if whole >= 2:
                return True
        elif line:
            whole = 0
    return False


def _mixed(value: str) -> bool:
    """Whether ``value`` mixes capitals, small letters and digits (88 random characters of
    base58 lack one of them about 1 time in 2 million)."""
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))


def _wrapped_keypairs(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """The Solana keypairs (base58, 64 bytes: a seed and its Ed25519 public key) wrapped
    over the lines of ``span``, pieces of base58 each on its own line: two pieces or more
    in a row whose characters together are 85 to 88 and decode to a keypair.  A piece in
    the middle fills its line (a wrap), so the first may only end its line and the last
    only start its own, which the pattern's bounds say.  At most 44 pieces (safe13: 12
    before; a key in 13 pieces showed); a join is decoded only when it mixes capitals,
    small letters and digits."""
    pieces, at = [], span[0]
    for br in _WRAP_BREAK.finditer(text, span[0], span[1]):
        pieces.append((at, br.start()))
        at = br.end()
    pieces.append((at, span[1]))
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(pieces) - 1:
        total = 0
        for j in range(i, len(pieces)):
            total += pieces[j][1] - pieces[j][0]
            if total > 88:
                break
            if j > i and total >= 85:
                joined = "".join(text[a:b] for a, b in pieces[i:j + 1])
                if not _mixed(joined):
                    continue  # words or numbers in a column: no key (safe13)
                raw = _b58_key(joined, (64,))
                if raw is not None and _is_keypair(list(raw)):
                    out.append((pieces[i][0], pieces[j][1]))
                    i = j
                    break
        i += 1
    return out


_ESC_RE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))')
_ESC_CHARS = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
              "t": "\t"}


def _unescape(text: str) -> str:
    """One level of JSON string escapes undone (leniently: what is not an escape stays)."""
    return _ESC_RE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1)
                       else _ESC_CHARS[m.group(2)], text)


def _escape(value: str) -> str:
    """``value`` as the body of a JSON string."""
    import json

    return json.dumps(value, ensure_ascii=False)[1:-1]


def _escaped(text: str, depth: int) -> tuple[list[Finding], list[Finding]]:
    """Secrets of ``text`` once its JSON escapes are undone, up to ``depth`` levels: each
    occurrence of a secret, escaped as many times, is a finding of ``text``.  Returned
    apart: the tokens folded over an escaped line break, and the others."""
    folded: list[Finding] = []
    out: list[Finding] = []
    view = text
    for level in range(1, depth + 1):
        prev, view = view, _unescape(view)
        if view == prev:
            break
        fold = _folded(view)
        for f in fold + _find(view):
            value = view[f.start:f.end]
            form = value
            for _ in range(level):
                form = _escape(form)
            into = folded if f in fold else out
            i = text.find(form)
            while i != -1 and form:
                into.append(Finding(i, i + len(form), f.kind, f.rule))
                i = text.find(form, i + len(form))
        if "\\" not in view:
            break
    return folded, out


_NEEDLES: tuple[Any, list[str]] | None = None


def _needle_finder() -> tuple[Any, list[str]] | None:
    """One Aho-Corasick automaton over every rule's needles (``None`` without
    ``ahocorasick_rs``): which needles a text holds in one pass instead of up to 89 ``in``
    scans (issue 28)."""
    global _NEEDLES
    if _NEEDLES is None:
        try:
            import ahocorasick_rs
        except ImportError:  # pragma: no cover - the ``in`` checks give the same answer
            _NEEDLES = (None, [])
        else:
            needles = sorted({n for r in rules() for n in r.needles})
            _NEEDLES = (ahocorasick_rs.AhoCorasick(
                needles, matchkind=ahocorasick_rs.MatchKind.Standard), needles)
    return _NEEDLES if _NEEDLES[0] is not None else None


def _present(hay: str) -> frozenset[str] | None:
    """The needles ``hay`` holds (``None``: ask each with ``in``)."""
    finder = _needle_finder()
    if finder is None:
        return None
    ac, needles = finder
    try:
        hits = ac.find_matches_as_indexes(hay, overlapping=True)
    except (UnicodeError, ValueError, TypeError):  # lone surrogates: the ``in`` checks
        return None
    return frozenset(needles[h[0]] for h in hits)


def _holds(rule: _Rule, hay: str, present: frozenset[str] | None) -> bool:
    if present is None:
        return any(n in hay for n in rule.needles)
    return not present.isdisjoint(rule.needles)


def _find(text: str, which: list[_Rule] | None = None) -> list[Finding]:
    """The findings of every rule (or of ``which``) in ``text``, not merged."""
    low: str | None = None
    found: list[Finding] = []
    todo = rules() if which is None else which
    gate = len(todo) > 4  # one pass for many rules; a few ``in`` checks for a few
    seen: frozenset[str] | None = _present(text) if gate else None
    seen_low: frozenset[str] | None = None
    runs: tuple[bool, bool] | None = None
    for rule in todo:
        if rule.lower:
            if low is None:
                low = text.lower()
                seen_low = _present(low) if gate else None
            hay, present = low, seen_low
        else:
            hay, present = text, seen
        if rule.check in ("bip39", "b58-keypair"):  # no needle: one pass over the words
            if runs is None:
                runs = _word_runs(text)
            if not runs[0 if rule.check == "bip39" else 1]:
                continue
        if rule.check == "b58-wrapped" and not _may_wrap(text):
            continue  # no needle: an automaton's hit at every line break costs more
        if rule.check == "keyrun":  # its own pass: pieces joined into runs
            found += (Finding(a, b, rule.kind, rule.name) for a, b in _key_runs(text))
            continue
        if rule.needles and not _holds(rule, hay, present):
            continue
        if rule.on_lower and len(hay) == len(text):
            matches = rule.pattern.finditer(hay)
        elif rule.on_lower:  # lowercasing changed the length (rare characters): slow path
            matches = re.compile(rule.pattern.pattern, re.I).finditer(text)
        else:
            matches = rule.pattern.finditer(text)
        body_end = -1  # a key body's last line hidden (the matches come in order)
        for m in matches:
            span = _span(rule, m, text)
            if span is not None and rule.check == "bip39":
                found += (Finding(a, b, rule.kind, rule.name)
                          for a, b in _bip39_phrases(text, span))
                continue
            if span is not None and rule.check == "b58-wrapped":
                found += (Finding(a, b, rule.kind, rule.name)
                          for a, b in _wrapped_keypairs(text, span))
                continue
            if span is not None and rule.check == "mnemonic":
                span = _mnemonic(text, span)
            if span is None or span[1] - span[0] < 4:
                continue
            value = text[span[0]:span[1]]
            kind = _accept(rule, m, text, value, body_end)
            if kind is not None:
                found.append(Finding(span[0], span[1], kind, rule.name))
                if rule.check == "pembody":
                    body_end = m.end()
    return found


_RUN_GAPS = ("\\n", "\\r", "\\t", "\\", ",", '"', "'", "[", "]", "`", "-", "/", ".", "_", "#")
"""What :func:`_word_runs` reads as a blank (JSON-escaped breaks first)."""
_PHRASE_FLAGS = b"\1" * 12
_RUN_PUNCT = ".:;!?()*<>{}|~"
"""What may touch a phrase's first or last word (a sentence's end, brackets, Markdown's
bold): :func:`_word_runs` strips it from each word."""


def _word_runs(text: str) -> tuple[bool, bool]:
    """Whether ``text`` may hold (a phrase, a base58 keypair) for the rules that have no
    needle: 12 words of the BIP-39 list in a row, a word of 85 characters or more, its
    words split where :data:`_WORD_GAP` may stand (blanks, commas, quotes, brackets,
    backslashes, JSON-escaped breaks).  String methods and C loops only: the two
    patterns tried at every character of every text that passes the prefilter cost
    4x more (Python's ``re`` has no fast scan for a pattern that starts with a class)."""
    flat = text
    for gap in _RUN_GAPS:
        if gap in flat:
            flat = flat.replace(gap, " ")
    if "1:" in flat:  # `Word 1: velvet`: a label before each word's number (safe12)
        flat = _LABEL.sub(" ", flat)
    toks = flat.split()
    long = max(map(len, toks), default=0) >= 85
    # a word touching punctuation (`zebra.`, `(velvet`, `**velvet`) is still a word
    # and a phrase in capitals or Title Case is the same phrase (safe11)
    # a list's numbers (`1.`, `2)`) and a quote's `>` stand between the words of a
    # phrase as a wallet shows it (safe11b): dropped, they leave the words in a row
    words = filterfalse(str.isdigit, filter(None, map(
        str.lower, map(str.strip, toks, repeat(_RUN_PUNCT)))))
    phrase = _PHRASE_FLAGS in bytes(map(bip39_words().__contains__, words))
    return phrase, long


_LABEL = re.compile(r"(?<![A-Za-z])[A-Za-z]{1,12}[ \t]+(?=[0-9]{1,2}[ \t]*:)")
"""A label before a list's number and its colon (``Word 1:``, ``Mot 1:``): no word of
the phrase (``#`` is a blank by then)."""
_LABEL_AFTER = re.compile(r"(?<![ \t])[ \t]*#?[0-9]{1,2}[ \t]*:")
"""What follows a label (:data:`_LABEL`): a number and a colon."""
_BIP39: frozenset[str] | None = None
_MNEMONIC_LENGTHS = (24, 21, 18, 15, 12)
_WORD_RE = re.compile(r"[A-Za-z0-9_]+")


_PHRASE_GAP = re.compile(r"(?:[ \t\r\n,\"'\[\]]|\\{1,16}[nrt\"']|\d{1,2}[.)])+")
"""What may stand between two words of a phrase: blanks, a line break (a terminal's wrap,
a list's next item), commas, quotes and brackets (a JSON array of the words), a list's
number (``2.``, `` 2)``), as is or JSON-escaped once or more (``\\n``, ``\\\\"``)."""


def _blank_gap(gap: str) -> bool:
    """Whether ``gap`` may stand between two words of a phrase (:data:`_PHRASE_GAP`)."""
    return 0 < len(gap) <= 64 and _PHRASE_GAP.fullmatch(gap) is not None


def bip39_words() -> frozenset[str]:
    """The BIP-39 English word list (2048 words; ``data/bip39-english.txt``, MIT, see
    ``data/bip39-english.LICENSE``)."""
    global _BIP39
    if _BIP39 is None:
        from importlib.resources import files

        text = files("logparse").joinpath("data/bip39-english.txt").read_text("utf-8")
        _BIP39 = frozenset(text.split())
    return _BIP39


_BIP39_INDEX: dict[str, int] | None = None


def _bip39_index() -> dict[str, int]:
    """Each word of the BIP-39 English list and its number (the list's order)."""
    global _BIP39_INDEX
    if _BIP39_INDEX is None:
        from importlib.resources import files

        text = files("logparse").joinpath("data/bip39-english.txt").read_text("utf-8")
        _BIP39_INDEX = {w: i for i, w in enumerate(text.split())}
    return _BIP39_INDEX


def bip39_phrase(entropy: bytes) -> str:
    """The BIP-39 English phrase of ``entropy`` (16 to 32 bytes, a multiple of 4)."""
    import hashlib

    words = sorted(_bip39_index(), key=_bip39_index().__getitem__)
    cs = len(entropy) * 8 // 32
    bits = (int.from_bytes(entropy, "big") << cs) | (hashlib.sha256(entropy).digest()[0]
                                                     >> (8 - cs))
    n = (len(entropy) * 8 + cs) // 11
    return " ".join(words[(bits >> (11 * (n - 1 - i))) & 2047] for i in range(n))


def bip39_checksum_ok(words: list[str]) -> bool:
    """Whether 12, 15, 18, 21 or 24 words of the BIP-39 English list are a phrase: their
    last ``n/3`` bits are the first bits of the SHA-256 of the rest (the entropy)."""
    import hashlib

    index = _bip39_index()
    n = len(words)
    if n not in _MNEMONIC_LENGTHS or any(w not in index for w in words):
        return False
    bits = 0
    for w in words:
        bits = (bits << 11) | index[w]
    cs = n // 3
    entropy = (bits >> cs).to_bytes(4 * n // 3, "big")
    return hashlib.sha256(entropy).digest()[0] >> (8 - cs) == bits & ((1 << cs) - 1)


_LETTERS = re.compile(r"[A-Za-z]+")


def _bip39_phrases(text: str, span: tuple[int, int]) -> list[tuple[int, int]]:
    """The phrases in a run of words (``span``, :data:`_WORD_GAP` between them; each in
    lower case, capitals or Title Case) found without a cue: a run of list words bounded
    by other words or by the run's ends, exactly 12, 15, 18, 21 or 24 long, whose checksum holds (1 in 16 random 12-word
    runs pass it, so the run must be all there is: a word list or prose with a longer run
    is no phrase).  A run that is not one is cut where its gaps hold more than blanks (a
    line break, a quote: ``echo "…"``) and each piece is tried the same way.  Linear: one
    pass over the span, each run checked once or once per piece."""
    index = _bip39_index()
    runs: list[list[tuple[int, int]]] = [[]]
    for w in _LETTERS.finditer(text, span[0], span[1]):
        start, word = w.start(), w.group()
        if start > 0 and text[start - 1] == "\\" and word[:1] in "nrt":
            start, word = start + 1, word[1:]  # `\nvelvet`: an escaped line break before
            if not word:  # `\n 2. velvet`: the break alone (a numbered list's line)
                continue
        if _LABEL_AFTER.match(text, w.end()) is not None:
            continue  # `Word 2: velvet`: the label of a numbered word (safe12)
        if runs[-1] and "---" in text[runs[-1][-1][1]:start]:
            runs.append([])  # a table's header row above its rule (safe12): not the list
        # a word in lower case, in capitals or capitalised (not `iPhone`, `McKay`)
        if (word.islower() or word.isupper() or word.istitle()) and word.lower() in index:
            runs[-1].append((start, w.end()))
        elif runs[-1]:
            runs.append([])
    out: list[tuple[int, int]] = []
    for run in runs:
        if len(run) < _MNEMONIC_LENGTHS[-1]:
            continue
        pieces = [run]
        if not _is_phrase(text, run):
            pieces = [[run[0]]]
            for prev, cur in zip(run, run[1:]):
                if text[prev[1]:cur[0]].strip(" \t"):  # more than blanks: a cut
                    pieces.append([])
                pieces[-1].append(cur)
        found = [(p[0][0], p[-1][1]) for p in pieces if _is_phrase(text, p)]
        if not found and len(pieces) > 1:  # safe11b: a phrase a word a line, quoted or
            # joined by hyphens, next to a line of words: cut where the gap is not the
            # run's usual one, or at a word not alone on its line
            for cuts in (_cut_at_odd_gaps(text, run), _cut_at_shared_lines(text, run),
                         _cut_at_cells(text, run)):
                found = [(p[0][0], p[-1][1]) for p in cuts if _is_phrase(text, p)]
                if found:
                    break
        out += found or _numbered_phrases(text, run)
    return out


_DIGIT = re.compile(r"[0-9]")


def _cut_at_odd_gaps(text: str, run: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``run`` cut where the gap between two words is not the gap most of them have (a
    line break after words joined by hyphens, a line with no ``> `` after quoted ones;
    a list's numbers count as the same gap)."""
    gaps = [_DIGIT.sub("0", text[p[1]:c[0]]) for p, c in zip(run, run[1:])]
    usual = Counter(gaps).most_common(1)[0][0]
    pieces = [[run[0]]]
    for gap, cur in zip(gaps, run[1:]):
        if gap != usual:
            pieces.append([])
        pieces[-1].append(cur)
    return pieces


def _alone(text: str, a: int, b: int) -> bool:
    """Whether the word ``text[a:b]`` is alone on its line (a quote's ``>`` and blanks
    around it; a line break as is or JSON-escaped)."""
    i = a
    while i > 0 and a - i < 40 and text[i - 1] in " \t>":
        i -= 1
    j = b
    while j < len(text) and j - b < 40 and text[j] in " \t\r":
        j += 1
    head = i == 0 or text[i - 1] == "\n" or (text[i - 1] in "nr" and text[i - 2:i - 1] == "\\")
    tail = j == len(text) or text[j] == "\n" or text.startswith(("\\n", "\\r"), j)
    return head and tail


def _cut_at_shared_lines(text: str, run: list[tuple[int, int]]
                         ) -> list[list[tuple[int, int]]]:
    """``run`` cut into its pieces of words each alone on its line (a phrase a word a
    line next to a line of prose whose first word is of the list)."""
    pieces: list[list[tuple[int, int]]] = [[]]
    for w in run:
        if _alone(text, *w):
            pieces[-1].append(w)
        elif pieces[-1]:
            pieces.append([])
    return [p for p in pieces if p]


def _in_cell(text: str, a: int, b: int) -> bool:
    """Whether the word ``text[a:b]`` fills a Markdown table's cell (``| word |``, bold or
    in code marks)."""
    i = a
    while i > 0 and a - i < 40 and text[i - 1] in " \t*`":
        i -= 1
    j = b
    while j < len(text) and j - b < 40 and text[j] in " \t*`":
        j += 1
    return i > 0 and text[i - 1] == "|" and text.startswith("|", j)


def _cut_at_cells(text: str, run: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``run`` cut into its pieces of words each in a table's cell (safe12: a table of
    two columns of words next to a line of prose whose first word is of the list)."""
    pieces: list[list[tuple[int, int]]] = [[]]
    for w in run:
        if _in_cell(text, *w):
            pieces[-1].append(w)
        elif pieces[-1]:
            pieces.append([])
    return [p for p in pieces if p]


_NUMBER_BEFORE = re.compile(
    r"(?<![0-9])([0-9]{1,2})[.):]?[ \t]{0,24}(?:\|[ \t]{0,24})?(?:\*\*|`)?\Z")
"""A list's number just before a word (``12. word``, ``3) word``, ``4. **word**``;
safe12: ``12 word``, ``#12 word``, ``Word 12: x``, a table's ``| 12 | word``)."""


def _numbered_phrases(text: str, run: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The phrases of a run whose words are numbered (safe11b): a wallet shows its words
    as ``1. word 2. word …``, or in a grid of 3 or 4 columns read down each column (the
    text's order is then not the phrase's).  Words numbered 1 to n in a group (a ``1.``
    starts the next one), n a phrase's length, are put in their numbers' order and the
    checksum decides; the span runs from the first word in the text to the last."""
    groups: list[dict[int, tuple[int, int]]] = []
    prev = max(0, run[0][0] - 8)
    for a, b in run:
        m = _NUMBER_BEFORE.search(text, prev, a)
        prev = b
        if m is None:
            continue
        n = int(m.group(1))
        if n == 1 or not groups:
            groups.append({})
        groups[-1].setdefault(n, (a, b))
    out = []
    for g in groups:
        n = len(g)
        if n in _MNEMONIC_LENGTHS and sorted(g) == list(range(1, n + 1)) and \
                bip39_checksum_ok([text[a:b].lower() for _, (a, b) in sorted(g.items())]):
            out.append((min(a for a, _ in g.values()), max(b for _, b in g.values())))
    return out


def _is_phrase(text: str, run: list[tuple[int, int]]) -> bool:
    return len(run) in _MNEMONIC_LENGTHS and bip39_checksum_ok(
        [text[a:b].lower() for a, b in run])


def _mnemonic(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """The phrase in the text after a mnemonic's cue (``span``, a line or two): the first
    12, 15, 18, 21 or 24 words of the BIP-39 list in a row, apart by blanks or a line
    break only (the longest that fits), or ``None`` when no 12 are.  Linear: one pass over
    the span."""
    words = bip39_words()
    run: list[tuple[int, int]] = []
    for w in _WORD_RE.finditer(text, span[0], span[1]):
        start, word = w.start(), w.group()
        if start > 0 and text[start - 1] == "\\" and word[:1] in "nrt":
            start, word = start + 1, word[1:]  # `\nvelvet`: an escaped line break before it
        if word.isdigit() and len(word) <= 2 and text[w.end():w.end() + 1] in (".", ")"):
            continue  # a numbered list's `2.`: part of the gap (:data:`_PHRASE_GAP`)
        if word.lower() not in words:
            if len(run) >= _MNEMONIC_LENGTHS[-1] or _cut_phrase(text, run):
                break
            run = []
            continue
        if run and not _blank_gap(text[run[-1][1]:start]):
            if len(run) >= _MNEMONIC_LENGTHS[-1]:
                break
            run = []
        run.append((start, w.end()))
        if len(run) == _MNEMONIC_LENGTHS[0]:
            break
    n = next((k for k in _MNEMONIC_LENGTHS if k <= len(run)), 0)
    if n and (len(run) > n or not _is_phrase(text, run[:n])):
        # a word before the phrase (a header: `Word`, then the words): the phrase is the
        # longest piece of the run whose checksum holds, when one does (safe12)
        for k in _MNEMONIC_LENGTHS:
            at = next((i for i in range(len(run) - k + 1)
                       if _is_phrase(text, run[i:i + k])), None)
            if at is not None:
                return run[at][0], run[at + k - 1][1]
    if not n and _cut_phrase(text, run):
        n = len(run)  # the head of a phrase the text was cut inside: hidden all the same
    return (run[0][0], run[n - 1][1]) if n else None


_CUT_WORDS = 6
"""Words of a phrase cut short that are hidden all the same: the 12th word of an 11-word
head is one of 128 (the checksum), and 4 missing words are 40 bits of search; 6 missing
are 62."""
_CUT_TAIL = re.compile(r"[ \t]{0,4}[A-Za-z]{0,8}(?:…|\.\.\.)?[\\\"'`\s]{0,16}\Z")
"""What may follow the head of a phrase at the end of a cut text: a word cut inside, an
ellipsis, closing quotes (JSON-escaped too), blanks."""


def _cut_phrase(text: str, run: list[tuple[int, int]]) -> bool:
    """Whether ``run`` (words of the list in a row) is the head of a phrase the text was
    cut inside: 6 words or more, and the text ends after it (:data:`_CUT_TAIL`)."""
    return len(run) >= _CUT_WORDS and _CUT_TAIL.match(text, run[-1][1]) is not None


def _merge(found: Iterable[Finding]) -> list[Finding]:
    """Drop findings that overlap an earlier-ranked one; the rest in text order.  But a
    later finding that holds every earlier one it overlaps whole and runs on past its
    end replaces them
    (safe15): a rule that stopped early (``Password:  ab%c&d…`` read to the ``&``, as a
    query's value is) left the rest of a secret another rule found whole shown."""
    kept: list[Finding] = []
    for f in found:  # rules() order: specific first
        over = [k for k in kept if f.start < k.end and k.start < f.end]
        if over and all(f.start <= k.start and k.end < f.end for k in over):
            kept = [k for k in kept if k not in over]
        elif over:
            continue
        kept.append(f)
    return sorted(kept, key=lambda f: (f.start, f.end))


def redact_text(text: str, findings: Iterable[Finding] | None = None, *, depth: int = 1
                ) -> str:
    """``text`` with every finding replaced by its placeholder (``depth``: see
    :func:`find_secrets`)."""
    fs = (find_secrets(text, depth=depth) if findings is None
          else sorted(findings, key=lambda f: f.start))
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
