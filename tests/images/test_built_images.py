"""The images as `make images` builds them (marker `images`: built at collection time when missing), run
with `buildah run` as the image's non-root user: what is in them, what is not, and that the runner answers
inside its image as it does on a workstation."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import assay_runner
from assay_dev.images import build as images_build
from assay_dev.images import buildah
from tests.conftest import ClusterImages

pytestmark = pytest.mark.images

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "/opt/assay/examples/support-desk"


@contextmanager
def working(image: str) -> Iterator[tuple[str, Path]]:
    """A buildah working container of `image` and its mounted root filesystem."""
    name = f"assay-test-{uuid.uuid4().hex[:10]}"
    rootfs = buildah.checkout(buildah.inspect_image(image).id, name)
    try:
        yield name, rootfs
    finally:
        buildah.release(name)


def run_in(container: str, script: str, user: str = "1001:0", timeout: float = 300) -> str:
    result = buildah.run(
        ["run", "--isolation", "chroot", "--user", user, container, "--", "sh", "-c", script], timeout=timeout
    )
    return result.stdout


def example_run(brain: str, out: str, mlflow: str) -> str:
    return (
        f"assay run {EXAMPLE} --brain {EXAMPLE}/brains/{brain} --agent replay"
        f" --answers {EXAMPLE}/answers/{brain} --judge-model example-judge"
        f" --cassettes {EXAMPLE}/cassettes --mlflow {mlflow} --out {out}"
    )


def summary(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "verdict": result["verdict"],
        "score": result["score"],
        "judges": {name: judge["mean"] for name, judge in result["judges"].items()},
        "rules": {rule["name"]: rule["passed"] for rule in result["rules"]},
    }


def test_the_runner_image_gives_the_workstations_verdicts_and_logs_to_sqlite(
    cluster_images: ClusterImages, tmp_path: Path
) -> None:
    """`assay run` of the bundled example inside the runner image (as uid 1001, MLflow in a SQLite store,
    which the skinny client alone could not open) gives the same verdicts, scores and judge means as
    `make demo-local` on this machine."""
    inside: dict[str, dict[str, Any]] = {}
    with working(cluster_images.runner) as (container, _):
        version = run_in(container, "assay --version").strip()
        for brain in ("v0", "v1"):
            script = example_run(brain, f"/tmp/{brain}", f"sqlite:////tmp/{brain}.db")
            printed = run_in(container, f"cd /tmp && {script} >/dev/null 2>&1; cat /tmp/{brain}/result.json")
            inside[brain] = json.loads(printed)
    assert version == f"assay {assay_runner.__version__}"
    example = ROOT / "examples" / "support-desk"
    for brain in ("v0", "v1"):
        out = tmp_path / brain
        subprocess.run(
            [
                str(Path(sys.executable).parent / "assay"),
                "run",
                str(example),
                "--brain",
                str(example / "brains" / brain),
                "--agent",
                "replay",
                "--answers",
                str(example / "answers" / brain),
                "--judge-model",
                "example-judge",
                "--cassettes",
                str(example / "cassettes"),
                "--no-mlflow",
                "--out",
                str(out),
            ],
            capture_output=True,
            check=False,
            timeout=300,
        )
        here = json.loads((out / "result.json").read_text())
        assert summary(inside[brain]) == summary(here), brain
        assert inside[brain]["mlflow"]["logged"] is True, inside[brain]["mlflow"]
    assert (inside["v1"]["verdict"], inside["v0"]["verdict"]) == ("Pass", "Blocked")


LAUNCHER_PROBE = """
import asyncio, json, os
from pathlib import Path
from assay_runner.agents.process import run_process
from assay_runner.sandbox import landlock, launcher
from assay_runner.sandbox.policy import Sandbox

workspace = Path("/tmp/assay-run-probe/cell")
workspace.mkdir(parents=True)
argv = ["sh", "-c", "grep -E '^(NoNewPrivs|Seccomp):' /proc/$$/status; ls /proc/$$/fd; ls /tmp"]
env = {"PATH": os.environ["PATH"], "HOME": str(workspace)}
confined = Sandbox(landlock.abi(), []).for_cell(workspace, argv, env, "http://127.0.0.1:4000/v1")
through = launcher.launch_for(confined.preexec, argv, env)
done = asyncio.run(run_process(argv, cwd=workspace, env=env, timeout=60, confine=confined.preexec))
print(json.dumps({"launcher": launcher.find(), "abi": landlock.abi(), "through": through is not None,
                  "stdout": done.stdout, "stderr": done.stderr}))
"""


def test_the_runner_image_confines_agents_through_its_launcher(cluster_images: ClusterImages) -> None:
    """The image carries the sandbox's launcher where the runner looks for it, root's and not writable by
    the runner's user, and an agent started as uid 1001 is confined through it (no new privileges, the
    seccomp filter, no descriptor beyond its three, /tmp out of reach)."""
    site = "/opt/assay/venv/lib/python3.11/site-packages/assay_runner/sandbox"
    with working(cluster_images.runner) as (container, rootfs):
        binary = rootfs / site.lstrip("/") / "assay-confine"
        assert binary.stat().st_uid == 0 and oct(binary.stat().st_mode & 0o7777) == "0o755"
        assert binary.read_bytes()[:4] == b"\x7fELF" and b"/lib64/ld-linux" not in binary.read_bytes()
        (rootfs / "tmp" / "probe.py").write_text(LAUNCHER_PROBE)
        probed = json.loads(run_in(container, "cd /tmp && python3.11 /tmp/probe.py").splitlines()[-1])
    assert probed["launcher"] == f"{site}/assay-confine", probed
    if probed["abi"] < 1:
        pytest.skip("buildah's container refuses Landlock here: the launcher is there, unused")
    assert probed["through"], probed
    assert probed["stdout"].split() == ["NoNewPrivs:", "1", "Seccomp:", "2", "0", "1", "2"], probed
    assert "Permission denied" in probed["stderr"], probed


def test_the_operator_image_holds_no_judge_code_and_no_mlflow(cluster_images: ClusterImages) -> None:
    probe = (
        "python -c 'import importlib.util as u, assay_operator.evaluation.handlers, "
        "assay_operator.campaign.handlers; "
        'print(*(u.find_spec(m) is not None for m in ("assay_runner.judges", "assay_runner.run", '
        '"mlflow", "httpx")))\''
    )
    with working(cluster_images.operator) as (container, _):
        assert run_in(container, probe).split() == ["False", "False", "False", "False"]


def test_the_agents_image_runs_the_pinned_clis_on_node_22(cluster_images: ClusterImages) -> None:
    assert cluster_images.runner_agents is not None
    pinned = json.loads((ROOT / "agents" / "package.json").read_text())["dependencies"]
    with working(cluster_images.runner_agents) as (container, _):
        node = run_in(container, "node --version").strip()
        versions = {
            cli: run_in(container, f"{cli} --version 2>&1") for cli in ("opencode", "claude", "codex")
        }
    assert int(node.lstrip("v").split(".")[0]) >= 22, node
    assert pinned["opencode-ai"] in versions["opencode"]
    assert pinned["@anthropic-ai/claude-code"] in versions["claude"]
    assert pinned["@openai/codex"] in versions["codex"]


def _host_tls_files() -> list[Path]:
    candidates = [os.environ.get(v, "") for v in ("PIP_CERT", "SSL_CERT_FILE", "PIP_CONFIG_FILE")]
    candidates += ["/etc/ssl/certs/ca-certificates.crt", "/etc/pip.conf"]
    return [Path(c) for c in dict.fromkeys(candidates) if c and Path(c).is_file()]


@pytest.mark.parametrize("name", ["operator", "runner"])
def test_the_hosts_ca_bundle_and_pip_config_are_in_no_image(name: str, cluster_images: ClusterImages) -> None:
    """The builds got them as secrets: no file of the final image is byte-for-byte one of them, no layer's
    history mentions them, no environment variable points pip at them."""
    secrets = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in _host_tls_files()}
    assert secrets, "no CA bundle on this host to look for"
    image = getattr(cluster_images, name)
    info = buildah.inspect_image(image)
    assert not {"PIP_CERT", "PIP_CONFIG_FILE", "NODE_EXTRA_CA_CERTS"} & set(info.env)
    history = json.dumps(json.loads(buildah.run(["inspect", "--type", "image", image]).stdout)["History"])
    assert "ca-bundle" not in history.replace("id=ca-bundle", "") and "pip.conf" not in history
    found = []
    with working(image) as (_, rootfs):
        for path in rootfs.rglob("*"):
            small = path.is_file() and not path.is_symlink() and path.stat().st_size < 4 << 20
            if small and hashlib.sha256(path.read_bytes()).hexdigest() in secrets:
                found.append(str(path.relative_to(rootfs)))
    assert found == []


def test_each_image_has_an_sbom_of_every_package_source(cluster_images: ClusterImages) -> None:
    """What `make images` writes next to the digests (made here if this checkout's images have none yet)."""
    built = {
        image.name: image for image in images_build.build(images_build.DEFAULT_IMAGES, log=lambda _: None)
    }
    record = images_build.read_record(ROOT)
    for name, must in (
        ("operator", {"python3.11", "pydantic", "kopf"}),
        ("runner", {"python3.11", "pydantic", "mlflow-skinny", "sqlalchemy"}),
        ("runner-agents", {"opencode-ai", "@openai/codex", "@anthropic-ai/claude-code"}),
    ):
        assert record[name]["reference"] == built[name].reference
        sbom = json.loads((ROOT / str(record[name]["sbom"])).read_text())
        assert sbom["spdxVersion"] == "SPDX-2.3" and sbom["name"] == f"assay-{name}"
        assert any("syft" in creator for creator in sbom["creationInfo"]["creators"])
        packages = {p["name"]: p for p in sbom["packages"]}
        assert must <= set(packages), sorted(must - set(packages))
        kinds = {
            ref["referenceLocator"].split("/")[0]
            for p in sbom["packages"]
            for ref in p.get("externalRefs", [])
            if ref["referenceType"] == "purl"
        }
        assert {"pkg:deb", "pkg:pypi"} <= kinds or {"pkg:rpm", "pkg:pypi"} <= kinds, kinds


def test_a_warm_build_rebuilds_nothing_and_names_the_same_digests(cluster_images: ClusterImages) -> None:
    again = {image.name: image for image in images_build.current(["operator", "runner"])}
    assert {name: image.seconds for name, image in again.items()} == {"operator": 0.0, "runner": 0.0}
    assert (again["operator"].reference, again["runner"].reference) == (
        cluster_images.operator,
        cluster_images.runner,
    )
