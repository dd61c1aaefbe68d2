"""The runner images the operator's tests run: the real runner with the test files added, and a fake one
that answers with canned RunSummaries."""

from __future__ import annotations

import json
from dataclasses import dataclass

from assay_dev.cluster import LocalKubelet, PullFault
from assay_dev.cluster.podspec import DEFAULT_PATH
from assay_dev.images import buildah
from assay_dev.images.derived import derived_image
from assay_dev.operator_support.paths import REPO, SUPPORT_DESK
from assay_runner.contract import (
    Inputs,
    RepetitionFigures,
    RunSummary,
    SummaryCounts,
    SummaryRule,
)

TEST_ROOT = "/opt/assay-test"
"""Where the test images keep what the tests add to the runner image (never the runner's own paths)."""
AGENTS_DIR = f"{TEST_ROOT}/agents"
"""tests/support/agents/*.py (the cheating agent, the fake agent) in the test runner image."""
ANSWERS_DIR = f"{TEST_ROOT}/answers"
"""The example's recorded answers, outside the bundled examples (which the answer phase hides from agents
that run a program: they hold the suite's answer keys)."""
FAKE_DIR = f"{TEST_ROOT}/fake"
"""The stand-in `assay` of the fake runner image, first on its PATH."""
IMAGE_USER = 1001


# --- runner images ----------------------------------------------------------------------------------------

FAKE_RUNNER = r"""#!/bin/sh
# A stand-in for the runner: `assay split` and `assay answer` (the answer pods) do nothing, except that
# `queued-*`'s answer pod holds its queue's quota for 6 s; `assay score --config FILE` (the judge pod)
# writes a canned termination message chosen by the Evaluation's name (the RunConfig's runName is
# "namespace/name") and exits as told. A canned summary is bound to the snapshots the pod mounted (as the
# real judge phase reports them), except `foreign-*`'s, which names another brain. A Campaign's cells are
# named `<campaign>-<brain>-<agent>`: an agent named `mute` wrote no answer (incomplete, Blocked); cell
# b7-okay is Blocked by its gate. Its usage is CANNED_TOKENS, priced by the RunConfig's price of its agent's
# model when it has one (bind.py), so a Campaign's cost per candidate follows its prices.
run_name() { sed -n 's/.*"runName": *"[^/"]*\/\([^"]*\)".*/\1/p' "$1"; }
case "$1" in
  split) exit 0 ;;
  answer) case "$(run_name /etc/assay/run/answer.json)" in queued-*) sleep 6 ;; esac; exit 0 ;;
esac
here=$(dirname "$0")
name=$(run_name /etc/assay/run/config.json)
case "$name" in
  junk-*)   printf 'this is not JSON {' > /dev/termination-log ;;
  empty-*)  : ;;
  schema-*) printf '{"verdict": "Pass", "score": 1.0}' > /dev/termination-log ;;
  future-*) python "$here/bind.py" "$here/future.json" > /dev/termination-log ;;
  blocked-*) python "$here/bind.py" "$here/blocked.json" > /dev/termination-log ;;
  foreign-*) cat "$here/pass.json" > /dev/termination-log ;;
  crash-*)  python "$here/bind.py" "$here/pass.json" > /dev/termination-log
            echo "runner crashed" >&2; exit 1 ;;
  *-mute)   python "$here/bind.py" "$here/incomplete.json" > /dev/termination-log ;;
  *-b7-okay) python "$here/bind.py" "$here/blocked.json" > /dev/termination-log ;;
  *)        python "$here/bind.py" "$here/pass.json" > /dev/termination-log ;;
esac
exit 0
"""

CANNED_TOKENS = (8000, 2000)
"""The input and output tokens a fake run reports (4 cells of 2000 in, 500 out)."""

BIND_SUMMARY = r"""
import json, sys
from pathlib import Path
from assay_runner.contract import PriceConfig, digest_files
from assay_runner.core.digests import tree_digest

summary = json.loads(Path(sys.argv[1]).read_text())
config = json.loads(Path("/etc/assay/run/config.json").read_text())
price = (config.get("prices") or {}).get((config.get("agent") or {}).get("model") or "")
if price is not None:  # priced with the one formula, as the real run prices its metered usage
    tokens = CANNED_TOKENS
    cost = PriceConfig.model_validate_json(json.dumps(price)).cost_usd(*tokens)
    summary["usage"] = {"inputTokens": tokens[0], "outputTokens": tokens[1], "costUsd": round(cost, 6)}
inputs = summary["inputs"]
inputs["brainDigest"] = tree_digest(Path("/etc/assay/brain"))
keys = Path("/etc/assay/key/keys.yaml")
if keys.is_file():
    inputs["publicDigest"] = tree_digest(Path("/etc/assay/suite"))
    inputs["keyDigest"] = digest_files({"keys.yaml": keys.read_bytes()})
print(json.dumps(summary), end="")
""".replace("CANNED_TOKENS", repr(CANNED_TOKENS))


def canned_summary(verdict: str = "Pass", schema_version: int = 1, complete: bool = True) -> RunSummary:
    """A valid RunSummary, as the real runner would write it for a 4-ticket suite, one repetition;
    `complete=False`: no cell was answered (the agent wrote nothing), so the run is Blocked."""
    passed = verdict == "Pass" and complete
    score = 0.95 if passed else (0.6 if complete else 0.0)
    return RunSummary(
        schema_version=schema_version,
        verdict="Pass" if passed else "Blocked",
        score=score,
        judges={"must_mention": 1.0 if passed else 0.5, "format": 0.9},
        rules=[
            SummaryRule(name="score", passed=passed, detail=f"score {score:.3f} vs 0.900", value=score),
            SummaryRule(name="judges", passed=True, detail="all 2 judges at or above their thresholds"),
            SummaryRule(name="ticketFloor", passed=passed, detail="lowest ticket", value=score),
            SummaryRule(
                name="complete",
                passed=complete,
                detail="4/4 cells judged" if complete else "0/4 cells answered: the agent wrote no answer",
                value=1.0 if complete else 0.0,
            ),
        ],
        counts=SummaryCounts(tickets=4, passed_tickets=4 if passed else 2 * complete, cells=4, errors=0),
        failing_tickets=[] if passed else ["T-003", "T-004"],
        repetitions=RepetitionFigures(
            k=1,
            cells=4,
            passing_cells=4 if passed else 0,
            pass_rate=1.0 if passed else 0.0,
            pass_at_k=1.0 if passed else 0.0,
            pass_hat_k=1.0 if passed else 0.0,
            fully_resolved=4 if passed else 0,
        ),
        inputs=Inputs(
            brain_digest="sha256:" + "0" * 64, suite_digest="sha256:" + "1" * 64, judges_digest="x"
        ),
    )


@dataclass(frozen=True)
class Images:
    """The runner images the operator tests put in Jobs, by digest."""

    runner: str
    """The runner image as `make images` builds it."""
    test_runner: str
    """The runner image plus the tests' agents and recorded answers under /opt/assay-test; same entrypoint,
    user and environment. The `operator` fixture's default."""
    fake_runner: str
    """test_runner with a stand-in `assay` first on PATH that writes a canned termination message chosen by
    the Evaluation's name prefix."""
    never_starts: str
    """The runner under a name whose pull never ends: the pod stays ContainerCreating."""


IMAGES: dict[str, Images] = {}


def images() -> Images:
    """The images register_images() prepared (the `images` fixture)."""
    if "images" not in IMAGES:
        raise RuntimeError("the test images are not prepared: use the `images` fixture")
    return IMAGES["images"]


def _test_files() -> dict[str, tuple[bytes, int]]:
    files: dict[str, tuple[bytes, int]] = {}
    for agent in sorted((REPO / "tests" / "support" / "agents").glob("*.py")):
        files[f"{AGENTS_DIR}/{agent.name}"] = (agent.read_bytes(), 0o644)
    for answer in sorted((SUPPORT_DESK / "answers").rglob("*")):
        if answer.is_file():
            relative = answer.relative_to(SUPPORT_DESK / "answers").as_posix()
            files[f"{ANSWERS_DIR}/{relative}"] = (answer.read_bytes(), 0o644)
    return files


def _fake_runner_files() -> dict[str, tuple[bytes, int]]:
    files = {
        f"{FAKE_DIR}/assay": (FAKE_RUNNER.encode(), 0o755),
        f"{FAKE_DIR}/bind.py": (BIND_SUMMARY.encode(), 0o644),
    }
    for name, summary in (
        ("pass.json", canned_summary("Pass")),
        ("blocked.json", canned_summary("Blocked")),
        ("future.json", canned_summary("Pass", schema_version=2)),
        ("incomplete.json", canned_summary("Blocked", complete=False)),
    ):
        files[f"{FAKE_DIR}/{name}"] = (json.dumps(summary.to_wire()).encode(), 0o644)
    return files


def register_images(kubelet: LocalKubelet, runner: str) -> Images:
    """Derive the test images from the runner image (cached by content) and make one pull never end."""
    test_files = _test_files()
    test_runner = derived_image(runner, "localhost/assay-test/runner", test_files)
    path = buildah.inspect_image(runner).env.get("PATH", DEFAULT_PATH)
    fake_runner = derived_image(
        runner,
        "localhost/assay-test/fake-runner",
        {**test_files, **_fake_runner_files()},
        env={"PATH": f"{FAKE_DIR}:{path}"},
    )
    never_starts = derived_image(runner, "localhost/assay-test/never-starts", {})
    kubelet.fault_pull(never_starts, PullFault(never=True))
    found = Images(runner=runner, test_runner=test_runner, fake_runner=fake_runner, never_starts=never_starts)
    IMAGES["images"] = found
    return found
