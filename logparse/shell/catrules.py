"""Category rules for coding sessions, as data (issue 23 item 6).

Each :class:`CatRule` row says: when the effective command's program is one of
``programs`` (and, when given, its subcommand is one of ``subs`` and one of
``flags`` is present), the command's category is ``category``.  Every row
carries an example command and where it was seen (``source``: a file of
``../shared/realworld`` or a fixture; "(a README it read)", "(its justfile)" or
"(its AGENTS.md)" when the session quoted the command rather than ran it;
``"not in the data"`` when nothing we may tune on names that form, so the example is
the tool's documented form; ``fixtures/blind``, ``fixtures/heldout`` and the held-out
pool files of ``bench.held_out`` are never used).
:data:`RUNNERS` rows name programs that run another command (``npx tsc``,
``uv run pytest``, ``bundle exec rspec``, ``powershell -Command "..."``): the
command they run is categorised instead.  :data:`SCRIPTS` rows map the name of
a package-manager or task-runner script (``npm run lint``, ``just check``,
``make test``) to a category.  ``tests/logparse/test_categories.py`` walks all
the tables.

The rules decide the category only; what re-running a command may do (its
safety class) is decided by :mod:`.safety` from :mod:`.programs`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CatRule:
    programs: frozenset[str]
    category: str
    example: str
    source: str
    subs: frozenset[str] = frozenset()
    """First operand (the subcommand); empty: any."""
    flags: frozenset[str] = frozenset()
    """One of these options must be present (``--name=value`` matches ``--name``); empty: any."""
    no_flags: frozenset[str] = frozenset()
    """None of these options may be present."""


def _r(programs: str, category: str, example: str, source: str, subs: str = "",
       flags: str = "", no_flags: str = "") -> CatRule:
    return CatRule(frozenset(programs.split()), category, example, source,
                   frozenset(subs.split()), frozenset(flags.split()), frozenset(no_flags.split()))


_NONE = "not in the data"
_K1 = "labelled/k1.lib-bootstrap__session-export.json"
_WP = "labelled/uicomponents__session-wordpress.json"
_UI = "labelled/uicomponents__session-export.json"
_RAIN = "labelled/will-it-rain__claude.jsonl"
_SOUL = "labelled/soulpass__codex-session.jsonl"
_SPEAK = "labelled/speakfree__session.jsonl"
_VAL = "labelled/Valdyum-Labs__codex-session.jsonl"
_TREZO = "labelled/Trezo-Ai__codex-session.jsonl"
_STUN = "labelled/stunning-memory__opencode.db"
_PFM = "labelled/pfm-categorization__opencode-session.json"
_FUND = "pool/FundWise__claude-session.jsonl"
_DEX = "pool/blockchain-dex-events__claude-session.jsonl"
_RIVO = "pool/Rivo__codex-session.jsonl"
_RUST = "realworld/claude-code/python-to-rust-port"
_QUIET = "realworld/opencode/session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json"
_SAILOR = "realworld/opencode/session__curious-sailor__ses_39b7f9e89ffe7J0WzLzYrUt4eW.json"
_CODEX = "realworld/codex/exported-session.jsonl"
_RUSTCI = "fixtures/campaigns/rustci_world.py"
_LEDGER = "fixtures/opencode_recorded/ledger-race"
_INFRA = "fixtures/opencode_recorded/infra-oidc"

RULES: tuple[CatRule, ...] = (
    # test
    _r("pytest py.test", "test", "pytest --cov=src --cov-report=term-missing",
       _RUST + " (its justfile)"),
    _r("vitest jest mocha ava tap playwright cypress phpunit pest rspec ctest bats", "test",
       "npx vitest run --reporter=verbose", _RAIN),
    _r("cargo", "test", "cargo test -p cfo_oracle", _TREZO, subs="test nextest llvm-cov tarpaulin"),
    _r("go", "test", "go test -race -run TestTransferConcurrent ./internal/transfer/", _LEDGER,
       subs="test"),
    # `bun test` is decided before the rules (a script runner's own test verb)
    _r("swift dotnet deno mvn gradle gradlew mix", "test",
       "dotnet test tests/Pfm.Categorization.WebApi.Tests",
       _PFM + " #26 (its instructions to the user)", subs="test"),
    _r("tox nox", "test", "tox -e py312", _NONE),
    # typecheck
    _r("tsc vue-tsc", "build", "tsc -b", _NONE, flags="-b --build"),
    _r("tsc vue-tsc svelte-check mypy pyright pyre phpstan psalm flow", "typecheck",
       "npx tsc --noEmit", _UI),
    # lint
    _r("php", "lint", "php -l demo/index.php", _K1, flags="-l --syntax-check"),
    _r("node", "lint", "node --check app.js", _CODEX, flags="--check -c"),
    _r("ruby", "lint", "ruby -c app.rb", _NONE, flags="-c"),
    _r("ruff flake8 pylint black isort autopep8 yapf eslint prettier biome stylelint "
       "shellcheck shfmt golangci-lint gofmt goimports rustfmt clang-format clang-tidy rubocop "
       "standardrb hadolint yamllint markdownlint codespell pre-commit tflint ktlint swiftlint "
       "phpcs php-cs-fixer", "lint", "ruff check .", _RUST + " (its justfile)"),
    _r("cargo", "lint", "cargo clippy -p {crate} --all-targets -- -D warnings", _RUSTCI,
       subs="clippy fmt"),
    _r("go", "lint", "go vet ./...", _NONE, subs="vet fmt"),
    _r("terraform", "lint", "terraform fmt -check -recursive", _INFRA, subs="fmt validate"),
    # build
    _r("vite webpack esbuild rollup parcel tsup next nuxt astro gatsby", "build",
       "npx vite build", _UI, subs="build typegen export"),
    _r("webpack esbuild rollup tsup", "build", "esbuild src/index.ts --bundle", _NONE),
    _r("swift dotnet", "build", "swift build -c release", _SPEAK, subs="build publish"),
    # `go build` is decided before the rules, with `cargo build`; `generate` is what is left
    _r("go", "build", "go generate ./...", _NONE, subs="generate"),
    _r("composer", "build", "composer dump-autoload", _K1, subs="dump-autoload dumpautoload"),
    _r("prisma", "build", "prisma generate", _NONE, subs="generate"),
    # run: the project's code or an interpreter (asking its version is a search)
    _r("php node nodejs ruby deno", "search", "php -v", _WP, flags="-v --version -V"),
    _r("bundle poetry pdm", "install", "bundle install", _DEX,
       subs="install update add remove lock"),
    _r("php", "run", "php -r \"require 'vendor/autoload.php'; ...\"", _K1),
    _r("node nodejs", "run", "node scripts/zerion-readiness.mjs --help", _FUND),
    _r("ruby", "run", "ruby q1_mana_total_supply/solve.rb", _DEX),
    _r("cargo go swift dotnet deno", "run", "cargo run --release -- --test-mode",
       _VAL + " (a README it read)", subs="run"),
    _r("wp", "run", "wp eval 'echo get_post(5)->post_content;'", _WP,
       subs="eval eval-file shell"),
    _r("osascript textutil", "run",
       "textutil -convert txt -stdout \"/Users/francobertoldi/Library/CloudStorage/"
       "GoogleDrive-bertoldifranco4@gmail.com/Mi unidad/Unir/PLN /Actividad 1/muinar02_act1/"
       "muinar02_act1.docx\"", "pool/conversacion-act1-pln__session.jsonl"),
    # launch: dev servers
    _r("vite next nuxt astro", "launch", "next dev --port 3000",
       _VAL + " #66 (its package.json)", subs="dev start preview"),
    _r("studio", "launch", "studio start --path=\"C:\\Users\\salma\\Studio\\21st-showcase\"",
       _WP, subs="start"),
    # package: package-manager housekeeping that neither installs nor queries
    _r("npm pnpm yarn bun composer cargo uv poetry gem", "package",
       "cargo init --lib --name python_utils",
       _RUST, subs="init new create pack publish audit cache config login logout whoami "
                   "version link unlink"),
    # git and its forge
    _r("git", "search", "git grep -n TODO", _NONE, subs="grep"),
    _r("git", "file-edit", "git apply /tmp/fix.patch", _NONE, subs="apply am"),
    _r("git", "git", "git add -A && git status", _K1),
    _r("gh glab", "git", "gh repo create klan1/k1.lib-bootstrap --public --source=. --push",
       _K1),
    # http
    _r("curl wget http https httpie xh curlie webfetch Invoke-WebRequest Invoke-RestMethod iwr "
       "irm", "http", "curl -s -b cookies.txt http://localhost:8882/wp-admin/", _WP),
    # deploy
    _r("kubectl oc", "search", "kubectl -n kube-system get pods", _NONE,
       subs="get describe logs top explain version api-resources cluster-info config diff "
            "auth events"),
    _r("kubectl oc", "deploy", "kubectl apply -f deploy.yaml", _NONE,
       subs="apply create delete replace patch rollout scale set edit label annotate expose "
            "run autoscale drain cordon uncordon taint"),
    _r("helm", "search", "helm list -A", _NONE,
       subs="template list ls status get show history search lint diff version"),
    _r("helm", "deploy", "helm upgrade --install app ./chart -n web", _NONE,
       subs="install upgrade uninstall delete rollback"),
    _r("terraform tofu pulumi", "search", "terraform -chdir=envs/staging plan -input=false",
       _INFRA, subs="plan show output state graph providers version preview"),
    _r("terraform tofu pulumi", "deploy", "terraform apply plan.tfplan", _NONE,
       subs="apply destroy import up refresh"),
    _r("vercel netlify flyctl fly firebase wrangler railway heroku serverless sls", "deploy",
       "vercel --prod", _RIVO + ":70 (a README it read)",
       subs="deploy --prod publish up release"),
    _r("anchor", "deploy", "anchor deploy", _RIVO + " #27 (a README it read)",
       subs="deploy upgrade"),
    _r("solana", "deploy", "solana program deploy target/deploy/vault.so", _NONE,
       subs="program"),
    _r("docker podman nerdctl", "deploy", "docker push registry/app:1.2", _NONE, subs="push"),
    _r("docker podman nerdctl", "run", "docker exec -it app sh", _NONE, subs="exec"),
    # file: files and directories created, moved, copied, removed
    _r("rm rmdir unlink shred mv cp rsync scp ln mkdir touch chmod chown chgrp truncate "
       "install zip Remove-Item Copy-Item Move-Item New-Item Rename-Item del rd md copy move "
       "ren mkdir.exe", "file", "rm -r /tmp/tmpqwh7888i/tests/", _RUST),
    # file-edit
    _r("apply_patch applypatch Set-Content Add-Content Out-File", "file-edit",
       "apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: app.js\n*** End Patch\nPATCH",
       _CODEX),
    # search: reading, listing, asking a tool what it is
    _r("Get-Content Get-ChildItem Get-Item Get-ItemProperty Test-Path Select-String "
       "Select-Object Where-Object Measure-Object Get-Command Get-Location Resolve-Path "
       "Join-Path Split-Path Format-List Format-Table Sort-Object Get-Process Get-Service "
       "Get-Date ConvertFrom-Json ConvertTo-Json gc gci ls.exe where where.exe dir type "
       "findstr", "search", "Get-Content -Raw Readme.md", _VAL + ":54"),
    _r("wp", "search", "wp post list --post_type=page --format=csv", _WP,
       subs="post option plugin theme user site menu term comment core config db",
       flags="list get status --format"),
    _r("studio", "search", "studio sites list", _WP, subs="list sites status"),
)
"""Program rules, more specific rows first: the first row that matches decides."""


@dataclass(frozen=True, slots=True)
class Runner:
    program: str
    subs: frozenset[str]
    """Subcommands that run another command (empty: the program always does)."""
    example: str
    source: str
    keep_sub: bool = False
    """The subcommand is the program run (``studio wp ...`` runs ``wp``)."""
    inner_category: str = ""
    """The category the example's inner command has."""


def _run(program: str, subs: str, example: str, source: str, inner: str,
         keep_sub: bool = False) -> Runner:
    return Runner(program, frozenset(subs.split()), example, source, keep_sub, inner)


RUNNERS: tuple[Runner, ...] = (
    _run("npx", "", "npx tsc --noEmit", _UI, "typecheck"),
    _run("bunx", "", "bunx vitest run", _NONE, "test"),
    _run("pnpx", "", "pnpx eslint .", _NONE, "lint"),
    _run("npm", "exec x", "npm exec -- eslint .", _NONE, "lint"),
    _run("pnpm", "exec dlx", "pnpm exec tsc --noEmit", _VAL + " (a README it read)",
         "typecheck"),
    _run("yarn", "exec dlx", "yarn dlx prettier --check .", _NONE, "lint"),
    _run("bun", "x", "bun x tsc --noEmit", _NONE, "typecheck"),
    _run("uv", "run", "uv run pytest --cov=src --cov-report=term-missing", _RUST + " (its justfile)",
         "test"),
    _run("uvx", "", "uvx --from prefect-mcp prefect-mcp-server",
         _SAILOR + " #9 (its opencode.json)", "run"),
    _run("poetry pdm hatch pipenv rye", "run", "poetry run mypy src", _NONE, "typecheck"),
    _run("bundle", "exec", "bundle exec rspec", _NONE, "test"),
    _run("corepack", "", "corepack pnpm --version", _FUND, "search"),
    _run("studio", "wp", "studio wp post list --post_type=page --format=csv", _WP, "search",
         keep_sub=True),
    _run("powershell pwsh powershell.exe pwsh.exe", "",
         "powershell -Command \"Set-Location 'c:\\Users\\vassa\\Documents\\dev\\will-it-rain'; "
         "npx vitest run --reporter=verbose 2>&1\"", _RAIN + " #52", "test"),
    _run("cmd cmd.exe", "",
         "cmd /c \"studio wp eval \\\"echo get_post(8)->post_content;\\\" 2>&1\" 2>&1",
         _WP + " #100 (its --path left out)", "run"),
)
"""Programs that run the command that follows them (after their own options)."""


@dataclass(frozen=True, slots=True)
class Script:
    names: frozenset[str]
    prefix: bool
    category: str
    example: str
    source: str


def _s(names: str, category: str, example: str, source: str, prefix: bool = True) -> Script:
    return Script(frozenset(names.split()), prefix, category, example, source)


SCRIPTS: tuple[Script, ...] = (
    _s("typecheck type-check check-types types tsc typescript", "typecheck",
       "bun run typecheck", _QUIET + " (its AGENTS.md)"),
    _s("test e2e spec coverage cov", "test", "npm test -- --coverage",
       "fixtures/opencode_recorded/blank-page"),
    _s("lint format fmt prettier eslint style", "lint", "npm run lint", _SOUL + " #98"),
    _s("check", "lint", "just check", _RUST, prefix=False),
    _s("build compile bundle dist", "build", "npm run build", _SOUL + " #126"),
    _s("dev start serve preview watch", "launch", "npm run dev -- --port 3000",
       _SOUL + " #143"),
    _s("deploy release publish", "deploy", "npm run deploy", _NONE),
)
"""Script (task) names of ``npm run NAME``, ``pnpm NAME``, ``just NAME``, ``make NAME``;
``prefix``: ``test:unit`` and ``build-web`` match too."""

SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun", "just", "make", "gmake", "task",
                            "composer", "deno"})
"""Programs whose subcommand may name a script: ``npm run X`` (``npm test``, ``npm start``),
``pnpm X``, ``yarn X``, ``bun run X``, ``just X``, ``make X``, ``composer X``, ``deno task X``."""


@functools.cache
def _by_program() -> dict[str, tuple[CatRule, ...]]:
    out: dict[str, list[CatRule]] = {}
    for rule in RULES:
        for p in rule.programs:
            out.setdefault(p.lower(), []).append(rule)
    return {k: tuple(v) for k, v in out.items()}


@functools.cache
def _runners() -> dict[str, tuple[Runner, ...]]:
    out: dict[str, list[Runner]] = {}
    for r in RUNNERS:
        for p in r.program.split():
            out.setdefault(p, []).append(r)
    return {k: tuple(v) for k, v in out.items()}


def _opt(a: str) -> str:
    return a.split("=", 1)[0] if a.startswith("--") else a


_VALUE_OPTIONS = frozenset({"-n", "--namespace", "--context", "--kubeconfig", "--cluster",
                            "--manifest-path", "--project", "--region", "--profile", "--path",
                            "--cwd", "--prefix", "--filter", "-F", "-w", "--workspace"})
"""Options whose value is the next word, skipped when looking for the subcommand
(``kubectl -n api get ...``, ``pnpm --filter web build``)."""


def first_operand(args: tuple[str, ...]) -> str:
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--":
            continue
        if a in _VALUE_OPTIONS:
            skip = True
            continue
        if not a.startswith("-") or a in ("-", "--prod"):
            return a
    return ""


def rule_category(prog: str, args: tuple[str, ...], sub: str | None = None) -> str | None:
    """The category the first matching :data:`RULES` row gives, or None."""
    rules = _by_program().get(prog.lower())
    if not rules:
        return None
    if sub is None:
        sub = first_operand(args)
    opts = {_opt(a) for a in args if a.startswith("-")}
    for r in rules:
        if r.subs and sub not in r.subs and not (r.subs & opts):
            continue
        if r.flags and not (r.flags & opts) and not (r.flags & set(args)):
            continue
        if r.no_flags and r.no_flags & opts:
            continue
        return r.category
    return None


def runner_inner(prog: str, eff: tuple[str, ...]) -> int | None:
    """Where the command run by a runner (``npx X``, ``uv run X``) starts in ``eff``."""
    runners = _runners().get(prog.lower())
    if not runners:
        return None
    n = len(eff)
    for r in runners:
        i = 1
        if r.subs:
            while i < n and eff[i].startswith("-"):
                i += 1
            if i >= n or eff[i] not in r.subs:
                continue
            if not r.keep_sub:
                i += 1
        # the runner's own options (``npx -y``, ``uv run --with x``, ``powershell -NoProfile``)
        while i < n and eff[i].startswith(("-", "/")) and not (
                prog.startswith(("powershell", "pwsh", "cmd")) and eff[i].lower() in (
                    "-command", "-c", "/c", "/k")):
            i += 2 if eff[i] in ("-p", "--package", "--with", "--from", "--python") else 1
        if i < n and eff[i].lower() in ("-command", "-c", "/c", "/k"):
            i += 1
        if i < n and eff[i] == "--":
            i += 1
        return i if i < n else None
    return None


READ_VERBS = frozenset({"list", "ls", "status", "show", "info", "describe", "whoami", "help",
                        "--help", "-h", "--version"})
GENERIC: tuple[CatRule, ...] = (
    _r("*", "search", "opencode session list --format json", _UI + " #59",
       subs=" ".join(READ_VERBS)),
)
"""Programs no rule knows: a first or second operand that only asks (``opencode session
list``, ``spl-token --help``) makes the command a search."""


def generic_category(args: tuple[str, ...]) -> str | None:
    """The category :data:`GENERIC` gives a program no other rule knows, or None."""
    words = [a for a in args[:3] if a not in ("--",)][:2]
    for r in GENERIC:
        if any(w in r.subs for w in words):
            return r.category
    return None


def script_category(name: str) -> str:
    """The category of running the script or task ``name`` (``run`` when no row names it)."""
    low = name.lower()
    for s in SCRIPTS:
        for n in s.names:
            if low == n or (s.prefix and low.startswith(n) and (
                    len(low) == len(n) or low[len(n)] in ":-_.")):
                return s.category
    return "run"
