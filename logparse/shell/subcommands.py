"""Programs driven by a subcommand: pip, package managers, git and container runtimes.

This module owns the subcommand tables of these tools and the finders that
locate the subcommand (``_pip_like`` for pip in all its spellings,
``_git_sub`` for git), which the category uses, and the safety rules that
map a subcommand and its options to a severity (``_git_safety``,
``_package_safety``, ``_container_safety``).  The tables are long and change
independently of the generic safety logic, so they are kept together here
rather than inside :mod:`.safety`.
"""

from __future__ import annotations

from dataclasses import dataclass

from logparse.shell.argv import _names
from logparse.shell.programs import (
    _LAUNCH,
    _MUT,
    _RO,
    _UNK,
    _VERSION_ARGS,
    _first_operand,
    _is_python,
    _python_invocation,
)

# ---------------------------------------------------------------------------
# pip and package managers
# ---------------------------------------------------------------------------

_PIP_GLOBAL_ARGS = _names(
    "--python --log --proxy --cache-dir --timeout --retries --cert --client-cert "
    "--exists-action --trusted-host --keyring-provider"
)


def _pip_sub(argv: tuple[str, ...], i: int) -> str | None:
    """The pip subcommand in ``argv[i:]`` (``--version`` counts as ``version``)."""
    for a in argv[i:]:
        if a in ("--version", "-V"):
            return "version"
        if not a.startswith("-"):
            break
    sub, _ = _first_operand(argv, i, _PIP_GLOBAL_ARGS)
    return sub


def _pip_like(prog: str, eff: tuple[str, ...]) -> tuple[str, int] | None:
    """If ``eff`` runs pip (``pip``, ``pip3``, ``python -m pip``, ``uv pip``): ``(sub, idx)``."""
    if prog == "pip" or (prog.startswith("pip") and prog[3:].replace(".", "").isdigit()):
        return (_pip_sub(eff, 1) or ""), 1
    if _is_python(prog):
        mode, value, k = _python_invocation(eff)
        if mode == "m" and value == "pip":
            return (_pip_sub(eff, k) or ""), k
        return None
    if prog == "uv" and len(eff) > 1 and eff[1] == "pip":
        return (_pip_sub(eff, 2) or ""), 2
    return None


_PIP_READ = _names(
    "show list freeze check index inspect debug help search version tree config cache"
)
_PIP_WRITE = frozenset({"install", "uninstall", "download", "wheel", "sync", "compile"})

_PKG_MANAGERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
for _progs, _mut, _ro in (
    (
        ("apt", "apt-get", "aptitude"),
        "install remove purge upgrade full-upgrade dist-upgrade update autoremove reinstall "
        "build-dep satisfy clean autoclean download source markauto",
        "list show search policy depends rdepends showsrc changelog madison check",
    ),
    (
        ("yum", "dnf", "microdnf", "zypper"),
        "install remove erase update upgrade reinstall downgrade autoremove groupinstall "
        "makecache clean in rm up",
        "list info search provides repolist check-update history se if",
    ),
    (("apk",), "add del upgrade update fix", "info search list policy"),
    (
        ("brew",),
        "install uninstall remove upgrade update reinstall link unlink tap cleanup",
        "list info search outdated config deps leaves",
    ),
    (("snap",), "install remove refresh", "list info find"),
    (
        ("conda", "mamba", "micromamba"),
        "install remove uninstall create update upgrade clean",
        "list info search",
    ),
    (
        ("npm", "yarn", "pnpm"),
        "install i ci add remove uninstall rm un update upgrade link publish prune dedupe",
        "ls list view info outdated why",
    ),
    (("gem",), "install uninstall update", "list search info env"),
    (("pipx",), "install uninstall upgrade inject reinstall upgrade-all", "list"),
):
    for _n in _progs:
        _PKG_MANAGERS[_n] = (frozenset(_mut.split()), frozenset(_ro.split()))


# ---------------------------------------------------------------------------
# git
# ---------------------------------------------------------------------------

_GIT_EDIT = _names(
    "apply am checkout switch restore reset stash cherry-pick merge rebase pull revert mv rm clean"
)
_GIT_READ = _names(
    "log show diff status grep blame rev-parse describe ls-files ls-tree ls-remote "
    "cat-file rev-list shortlog reflog whatchanged name-rev merge-base count-objects "
    "check-ignore for-each-ref show-ref var diff-tree diff-files diff-index cherry "
    "version help --version"
)
"""git subcommands that only read (for the category)."""
_GIT_NETWORK = _names("ls-remote archive send-email request-pull")
_GIT_REPO_CODE = _names(
    "status diff show blame difftool diff-files diff-index annotate range-diff help "
    "instaweb web--browse cherry"
)
"""Read subcommands that run commands the repository's config or attributes name:
``core.fsmonitor`` on index refresh, clean/smudge filters, ``diff.external`` and
textconv drivers (``.gitattributes`` names them, so no override can clear them all)."""


@dataclass(frozen=True, slots=True)
class GitConfigCode:
    """A read-only looking git form that runs a program the repository's own config
    names (``.git/config`` is the transcript's world, not the user's): it matches
    subcommand ``sub`` (with its first operand in ``operands`` and one option in
    ``options`` when given) unless one of ``unless`` is passed.  ``example`` is
    checked against the real git by ``tests/replay/test_git_config_code.py``."""

    sub: str
    reason: str
    example: str
    config: str
    """The repository setting that makes ``example`` run a program."""
    operands: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    unless: frozenset[str] = frozenset()


def _g(sub: str, reason: str, example: str, config: str, *, operands: str = "",
       options: str = "", unless: str = "") -> GitConfigCode:
    return GitConfigCode(sub, reason, example, config, frozenset(operands.split()),
                         frozenset(options.split()), frozenset(unless.split()))


_FSMONITOR = "core.fsmonitor runs a program when git refreshes the index"
_SIGNATURE = ("log.showSignature makes git verify every signed commit with gpg.program "
              "(add --no-show-signature)")
GIT_CONFIG_CODE: tuple[GitConfigCode, ...] = (
    _g("log", f"git log can run a program the repository configures: {_SIGNATURE}",
       "git log --oneline -5", "log.showSignature", unless="--no-show-signature"),
    _g("whatchanged", f"git whatchanged can run a program the repository configures: "
       f"{_SIGNATURE}", "git whatchanged -3", "log.showSignature",
       unless="--no-show-signature"),
    _g("ls-files", f"git ls-files can run a program the repository configures: {_FSMONITOR}",
       "git ls-files", "core.fsmonitor"),
    _g("grep", f"git grep can run a program the repository configures: {_FSMONITOR}",
       "git grep -n TODO", "core.fsmonitor"),
    _g("check-ignore", f"git check-ignore can run a program the repository configures: "
       f"{_FSMONITOR}", "git check-ignore -v build", "core.fsmonitor"),
    _g("describe", f"git describe --dirty can run a program the repository configures: "
       f"{_FSMONITOR}", "git describe --always --dirty", "core.fsmonitor",
       options="--dirty --broken"),
    _g("submodule", f"git submodule status can run a program the repository configures: "
       f"{_FSMONITOR}", "git submodule status", "core.fsmonitor",
       operands="status summary"),
    _g("stash", "git stash list -p produces diffs, which can run the repository's diff and "
       "textconv drivers", "git stash list -p", "diff.<driver>.textconv",
       operands="list", options="-p -u --patch --patch-with-stat --patch-with-raw "
                                 "--ext-diff --textconv --cc -c -m --word-diff --color-words"),
)
"""Rows walked by ``tests/replay/test_git_config_code.py`` against the real git."""

_GIT_PATCH_FLAGS = _names(
    "-p -u --patch --stat --numstat --shortstat --dirstat --summary --patch-with-stat "
    "--patch-with-raw --word-diff --color-words --ext-diff --textconv --show-signature "
    "--cc -c -m --full-diff --binary --check --follow --raw -G -S -L --pickaxe-regex "
    "--find-object --compact-summary"
)


def _git_sub(eff: tuple[str, ...]) -> tuple[str | None, int]:
    n = len(eff)
    i = 1
    while i < n:
        a = eff[i]
        if a in (
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--super-prefix",
            "--config-env",
        ):
            i += 2
            continue
        if a == "--version":
            return a, i
        if a.startswith("-"):
            i += 1
            continue
        return a, i
    return None, n


# ---------------------------------------------------------------------------
# Safety rules for git, package managers and containers
# ---------------------------------------------------------------------------


def _git_safety(eff: tuple[str, ...]) -> tuple[int, str]:
    sub, k = _git_sub(eff)
    rest = eff[k + 1 :]
    for a in eff[1:k]:
        if a == "-c" or a.startswith(("--config-env", "--exec-path")):
            return (_UNK, f"git {a} can make git run other commands")
    if (
        any(
            a.startswith(("-O", "--open-files-in-pager"))
            for a in rest
        )
        and sub == "grep"
    ):
        return (_UNK, "git grep -O runs a pager command")
    if any(a.startswith("--output") for a in rest):
        return (_MUT, f"git {sub} --output writes a file")
    if sub is None:
        return (_RO, "git alone only prints help")
    if sub in _GIT_NETWORK or (sub == "remote" and rest[:1] in (("update",), ("prune",))) or (
            sub == "remote" and rest[:1] == ("show",) and "-n" not in rest) or (
            sub == "submodule" and rest[:1] == ("update",)):
        return (_UNK, f"git {sub} contacts a remote repository")
    if sub in _GIT_REPO_CODE:
        return (_UNK, f"git {sub} can run commands the repository configures "
                      "(core.fsmonitor, filter, diff or textconv drivers)")
    for row in GIT_CONFIG_CODE:
        if sub == row.sub and (not row.operands or rest[:1] and rest[0] in row.operands) and (
                not row.options or any(a.split("=", 1)[0] in row.options for a in rest)) and (
                not any(a.split("=", 1)[0] in row.unless for a in rest)):
            return (_UNK, row.reason)
    if sub in ("log", "shortlog", "whatchanged", "rev-list", "reflog"):
        for a in rest:
            name = a.split("=", 1)[0]
            if name in _GIT_PATCH_FLAGS or (a.startswith("-") and not a.startswith("--")
                                            and a[1:2] in "puGSL" and not a[1:].isdigit()):
                return (_UNK, f"git {sub} {a} produces diffs, which can run the "
                              "repository's diff and textconv drivers")
            if "%G" in a:
                return (_UNK, f"git {sub} {a} verifies signatures (runs gpg.program)")
    if sub in ("grep", "cat-file", "diff-tree") and any(
            a.split("=", 1)[0] in ("--textconv", "--filters", "--ext-diff", "-O",
                                   "--open-files-in-pager") for a in rest):
        return (_UNK, f"git {sub} runs a textconv, filter or pager command")
    if sub in _GIT_READ:
        if sub == "reflog" and rest and rest[0] not in ("show",) and not rest[0].startswith("-"):
            return (_MUT, f"git reflog {rest[0]} changes the repository")
        return (_RO, f"git {sub} only reads")
    if sub == "branch":
        flags = [a for a in rest if a.startswith("-")]
        operands = [a for a in rest if not a.startswith("-")]
        listing = any(f in ("--list", "-l") for f in flags)
        mutating = any(
            f
            in (
                "-d",
                "-D",
                "-m",
                "-M",
                "-c",
                "-C",
                "--delete",
                "--move",
                "--copy",
                "-f",
                "--force",
                "-u",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
            )
            or f.startswith("--set-upstream-to=")
            for f in flags
        )
        if not mutating and (listing or not operands):
            return (_RO, "git branch only lists branches")
        return (_MUT, "git branch changes branches")
    if sub == "tag":
        if not rest or any(a in ("-l", "--list") for a in rest):
            return (_RO, "git tag only lists tags")
        return (_MUT, "git tag changes tags")
    if sub == "stash":
        if rest and rest[0] in ("list", "show"):
            return (_RO, f"git stash {rest[0]} only reads")
        return (_MUT, "git stash changes the working tree")
    if sub == "remote":
        if not rest or rest[0] in ("-v", "--verbose", "show", "get-url"):
            return (_RO, "git remote only reads")
        return (_MUT, "git remote changes remotes")
    if sub == "config":
        if any(
            a in ("--get", "--get-all", "--list", "-l", "--get-regexp", "--show-origin")
            for a in rest
        ) or (
            len([a for a in rest if not a.startswith("-")]) == 1
            and not any(
                a in ("--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e")
                for a in rest
            )
        ):
            return (_RO, "git config only reads")
        return (_MUT, "git config changes settings")
    if sub in ("worktree", "submodule") and rest and rest[0] in ("list", "status", "summary"):
        return (_RO, f"git {sub} {rest[0]} only reads")
    if sub in (
        "commit",
        "push",
        "checkout",
        "switch",
        "restore",
        "reset",
        "clean",
        "pull",
        "merge",
        "rebase",
        "apply",
        "am",
        "cherry-pick",
        "revert",
        "fetch",
        "clone",
        "init",
        "add",
        "rm",
        "mv",
        "gc",
        "prune",
        "submodule",
        "worktree",
        "notes",
        "bisect",
        "update-index",
        "update-ref",
        "filter-branch",
        "lfs",
        "sparse-checkout",
        "format-patch",
        "repack",
        "symbolic-ref",
        "commit-tree",
        "checkout-index",
        "read-tree",
        "write-tree",
        "replace",
        "maintenance",
    ):
        return (_MUT, f"git {sub} changes the repository")
    return (_UNK, f"git {sub} is not recognised")


_REGISTRY_READS = {
    "npm": _names("view info outdated search show v"), "yarn": _names("info outdated search"),
    "pnpm": _names("view info outdated search"), "brew": _names("search outdated info"),
    "gem": _names("search"), "conda": _names("search"), "mamba": _names("search"),
    "micromamba": _names("search"), "snap": _names("find info"),
    "apt": _names("changelog"), "apt-get": _names("changelog"),
}
"""Read-only package subcommands that still ask a registry over the network."""


def _package_safety(prog: str, eff: tuple[str, ...]) -> tuple[int, str]:
    args = eff[1:]
    if prog == "dpkg":
        if (
            args
            and all(
                a
                in (
                    "-l",
                    "-L",
                    "-s",
                    "-S",
                    "-p",
                    "--list",
                    "--listfiles",
                    "--status",
                    "--search",
                    "--print-architecture",
                    "--get-selections",
                    "--print-avail",
                    "--version",
                )
                or not a.startswith("-")
                for a in args
            )
            and args[0].startswith("-")
        ):
            return (_RO, "dpkg query only reads")
        return (_MUT, "dpkg changes installed packages")
    if prog in ("apt-cache", "dpkg-query"):
        return (_RO, f"{prog} only reads")
    if prog == "apt-mark":
        if args and args[0].startswith("show"):
            return (_RO, "apt-mark show only reads")
        return (_MUT, "apt-mark changes package state")
    if prog == "rpm":
        if args and (args[0].startswith("-q") or args[0] == "--query"):
            return (_RO, "rpm -q only reads")
        return (_MUT, "rpm changes installed packages")
    if prog == "uv":
        sub: str | None = args[0] if args else ""
        if sub in ("--version", "version", "tree", "help") or (
            sub == "python" and args[1:2] == ("list",)
        ):
            return (_RO, f"uv {sub} only reads")
        if sub in (
            "add",
            "remove",
            "sync",
            "lock",
            "venv",
            "tool",
            "build",
            "init",
            "cache",
            "publish",
            "python",
            "self",
        ):
            return (_MUT, f"uv {sub} changes packages or files")
        return (_UNK, f"uv {sub} is not recognised")
    if prog in ("cargo", "go"):
        sub = args[0] if args else ""
        if sub in ("--version", "version", "env", "tree", "metadata", "list", "doc"):
            return (_RO, f"{prog} {sub} only reads")
        if sub in (
            "build",
            "b",
            "install",
            "get",
            "add",
            "new",
            "init",
            "update",
            "clean",
            "mod",
            "fmt",
            "fix",
            "publish",
            "uninstall",
        ):
            return (_MUT, f"{prog} {sub} writes files")
        return (_UNK, f"{prog} {sub} runs code")
    mut, ro = _PKG_MANAGERS.get(prog, (frozenset(), frozenset()))
    sub, _ = _first_operand(eff, 1, frozenset({"-n", "--name", "-p", "--prefix", "-c"}))
    if prog in ("conda", "mamba", "micromamba"):
        if sub == "env":
            sub2 = args[1] if len(args) > 1 else ""
            if sub2 in ("list", "export"):
                return (_RO, f"{prog} env {sub2} only reads")
            return (_MUT, f"{prog} env {sub2} changes environments")
        if sub in ("activate", "deactivate"):
            return (_RO, f"{prog} {sub} only changes the shell environment")
        if sub == "config" and any(a in ("--show", "--get", "--show-sources") for a in args):
            return (_RO, f"{prog} config --show only reads")
    if sub in _REGISTRY_READS.get(prog, ()):
        return (_UNK, f"{prog} {sub} contacts the package registry")
    if sub in ro:
        return (_RO, f"{prog} {sub} only reads")
    if sub in mut:
        return (_MUT, f"{prog} {sub} changes installed packages")
    if args and args[0] in _VERSION_ARGS:
        return (_RO, f"{prog} {args[0]} only prints information")
    return (_UNK, f"{prog} {sub or ''} is not recognised".replace("  ", " "))


def _container_safety(prog: str, eff: tuple[str, ...]) -> tuple[int, str]:
    args = eff[1:]
    sub = args[0] if args else ""
    if sub in (
        "ps",
        "images",
        "inspect",
        "version",
        "info",
        "top",
        "port",
        "history",
        "--version",
        "search",
        "diff",
    ):
        return (_RO, f"{prog} {sub} only reads")
    if sub == "stats":
        if "--no-stream" in args:
            return (_RO, f"{prog} stats --no-stream only reads")
        return (_LAUNCH, f"{prog} stats runs until stopped")
    if sub == "logs":
        if any(a in ("-f", "--follow") for a in args):
            return (_LAUNCH, f"{prog} logs -f follows the logs until stopped")
        return (_RO, f"{prog} logs only reads")
    if sub in ("image", "container", "network", "volume", "system", "compose", "context"):
        sub2 = args[1] if len(args) > 1 else ""
        if sub2 in ("ls", "list", "inspect", "ps", "logs", "df", "info", "config", "show"):
            return (_RO, f"{prog} {sub} {sub2} only reads")
        return (_MUT, f"{prog} {sub} {sub2} changes containers".replace("  ", " "))
    if sub == "exec":
        if any(a in ("-d", "--detach") for a in args[1:4]):
            return (_LAUNCH, f"{prog} exec -d starts a background process")
        return (_RO, f"{prog} exec runs the analysed command")
    if sub in (
        "run",
        "rm",
        "kill",
        "stop",
        "start",
        "restart",
        "pull",
        "push",
        "build",
        "rmi",
        "tag",
        "commit",
        "cp",
        "create",
        "load",
        "save",
        "import",
        "export",
        "rename",
        "update",
        "pause",
        "unpause",
        "prune",
        "login",
        "logout",
    ):
        return (_MUT, f"{prog} {sub} changes containers or images")
    return (_UNK, f"{prog} {sub} is not recognised")


# ---------------------------------------------------------------------------
# Options and subcommands of "read-only" programs that are not (issue 24 item 5)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerdictRule:
    """A program form that changes state, never ends or contacts an endpoint.

    Matches when the program is one of ``programs``, its first operand (skipping the
    program's own options) is in ``subs`` (empty: any or none), and, when ``options``
    or ``letters`` or ``prefixes`` are given, one option is in ``options``, is a short
    cluster holding one of ``letters``, or starts with one of ``prefixes``; ``unless``
    options exempt it.  ``severity`` is ``"mut"``, ``"launch"`` or ``"unk"``.
    """

    programs: frozenset[str]
    severity: str
    reason: str
    example: str
    source: str
    """Where the example comes from; ``"not in the data"``: no tune or shared transcript
    runs that form, so the example is the tool's documented form (issue 24's probes)."""
    subs: frozenset[str] = frozenset()
    options: frozenset[str] = frozenset()
    letters: str = ""
    prefixes: tuple[str, ...] = ()
    unless: frozenset[str] = frozenset()
    blind: bool = False
    """Where it connects is held by this machine's configuration (a kubeconfig, the
    cloud CLI's profile, the resolver), not the text: refused whatever ``--allow``
    says, since the host map cannot check it."""


def _v(programs: str, severity: str, reason: str, example: str, *, subs: str = "",
       options: str = "", letters: str = "", prefixes: str = "", unless: str = "",
       source: str = "not in the data", blind: bool = False) -> VerdictRule:
    return VerdictRule(frozenset(programs.split()), severity, reason, example, source,
                       frozenset(subs.split()), frozenset(options.split()), letters,
                       tuple(prefixes.split()), frozenset(unless.split()), blind)


_NVSMI_SUBS = ("nvlink conf-compute compute-policy clocks vgpu mig c2c boost-slider power-hint "
               "power-smoothing gpm pci")
VERDICT_RULES: tuple[VerdictRule, ...] = (
    # change state
    _v("ss", "mut", "ss -K kills the sockets it matches", "ss -K dst 10.1.230.174",
       options="-K --kill", letters="K"),
    _v("sensors", "mut", "sensors -s writes the configured settings to the chips", "sensors -s",
       options="-s --set", letters="s"),
    _v("nvidia-smi", "mut", "nvidia-smi nvlink -sc sets the NVLink counter control",
       "nvidia-smi nvlink -sc 0bz", subs="nvlink",
       options="-sc --setcontrol -r --resetcounters"),
    _v("nvidia-smi", "mut", "nvidia-smi conf-compute -s… sets a confidential-compute setting",
       "nvidia-smi conf-compute -srs 1", subs="conf-compute", prefixes="-s --set"),
    _v("nvidia-smi", "mut", "a nvidia-smi subcommand's -s…/--set…/--reset… option changes GPU "
       "state", "nvidia-smi compute-policy --set-timeslice 2", subs=_NVSMI_SUBS,
       prefixes="-s --set -r --reset --lock --unlock"),
    _v("nvidia-smi", "mut", "nvidia-smi --compute-mode changes the GPU's compute mode",
       "nvidia-smi -i 0 --compute-mode=EXCLUSIVE_PROCESS", prefixes="--compute-mode -c="),
    _v("ip", "unk", "ip -batch runs the ip commands a file (or stdin) lists, which the plan "
       "cannot read (link set, route add, netns exec)", "ip -batch /tmp/routes.txt",
       options="-b -ba -bat -batc -batch --batch -force --force"),
    # never end
    _v("ip", "launch", "ip monitor watches for changes until stopped", "ip monitor all",
       subs="monitor monito monit moni mon mo"),
    _v("ss", "launch", "ss -E waits for socket events until stopped", "ss -E",
       options="-E --events", letters="E"),
    _v("docker podman nerdctl", "launch", "docker events waits for events until stopped",
       "docker events", subs="events", unless="--until"),
    # contact endpoints the host map does not cover
    _v("kubectl oc", "unk", "kubectl asks the cluster's API server, an endpoint the host map "
       "does not cover", "kubectl get pods -A",
       subs="get describe logs top explain api-resources api-versions cluster-info events "
            "auth diff wait version", unless="--client", blind=True),
    _v("aws gcloud gsutil az helm terraform tofu pulumi doctl", "unk",
       "the cloud CLI asks its provider's API, an endpoint the host map does not cover",
       "aws s3 ls", unless="--version version help --help -h", blind=True),
    _v("docker podman nerdctl", "unk", "docker asks the container daemon (or a registry), an "
       "endpoint the host map does not cover", "docker ps -a",
       subs="ps images inspect version info top port history search diff stats logs image "
            "container network volume system compose context events", unless="--version -v"),
    _v("getent", "unk", "getent hosts resolves names through the resolver (DNS), endpoints the "
       "host map does not cover", "getent hosts build-server.internal",
       subs="hosts ahosts ahostsv4 ahostsv6 networks netgroup", blind=True),
)
"""Rows walked by ``tests/logparse/test_shell_verdict_rules.py``."""

_VERDICT_VALUE_OPTS = frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-i", "--id",
                                 "-H", "--host", "-s", "--server", "-f", "--filter", "-o",
                                 "--output", "-l", "--selector", "-c", "--container"})


def _verdict_sub(prog: str, args: tuple[str, ...]) -> str:
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-"):
            # value options of kubectl/docker/nvidia-smi (`-n ns get`, `-i 0 nvlink`), not
            # of ss/sensors (whose -s and -i are flags)
            skip = prog not in ("ss", "sensors", "ip") and a in _VERDICT_VALUE_OPTS
            continue
        return a
    return ""


def verdict_rule(prog: str, args: tuple[str, ...]) -> tuple[int, str] | None:
    """Severity and reason of the first :data:`VERDICT_RULES` row matching, or None."""
    row = verdict_row(prog, args)
    if row is None:
        return None
    return ({"mut": _MUT, "launch": _LAUNCH, "unk": _UNK}[row.severity], row.reason)


def verdict_row(prog: str, args: tuple[str, ...]) -> VerdictRule | None:
    """The first :data:`VERDICT_RULES` row matching, or None."""
    sub: str | None = None
    for r in VERDICT_RULES:
        if prog not in r.programs:
            continue
        if r.unless and any(a.split("=", 1)[0] in r.unless for a in args):
            continue
        if r.subs:
            if sub is None:
                sub = _verdict_sub(prog, args)
            if sub not in r.subs:
                continue
        if r.options or r.letters or r.prefixes:
            hit = False
            for a in args:
                name = a.split("=", 1)[0] if a.startswith("--") else a
                if name in r.options or (r.prefixes and a.startswith(r.prefixes) and a not in (
                        "-s", "-r")):
                    hit = True
                elif r.letters and len(a) > 1 and a[0] == "-" and a[1] != "-" and any(
                        c in a[1:] for c in r.letters) and a[1:].isalpha():
                    hit = True
                if hit:
                    break
            if not hit:
                continue
        return r
    return None
