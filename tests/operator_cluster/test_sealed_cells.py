"""The daemon attack of issue 27 on the control plane: an Evaluation whose agent daemonises to rewrite another
cell after that cell's timeout ends Blocked, with the cell named.

T-1's agent (tests/support/agents/daemon.py) answers well, then leaves a daemon (double fork, setsid) that
finds the answers tree from the answer phase's command line and RunConfig and waits for T-2 to time out, to
write a good answer there and a record saying exit 0. In the answer container under runc, the runner is the
first process of the container's PID namespace and sweeps what a cell leaves behind before the next cell
starts: the daemon dies before it can act, and the truth — T-2 timed out — is what the judge sees. (Where
a daemon escapes, the cell's seal catches what it wrote: tests/runner/test_sealed_cells.py.) The same with a
daemon whose main thread ended with the raw exit syscall while its working thread runs on (/proc shows a
zombie): the sweep kills thread groups, not processes /proc says are running. The result the
judge pod wrote verifies under the evidence key the answer pod made on the claim, and the same result
laundered into a Pass (issue 36) does not.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi, LocalKubelet
from assay_dev.operator_support import OperatorProcess, evaluation
from assay_runner.cli import main
from assay_runner.io.results import read_result
from tests.runner.test_evidence import launder, verified_detail

pytestmark = pytest.mark.cluster

SUITE = {
    "name": "daemon",
    "judges": [
        {"name": "kb", "type": "kb_citation", "weight": 0.4, "threshold": 0.9},
        {"name": "facts", "type": "must_mention", "weight": 0.4, "threshold": 0.9},
        {"name": "format", "type": "format", "weight": 0.2, "threshold": 0.8},
        {"name": "exit_code", "type": "exit_code", "weight": 0, "threshold": 1.0},
    ],
    "gate": {"minScore": 0.9, "ticketFloor": 0.7},
    "tickets": [
        {
            "id": f"T-{i}",
            "split": "validation",
            "question": f"Export {i}?",
            "key": {"kb": ["KB-1"], "mustMention": ["Settings > Export"]},
        }
        for i in (1, 2)
    ],
}


KB = "# KB-1: Export\nOpen Settings > Export.\n"


@pytest.mark.parametrize("mode", ["setsid", "zombie-leader"])
def test_a_daemon_that_would_rewrite_another_cell_is_gone_and_the_run_blocks_on_that_cell(
    tmp_path: Path,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    kubelet: LocalKubelet,
    mode: str,
) -> None:
    for name, data in (
        ("daemon-suite", {"suite.yaml": json.dumps(SUITE)}),
        ("daemon-kb", {"KB-1.md": KB}),
    ):
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
        admin.create(support.config_maps_path(namespace), config_map)
    daemon = f"{support.AGENTS_DIR}/daemon.py"
    spec = {
        "brain": {"configMap": {"name": brains("v1")}},
        "suite": {"configMap": {"name": "daemon-suite"}, "kbConfigMap": {"name": "daemon-kb"}},
        "agent": {
            "kind": "command",
            "model": "none",
            # Its state in its workspace, all a cell's sandbox lets it write: T-1 exits 0 only once its
            # daemon is ready (daemon.py), so T-1's pass says the daemon was alive when its cell ended.
            "command": ["python", daemon, "daemon-state", mode],
            "timeoutSeconds": 5,
        },
        "concurrency": 2,
        "resources": dict(support.SMALL),
        "deadlineSeconds": 600,
    }
    admin.create(support.evaluations_path(namespace), evaluation("daemon", spec))
    done = support.wait_for_verdict(admin, namespace, "daemon", operator=operator, timeout=300)

    status = done["status"]
    assert status["verdict"] == "Blocked", status
    assert status["tickets"]["failing"] == ["T-2"], status["tickets"]  # the cell is named
    kept = support.claim_path(admin, namespace, "daemon-g1-answers")
    result = json.loads((kept / "result" / "result.json").read_text())
    cells = {t["id"]: t["repetitions"][0] for t in result["tickets"]}
    assert cells["T-1"]["error"] is None and cells["T-1"]["passed"]
    assert cells["T-1"]["containment"] in ("cgroup", "pidfd-tree")  # the answer container owns its processes
    assert cells["T-2"]["exitCode"] == 124 and "exit code 124" in (cells["T-2"]["error"] or "")  # the truth
    assert "timed out" in cells["T-2"]["judges"]["exit_code"]["reason"]
    victim = kept / "shard-0" / "T-2" / "1"
    assert not (victim / "answer.md").exists()
    assert json.loads((victim / "cell.json").read_text())["exitCode"] == 124

    # The judge authenticated result.json with the generation's evidence key, which the answer pod made on
    # the claim: the honest (Blocked) result verifies; the same result laundered into a Pass — T-2's answer
    # swapped, its digest, verdicts and the verdict recomputed — names its cell.
    suite = tmp_path / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "suite.yaml").write_text(json.dumps(SUITE))
    (suite / "kb" / "KB-1.md").write_text(KB)
    key = kept / ".evidence" / "key"
    checked = tmp_path / "checked"
    verify = ["--verify", "--suite", str(suite), "--evidence-key", str(key), "--out", str(checked), "-q"]
    assert main(["gate", str(kept / "result" / "result.json"), *verify]) == 1  # T-2 timed out
    assert next(r for r in read_result(checked / "result.json").rules if r.name == "verified").passed
    laundered = tmp_path / "result.json"
    laundered.write_bytes((kept / "result" / "result.json").read_bytes())
    launder(laundered)
    assert main(["gate", str(laundered), *verify]) == 1
    assert "cell T-2/1: its record in result.json does not verify" in verified_detail(checked)
