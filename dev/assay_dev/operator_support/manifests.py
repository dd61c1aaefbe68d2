"""Evaluation manifests and the objects they refer to (brain ConfigMaps, Secrets), as the tests write them."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from assay_dev.cluster.kubeapi import Obj
from assay_dev.operator_support.images import ANSWERS_DIR
from assay_dev.operator_support.paths import GROUP, SUPPORT_DESK, VERSION

# --- manifests ---------------------------------------------------------------------------------------------


def brain_config_map(name: str, version: str) -> Obj:
    """The example brain as a ConfigMap, one key per file (as `kubectl create configmap --from-file`)."""
    folder = SUPPORT_DESK / "brains" / version
    data = {p.name: p.read_text() for p in sorted(folder.iterdir()) if p.is_file()}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def brain_files(version: str) -> dict[str, bytes]:
    folder = SUPPORT_DESK / "brains" / version
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


SMALL = {"cpu": "1", "memory": "512Mi"}
"""A runner pod's resources in these tests. The runtime enforces them (a CFS quota, a memory cgroup): a
whole core keeps the mostly single-threaded runner unthrottled, 512 MiB is well above what it uses."""

FOR_CLIS = {"cpu": "1", "memory": "2Gi"}
"""A runner pod's resources when its cells run an agent CLI: OpenCode alone held 530 MiB (481 MiB anonymous)
when the memory cgroup of a 512 MiB pod ended it, beside a runner of about 60 MiB."""


def replay_spec(brain: str, answers: str = "v1", **overrides: Any) -> Obj:
    """The bundled support-desk example, replayed (offline, ~2 s of runner time)."""
    spec: Obj = {
        "brain": {"configMap": {"name": brain}},
        "suite": {"bundled": "support-desk"},
        "agent": {"kind": "replay", "answers": {"bundled": f"support-desk/answers/{answers}"}},
        "cassettes": {"bundled": "support-desk/cassettes"},
        "judgeModel": "example-judge",
        "resources": dict(SMALL),
    }
    spec.update(overrides)
    return spec


def slow_agent(seconds: float, answers: str = "v1") -> Obj:
    """A command agent that takes `seconds` per ticket, then gives the recorded answer (same verdict as
    replay). The answers come from the test runner image, outside the bundled examples, which the answer
    phase hides from agents that run a program (they hold the suite's answer keys)."""
    source = f"{ANSWERS_DIR}/{answers}"
    script = f"sleep {seconds}; cp {source}/{{ticket_id}}/answer.md {{answer_file}}"
    return {"kind": "command", "model": "recorded", "command": ["sh", "-c", script], "timeoutSeconds": 3600}


HANGING_AGENT: Obj = {
    "kind": "command",
    "model": "none",
    "command": ["sleep", "3600"],
    "timeoutSeconds": 3600,
}


def secret(name: str, key: str, value: str) -> Obj:
    """An Opaque Secret holding `value` under `key` (a token for the gateway, the judge or MLflow)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name},
        "data": {key: base64.b64encode(value.encode()).decode()},
    }


def evaluation(name: str, spec: Obj, labels: Mapping[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Evaluation", "metadata": meta, "spec": spec}


def campaign(name: str, spec: Obj) -> Obj:
    return {"apiVersion": "assay.dev/v1alpha1", "kind": "Campaign", "metadata": {"name": name}, "spec": spec}


MUTE_GRID_AGENTS = ("good", "fine", "okay", "mute")


def mute_grid_spec(
    brain: str, brains: int = 64, agents: Sequence[str] = MUTE_GRID_AGENTS, max_parallel: int = 16
) -> Obj:
    """`brains` brains x `agents`, run by the fake runner (images().fake_runner), whose canned summaries are
    chosen by each cell's name: an agent named `mute` writes no answer (an incomplete cell: ineligible, with a
    reason line), cell b7-okay is Blocked by its gate, every other cell passes. 64 x 4 is the largest grid a
    Campaign may have (256 cells)."""
    agent = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    return {
        "suite": {"bundled": "support-desk"},
        "resources": dict(SMALL),
        "repetitions": 1,
        "maxParallel": max_parallel,
        "incumbent": {"name": "live", "brain": {"configMap": {"name": brain}}, "agent": agent},
        "grid": {
            "brains": [{"name": f"b{i}", "brain": {"configMap": {"name": brain}}} for i in range(brains)],
            "agents": [{"name": name, "agent": agent} for name in agents],
        },
    }
