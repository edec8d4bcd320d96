"""Where curl and wget connect, read from their own option grammar.

Replay refuses a step that names a network endpoint outside ssh unless it is
loopback (:func:`logparse.shell.safety.classify_safety` collects them).  For
curl and wget that needs their grammar: which options take a value (else the
value of an unlisted one looks like a URL and the step is refused for nothing),
which values *are* where the request goes (``-x``/``--proxy``, ``--resolve``,
``--connect-to``, ``--url``, ``--socks5``, wget ``-e http_proxy=…``), and which
make the destination unknowable from the text (``-K`` config files, wget ``-i``
URL lists, ``--expand-url`` templates): those are *blind*, refused whatever
``--allow`` says.  The same holds for the proxy variables a command sets
(``http_proxy=… curl …``, ``export ALL_PROXY=…``): every HTTP client honours them.

The tables are curl 7.88's ``--help all`` and wget 1.21's ``--help`` (options
that take an argument), plus the curl 8 options transcripts show.  Pure.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

#: curl options whose value is the next word (long names, and short letters).
CURL_VALUE_LONG = frozenset(
    "--abstract-unix-socket --alt-svc --aws-sigv4 --cacert --capath --cert --cert-type "
    "--ciphers --config --connect-timeout --connect-to --continue-at --cookie --cookie-jar "
    "--create-file-mode --crlfile --curves --data --data-ascii --data-binary --data-raw "
    "--data-urlencode --delegation --dns-interface --dns-ipv4-addr --dns-ipv6-addr "
    "--dns-servers --doh-url --dump-header --egd-file --engine --etag-compare --etag-save "
    "--expect100-timeout --form --form-string --ftp-account --ftp-alternative-to-user "
    "--ftp-method --ftp-port --ftp-ssl-ccc-mode --happy-eyeballs-timeout-ms --header "
    "--hostpubmd5 --hostpubsha256 --hsts --interface --json --keepalive-time --key "
    "--key-type --krb --libcurl --limit-rate --local-port --login-options --mail-auth "
    "--mail-from --mail-rcpt --max-filesize --max-redirs --max-time --netrc-file --noproxy "
    "--oauth2-bearer --output --output-dir --parallel-max --pass --pinnedpubkey --proto "
    "--proto-default --proto-redir --proxy --proxy-cacert --proxy-capath --proxy-cert "
    "--proxy-cert-type --proxy-ciphers --proxy-crlfile --proxy-header --proxy-key "
    "--proxy-key-type --proxy-pass --proxy-pinnedpubkey --proxy-service-name "
    "--proxy-tls13-ciphers --proxy-tlsauthtype --proxy-tlspassword --proxy-tlsuser "
    "--proxy-user --proxy1.0 --pubkey --quote --random-file --range --rate --referer "
    "--request --request-target --resolve --retry --retry-delay --retry-max-time "
    "--sasl-authzid --service-name --socks4 --socks4a --socks5 --socks5-gssapi-service "
    "--socks5-hostname --speed-limit --speed-time --stderr --telnet-option --tftp-blksize "
    "--time-cond --tls-max --tls13-ciphers --tlsauthtype --tlspassword --tlsuser --trace "
    "--trace-ascii --unix-socket --upload-file --url --url-query --user --user-agent "
    "--write-out --preproxy --proxy-service-name --variable --ech --ip-tos --vlan-priority "
    "--ipfs-gateway --sigalgs --knownhosts --upload-flags --trace-config --ssl-sessions "
    "--proxy-ca-native --max-time --expand-url --expand-data --expand-header "
    "--expand-output --expand-json --expand-form --expand-variable --dump-ca-embed".split())
CURL_VALUE_SHORT = frozenset("EKCbcdDFPHoUQreXYytzTuAwmx")
#: Options whose value is where the request is sent (a proxy, a DoH server, the URL).
CURL_ENDPOINT = frozenset("--proxy --preproxy --socks4 --socks4a --socks5 --socks5-hostname "
                          "--proxy1.0 --doh-url --url --ipfs-gateway --dns-servers".split())
#: Options after which the destination cannot be read from the command text.
CURL_BLIND = {
    "--config": "reads options (a URL, a proxy) from a config file",
    "--alt-svc": "reads an alt-svc cache that can send the request to another host",
    "--variable": "fills URLs from variables (--expand-url)",
}
_CURL_SHORT_LONG = {"x": "--proxy", "K": "--config"}

#: wget options whose value is the next word (or after ``=``).
WGET_VALUE = frozenset(
    "-e --execute -o --output-file -a --append-output --report-speed -i --input-file -B "
    "--base --config --rejected-log -t --tries --retry-on-http-error -O --output-document "
    "--start-pos --progress -T --timeout --dns-timeout --connect-timeout --read-timeout -w "
    "--wait --waitretry -Q --quota --bind-address --limit-rate --restrict-file-names "
    "--prefer-family --user --password --use-askpass --local-encoding --remote-encoding -P "
    "--directory-prefix --cut-dirs --http-user --http-password --default-page --header "
    "--compression --proxy-user --proxy-password --referer -U --user-agent --load-cookies "
    "--save-cookies --post-data --post-file --method --body-data --body-file "
    "--secure-protocol --certificate --certificate-type --private-key --private-key-type "
    "--ca-certificate --ca-directory --crl-file --pinnedpubkey --ciphers --ftp-user "
    "--ftp-password --warc-file --warc-header --warc-max-size --warc-dedup --warc-tempdir -l "
    "--level --backups -A --accept -R --reject --accept-regex --reject-regex --regex-type -D "
    "--domains --exclude-domains --follow-tags --ignore-tags -I --include-directories -X "
    "--exclude-directories --hsts-file --max-redirect".split())
_WGET_SHORT_VALUE = frozenset("eoaiBtOTwQPUlADIRX")
#: wgetrc commands (``-e KEY=VALUE``) that only tune the request; any other is blind.
WGET_TUNING = frozenset(
    "robots checkcertificate tries timeout readtimeout connecttimeout dnstimeout wait "
    "waitretry quiet verbose useragent header noproxy maxredirect cookies progress "
    "showprogress dotstyle timestamping continue serverresponse inet4only inet6only "
    "preferfamily retryconnrefused contentdisposition trustservernames localencoding "
    "remoteencoding iri restrictfilenames httpsonly secureprotocol convertlinks "
    "adjustextension recursive reclevel noparent limitrate compression".split())
_PROXY_KEYS = frozenset("httpproxy httpsproxy ftpproxy".split())
#: Environment variables that send a client's requests through a proxy.
PROXY_VARIABLES = frozenset(
    "http_proxy https_proxy ftp_proxy all_proxy socks_proxy rsync_proxy ws_proxy "
    "wss_proxy grpc_proxy".split())
#: Variables that move a client's config file (its proxy, its URLs) where the text
#: does not show it.
CONFIG_VARIABLES = frozenset("CURL_HOME WGETRC SYSTEM_WGETRC XDG_CONFIG_HOME HOME".split())


#: Files curl and wget read their options from (a proxy, URLs) without being told.
RC_FILE = re.compile(r"(?:^|/)[._]?(?:curlrc|wgetrc)$")


def is_proxy_variable(name: str) -> bool:
    return name.lower() in PROXY_VARIABLES


def ipv6_of(word: str) -> str | None:
    """The IPv6 address a word names: ``[v6]``, ``[v6]:port``, a bare ``v6`` (a zone
    such as ``%eth0`` allowed), alone or after the first ``=`` or ``@`` of the word."""
    m = re.search(r"[=@]", word)
    w = word[m.end():] if m else word
    if w.startswith("["):
        inner, close, tail = w[1:].partition("]")
        if not close or (tail and not re.fullmatch(r":\d+(?:/.*)?|/.*", tail)):
            return None
        w = inner
    elif w.count(":") < 2 or "/" in w:
        return None
    try:
        ipaddress.IPv6Address(w)
    except ValueError:
        return None
    return w


def url_host(text: str) -> str:
    """The host a URL-ish word (``http://u@h:1/p``, ``h:1``, ``[v6]:1/p``, ``v6``) names."""
    t = text
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", t)
    if m:
        t = t[m.end():]
    t = re.split(r"[/?#]", t, maxsplit=1)[0].rpartition("@")[2]
    if t.startswith("["):
        return t[1:].partition("]")[0]
    if t.count(":") >= 2:
        return t
    return t.split(":", 1)[0]


def endpoint_host(ep: str) -> str:
    """The host part of an endpoint string (``h``, ``h:p``, ``[v6]:p``, ``v6``)."""
    if ep.startswith("["):
        return ep[1:].partition("]")[0]
    if ep.count(":") == 1:
        return ep.split(":", 1)[0]
    return ep


def join_endpoint(host: str, port: str | None) -> str:
    if not port:
        return host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def proxy_endpoint(value: str) -> str | None:
    """The proxy host a proxy value names (``http://u:p@h:3128``, ``h:3128``), or None
    when it names nothing (empty); ``$`` (computed at run time) is returned as is."""
    v = value.strip()
    if not v:
        return None
    return url_host(v) or v


def _resolve_hosts(value: str, connect_to: bool) -> list[str]:
    """Addresses of ``--resolve [+]H:P:ADDR[,ADDR]`` or the target of ``--connect-to``."""
    if connect_to:  # HOST1:PORT1:HOST2:PORT2 (HOST2 may be [v6]; empty keeps HOST1)
        m = re.fullmatch(r"(?:\[[^\]]*\]|[^:]*):[^:]*:(\[[^\]]*\]|[^:]*)(?::.*)?", value)
        if m is None:
            return [value]
        host = m.group(1).strip("[]")
        return [host] if host else []
    m = re.fullmatch(r"\+?(?:\[[^\]]*\]|[^:]*):[^:]*:(.*)", value)
    if m is None:
        return [value]
    return [a.strip().strip("[]") for a in m.group(1).split(",") if a.strip()]


def _options(args: tuple[str, ...] | list[str], value_long: frozenset[str],
             value_short: frozenset[str], *, names: dict[str, str] | None = None,
             pairs: str = "") -> Iterator[tuple[str, str | None]]:
    """A command's arguments as its getopt reads them: ``(name, value)`` for an option
    (``value`` None for one that takes none; a short one is ``-c``, or its long name in
    ``names``), ``("", word)`` for an operand (every word after ``--`` is one).  A value
    option takes the rest of its word, the text after ``=``, or the next word; one left
    with no value at the end is dropped.  ``pairs``: letters that open a two-letter short
    option (wget's ``-nv``, ``-nH``), skipped with the letter after them."""
    names = names or {}
    words = iter(args)
    only_operands = False
    for w in words:
        if only_operands or not w.startswith("-") or w == "-":
            yield "", w
        elif w == "--":
            only_operands = True
        elif w.startswith("--"):
            name, eq, v = w.partition("=")
            if name not in value_long:
                yield name, None
            elif (val := v if eq else next(words, None)) is not None:
                yield name, val
        else:
            skip = False
            for i, ch in enumerate(w[1:], start=1):
                if skip or ch in pairs:
                    skip = not skip
                    continue
                name = names.get(ch, f"-{ch}")
                if ch not in value_short:
                    yield name, None
                    continue
                if (val := w[i + 1:] or next(words, None)) is not None:
                    yield name, val
                break


def curl_endpoints(args: tuple[str, ...] | list[str]) -> tuple[list[str], list[str]]:
    """``(endpoints, blind)`` of a curl command's arguments (``args`` after ``curl``)."""
    eps: list[str] = []
    blind: list[str] = []
    for opt, v in _options(args, CURL_VALUE_LONG, CURL_VALUE_SHORT, names=_CURL_SHORT_LONG):
        if not opt and v is not None:  # a URL
            if "{{" in v:
                blind.append("curl fills the URL from variables ({{name}})")
            elif "$" in (url_host(v) or v) or "`" in v:
                blind.append(f"curl's URL {v[:40]} is computed at run time")
            else:
                eps.append(url_host(v) or v)
        elif v is None:
            if opt.startswith("--expand-"):
                blind.append(f"curl {opt} fills the URL from variables")
        elif opt in CURL_ENDPOINT:
            if not v.strip():  # -x '' turns the proxy off
                continue
            if opt == "--url" and v.startswith("@"):
                blind.append("curl --url @FILE reads its URLs from a file")
            elif opt == "--dns-servers":
                eps.extend(a.strip() for a in v.split(",") if a.strip())
            else:
                eps.append(url_host(v) or v)
        elif opt in ("--resolve", "--connect-to"):
            eps.extend(_resolve_hosts(v, opt == "--connect-to"))
        elif opt in CURL_BLIND and not (opt == "--config" and v == "/dev/null"):
            blind.append(f"curl {opt} {CURL_BLIND[opt]}")
        elif opt.startswith("--expand-"):
            blind.append(f"curl {opt} fills its value from variables")
    return eps, blind


def _wgetrc_key(cmd: str) -> tuple[str, str]:
    key, _, val = cmd.partition("=")
    return key.strip().lower().replace("_", "").replace("-", ""), val.strip()


def _wget_options(args: tuple[str, ...] | list[str]) -> Iterator[tuple[str, str | None]]:
    return _options(args, WGET_VALUE, _WGET_SHORT_VALUE, pairs="n")


def wget_endpoints(args: tuple[str, ...] | list[str]) -> tuple[list[str], list[str]]:
    """``(endpoints, blind)`` of a wget command's arguments (``args`` after ``wget``)."""
    eps: list[str] = []
    blind: list[str] = []
    for opt, v in _wget_options(args):
        if not opt and v is not None:  # a URL
            if "$" in (url_host(v) or v) or "`" in v:
                blind.append(f"wget's URL {v[:40]} is computed at run time")
            else:
                eps.append(url_host(v) or v)
        elif opt == "--span-hosts":
            blind.append("wget --span-hosts follows links to other hosts")
        elif opt == "-H":
            blind.append("wget -H follows links to other hosts")
        elif v is None:
            continue
        elif opt in ("-e", "--execute"):
            key, val = _wgetrc_key(v)
            if key in _PROXY_KEYS:
                ep = proxy_endpoint(val)
                if ep:
                    eps.append(ep)
            elif key != "useproxy" and key not in WGET_TUNING:
                blind.append(f"wget -e {v[:40]} is a wgetrc command replay does not read")
        elif opt in ("-i", "--input-file"):
            if "://" in v:
                eps.append(url_host(v) or v)
            else:
                blind.append("wget -i reads its URLs from a file")
        elif opt == "--config":
            if v != "/dev/null":
                blind.append("wget --config reads commands (a proxy, URLs) from a file")
        elif opt in ("-B", "--base"):
            eps.append(url_host(v) or v)
    return eps, blind


def _redirect_count(v: str) -> int | None:
    try:
        return int(v.strip())
    except ValueError:
        return None


def curl_follows(args: tuple[str, ...] | list[str]) -> bool:
    """Whether curl (``args`` after ``curl``) follows a redirect: ``-L``, ``--location``
    or ``--location-trusted`` in some ``--next`` group, not undone later in that group by
    ``--no-location`` or ``--max-redirs 0``.  (A redirect goes where the *server* says,
    so no host in the text bounds it.)"""
    follows = False
    location = False
    redirs: int | None = None
    for opt, v in _options(args, CURL_VALUE_LONG, CURL_VALUE_SHORT, names=_CURL_SHORT_LONG):
        if opt in ("--next", "-:"):
            follows = follows or (location and redirs != 0)
            location, redirs = False, None
        elif opt in ("--location", "--location-trusted", "-L"):
            location = True
        elif opt in ("--no-location", "--no-location-trusted"):
            location = False
        elif opt == "--max-redirs" and v is not None:
            redirs = _redirect_count(v)
    # the last group ends with the words (a --next word appended was an operand after
    # `--`, or the value of an option left without one: `curl -L -- URL` followed)
    return follows or (location and redirs != 0)


def wget_follows(args: tuple[str, ...] | list[str]) -> bool:
    """Whether wget (``args`` after ``wget``) follows a redirect: it does unless the last
    ``--max-redirect`` (or ``-e max_redirect=``) says 0."""
    redirs: int | None = None
    for opt, v in _wget_options(args):
        if v is None or not opt:
            continue
        if opt == "--max-redirect":
            redirs = _redirect_count(v)
        elif opt in ("-e", "--execute"):
            key, val = _wgetrc_key(v)
            if key == "maxredirect":
                redirs = _redirect_count(val)
    return redirs != 0


#: git config keys whose value is a command git runs (``!`` aliases included).
_GIT_CODE_KEY = re.compile(
    r"(?i)core\.(?:sshcommand|fsmonitor|pager|editor|askpass)|diff\.external|"
    r"sequence\.editor|gpg\.(?:\w+\.)?program|credential\.(?:.+\.)?helper|"
    r"(?:diff|filter|merge)\..+\.(?:textconv|command|clean|smudge|process|driver)|"
    r"pager\..+|alias\..+")
#: ssh ``-o`` options whose value is a command (ssh, scp, sftp, rsync's ssh, autossh).
_SSH_CODE_OPTIONS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})
#: Variables whose value is a command some program runs.
_CODE_VARIABLES = frozenset("GIT_SSH_COMMAND RSYNC_RSH GIT_EDITOR GIT_PAGER "
                            "GIT_EXTERNAL_DIFF GIT_SEQUENCE_EDITOR".split())
_SSH_FAMILY = frozenset("ssh scp sftp autossh sshfs rsync".split())


def embedded_code(argv: tuple[str, ...] | list[str], prog: str) -> list[str]:
    """Shell code a command hands to a program as an option value, which the program
    runs (``git -c core.fsmonitor=CODE``, ``ssh -o ProxyCommand=CODE``, ``rsync -e
    CODE``, ``GIT_SSH_COMMAND=CODE git …``): replay judges it like the command itself.
    ``argv`` is the whole command (prefix assignments included), ``prog`` its program."""
    out: list[str] = []
    words = list(argv)
    for w in words:
        name, eq, val = w.partition("=")
        if eq and name in _CODE_VARIABLES and val.strip():
            out.append(val)
    n = len(words)
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < n else ""
        if prog == "git" and (w == "-c" or (w.startswith("-c") and len(w) > 2)):
            kv = nxt if w == "-c" else w[2:]
            key, eq, val = kv.partition("=")
            if eq and _GIT_CODE_KEY.fullmatch(key.strip()):
                out.append(val[1:] if key.lower().startswith("alias.") else val)
        elif prog in _SSH_FAMILY and (w == "-o" or (w.startswith("-o") and len(w) > 2)):
            opt = nxt if w == "-o" else w[2:]
            key, _, val = _split_option(opt)
            if key.lower() in _SSH_CODE_OPTIONS and val:
                out.append(val)
        elif prog == "rsync" and (w in ("-e", "--rsh") or w.startswith(("--rsh=", "-e"))):
            val = nxt if w in ("-e", "--rsh") else w.split("=", 1)[1] if w.startswith(
                "--rsh=") else w[2:]
            if val.strip():
                out.append(val)
    return out


def _split_option(opt: str) -> tuple[str, str, str]:
    """``Key=Value`` or ``Key Value`` of an ssh ``-o`` option: ``(key, sep, value)``."""
    m = re.match(r"\s*([A-Za-z]+)\s*(=|\s)\s*(.*)", opt, re.S)
    if m is None:
        return opt.strip(), "", ""
    return m.group(1), m.group(2), m.group(3)
