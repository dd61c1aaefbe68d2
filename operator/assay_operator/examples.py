"""The example Evaluation and Campaign Assay ships: the OLM bundle's `alm-examples` and console samples
(scripts/gen_olm_bundle.py), `make demo` and the chart's end-to-end test create them.

They live with the product, not the test harness, because shipped files are generated from them. Both replay
the bundled support-desk example (recorded answers, model-judge cassettes), so they run offline.
"""

from __future__ import annotations

from typing import Any

Manifest = dict[str, Any]
"""A Kubernetes object as its YAML reads (these are written out, never read back)."""


def example_evaluation(name: str, brain: str, answers: str) -> Manifest:
    """The bundled example, replayed from recorded answers and model-judge cassettes (offline)."""
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Evaluation",
        "metadata": {"name": name},
        "spec": {
            "brain": {"configMap": {"name": brain}},
            "suite": {"bundled": "support-desk"},
            "agent": {"kind": "replay", "answers": {"bundled": f"support-desk/answers/{answers}"}},
            "cassettes": {"bundled": "support-desk/cassettes"},
            "judgeModel": "example-judge",
            "resources": {"cpu": "500m", "memory": "512Mi"},
        },
    }


def example_campaign(name: str = "brains") -> Manifest:
    """Brain v1 challenging the released v0, both replayed (one recorded repetition each)."""
    base = example_evaluation("unused", "brain-v0", "v0")["spec"]
    shared = {k: v for k, v in base.items() if k not in ("brain", "agent")}
    replay = {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}}
    return {
        "apiVersion": "assay.dev/v1alpha1",
        "kind": "Campaign",
        "metadata": {"name": name},
        "spec": {
            **shared,
            "repetitions": 1,
            "maxParallel": 1,
            "incumbent": {
                "name": "released",
                "brain": {"configMap": {"name": "brain-v0"}},
                "agent": {**replay, "answers": {"bundled": "support-desk/answers/v0"}},
            },
            "candidates": [{"name": "v1", "brain": {"configMap": {"name": "brain-v1"}}, "agent": replay}],
        },
    }
