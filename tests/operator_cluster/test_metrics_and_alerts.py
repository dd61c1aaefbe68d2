"""The operator's metrics as Prometheus sees them, and the chart's alerts evaluated on them by promtool
(Prometheus's own rule checker and rule unit-test runner, built from the Go module proxy as tools/promtool).

The series come from real scrapes of the real operator on the control plane: every label set exists from the
start (at 0), the cluster-state gauges count Evaluations by phase and verdict, and stay right across a
restart. promtool then evaluates each alert of the rendered PrometheusRule on those series (names, labels
and values as scraped, with the `job`/`namespace` target labels the ServiceMonitor's scrape adds).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, replay_spec
from tests.chart.conftest import ROOT, Helm, helm, k8s_bin
from tests.operator_cluster.conftest import StartOperator

__all__ = ["helm", "k8s_bin"]  # fixtures used below

pytestmark = pytest.mark.cluster

JOB, RELEASE_NAMESPACE = "assay-operator-metrics", "assay-system"
TARGET: dict[str, str] = {}
"""The labels OperatorDown carries: none (absent() of a comparison keeps no matcher labels)."""
Sample = tuple[str, dict[str, str], float]


def scrape(operator: OperatorProcess) -> list[Sample]:
    text = httpx.get(f"http://127.0.0.1:{operator.metrics_port}/metrics", timeout=5).text
    return [
        (s.name, dict(s.labels), s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name.startswith("assay_")
    ]


def value(samples: list[Sample], name: str, **labels: str) -> float | None:
    return next((v for n, ls, v in samples if n == name and ls == labels), None)


@functools.cache
def promtool() -> Path:
    built = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-go-tools.sh"), "promtool"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, f"building tools/promtool failed:\n{built.stderr}"
    return Path(built.stdout.strip().splitlines()[-1])


def rendered_rules(helm: Helm) -> dict[str, Any]:
    """The chart's PrometheusRule (default thresholds), as a Prometheus rule file."""
    text = helm.template(
        namespace=RELEASE_NAMESPACE,
        extra=[
            "--set",
            "metrics.prometheusRule.enabled=true",
            "--show-only",
            "templates/prometheusrule.yaml",
        ],
    )
    rule = yaml.safe_load(text)
    assert rule["kind"] == "PrometheusRule"
    groups: dict[str, Any] = {"groups": rule["spec"]["groups"]}
    return groups


def series(
    samples: list[Sample], later: list[Sample] | None = None, minutes: int = 120
) -> list[dict[str, str]]:
    """promtool input_series from scrapes: `samples` for the first 10 minutes, then `later` (when given)."""
    out = []
    later_values = {(n, json.dumps(ls, sort_keys=True)): v for n, ls, v in later or samples}
    for name, labels, first in samples:
        full = {**labels, "job": JOB, "namespace": RELEASE_NAMESPACE}
        selector = ", ".join(f'{k}="{v}"' for k, v in sorted(full.items()))
        then = later_values.get((name, json.dumps(labels, sort_keys=True)), first)
        out.append({"series": f"{name}{{{selector}}}", "values": f"{first:g}x10 {then:g}x{minutes - 10}"})
    return out


def run_promtool_test(tmp_path: Path, rules: dict[str, Any], tests: list[dict[str, Any]]) -> str:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    (tmp_path / "test.yaml").write_text(
        yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests})
    )
    done = subprocess.run(
        [str(promtool()), "test", "rules", "test.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def annotations(rules: dict[str, Any], alert: str, **values: str) -> dict[str, str]:
    """The alert's annotations with its templates filled as Prometheus would for `values`."""
    rule = next(r for g in rules["groups"] for r in g["rules"] if r.get("alert") == alert)
    out = {}
    for key, template in rule["annotations"].items():
        text = str(template)
        for name, filled in values.items():
            text = text.replace("{{ " + name + " }}", filled)
        out[key] = text
    return out


def alert(
    name: str, at: str, rules: dict[str, Any], labels: dict[str, str] | None, **values: str
) -> dict[str, Any]:
    expected = (
        []
        if labels is None
        else [
            {
                "exp_labels": {"severity": "warning", **labels},
                "exp_annotations": annotations(rules, name, **values),
            }
        ]
    )
    return {"eval_time": at, "alertname": name, "exp_alerts": expected}


# --- the metrics -------------------------------------------------------------------------------------------


def test_series_exist_from_the_start_and_gauges_follow_the_cluster(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    first = operators(namespace, image=support.images().fake_runner)
    at_start = scrape(first)
    # Every known label set, before any event.
    assert value(at_start, "assay_evaluations_total", verdict="Blocked", reason="GateBlocked") == 0
    assert value(at_start, "assay_evaluations_total", verdict="Pass", reason="Passed") == 0
    assert value(at_start, "assay_errors_total", kind="api") == 0
    assert value(at_start, "assay_errors_total", kind="status") == 0  # a refused status write, at 0 too
    assert value(at_start, "assay_campaigns_decided_total", outcome="keep") == 0
    assert value(at_start, "assay_evaluations_by_phase", phase="Finished", verdict="Pass") == 0
    assert value(at_start, "assay_evaluations_past_deadline") == 0

    brain = brains("v1")
    for name in ("pass-1", "pass-2", "blocked-1"):
        support.create_evaluation(admin, namespace, name, replay_spec(brain))
    support.create_evaluation(admin, namespace, "waits", replay_spec("brain-missing"))
    for name in ("pass-1", "pass-2", "blocked-1"):
        support.wait_for_verdict(admin, namespace, name, operator=first)

    def gauges(operator: OperatorProcess) -> dict[tuple[str, str], float]:
        got = scrape(operator)
        return {(ls["phase"], ls["verdict"]): v for n, ls, v in got if n == "assay_evaluations_by_phase"}

    expected = {
        ("Pending", "None"): 1.0,  # waiting for its brain
        ("Running", "None"): 0.0,
        ("Stalled", "None"): 0.0,
        ("Finished", "Pass"): 2.0,
        ("Finished", "Blocked"): 1.0,
    }
    wait_until(
        lambda: gauges(first) == expected, timeout=30, what="the gauges", describe=lambda: str(gauges(first))
    )
    assert value(scrape(first), "assay_evaluations_total", verdict="Blocked", reason="GateBlocked") == 1

    # A new process: its counters start again at 0, the cluster's state is read back at once.
    first.stop()
    second = operators(namespace, image=support.images().fake_runner)
    wait_until(
        lambda: gauges(second) == expected,
        timeout=30,
        what="the gauges after a restart",
        describe=lambda: str(gauges(second)),
    )
    assert value(scrape(second), "assay_evaluations_total", verdict="Blocked", reason="GateBlocked") == 0


# --- the alerts --------------------------------------------------------------------------------------------


def test_every_metric_an_alert_uses_is_exposed(helm: Helm, operator: OperatorProcess, tmp_path: Path) -> None:
    rules = rendered_rules(helm)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rules))
    check = subprocess.run(
        [str(promtool()), "check", "rules", str(tmp_path / "rules.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    exposed = {name for name, _, _ in scrape(operator)}
    used = {m for r in rules["groups"][0]["rules"] for m in re.findall(r"\bassay_[a-z_]+\b", r["expr"])}
    assert used and used <= exposed, used - exposed
    names = {r["alert"] for r in rules["groups"][0]["rules"]}
    assert names == {
        "AssayOperatorDown",
        "AssayReconcileErrors",
        "AssayEvaluationsPastDeadline",
        "AssayBlockedRateHigh",
    }


def test_the_alerts_fire_on_the_operators_real_series(
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
    helm: Helm,
    tmp_path: Path,
) -> None:
    """Scrape before and after three Blocked and one Pass; one Evaluation waits for a brain past its 60 s
    deadline. promtool evaluates each alert on those series: the Blocked rate and the overdue Evaluation fire,
    errors do not (until the error counter the operator exposes grows), and a missing `up` is OperatorDown."""
    operator = operators(namespace, image=support.images().fake_runner)
    rules = rendered_rules(helm)
    support.create_evaluation(admin, namespace, "overdue", replay_spec("brain-missing", deadlineSeconds=60))
    created = time.monotonic()
    before = scrape(operator)
    brain = brains("v1")
    for name in ("blocked-1", "blocked-2", "blocked-3", "pass-1"):
        support.create_evaluation(admin, namespace, name, replay_spec(brain))
    for name in ("blocked-1", "blocked-2", "blocked-3", "pass-1"):
        support.wait_for_verdict(admin, namespace, name, operator=operator)
    wait_until(
        lambda: value(scrape(operator), "assay_evaluations_past_deadline") == 1,
        timeout=max(5.0, 90 - (time.monotonic() - created)),
        what="the overdue Evaluation to count",
    )
    after = scrape(operator)
    assert value(after, "assay_evaluations_total", verdict="Blocked", reason="GateBlocked") == 3

    up = {"series": f'up{{job="{JOB}", namespace="{RELEASE_NAMESPACE}"}}', "values": "1x120"}
    down = {"series": f'up{{job="{JOB}", namespace="{RELEASE_NAMESPACE}"}}', "values": "1x10 0x110"}
    errors = [  # the API errors grow (the status-write errors, also exported at 0, stay at 0)
        {**s, "values": "0x10 0+1x110"}
        if s["series"].startswith("assay_errors_total{") and 'kind="api"' in s["series"]
        else s
        for s in series(before, after)
    ]
    tests = [
        {
            "interval": "1m",
            "input_series": [*series(before, after), up],
            "alert_rule_test": [
                alert("AssayBlockedRateHigh", "40m", rules, {}),
                alert("AssayEvaluationsPastDeadline", "20m", rules, {}, **{"$value": "1"}),
                alert("AssayReconcileErrors", "40m", rules, None),
                alert("AssayOperatorDown", "40m", rules, None),
            ],
        },
        {
            # Only the scrape from before the verdicts: nothing Blocked, nothing overdue.
            "interval": "1m",
            "input_series": [*series(before), up],
            "alert_rule_test": [
                alert("AssayBlockedRateHigh", "40m", rules, None),
                alert("AssayEvaluationsPastDeadline", "40m", rules, None),
            ],
        },
        {
            "interval": "1m",
            "input_series": [*errors, down],
            "alert_rule_test": [
                alert("AssayReconcileErrors", "40m", rules, {"kind": "api"}, **{"$labels.kind": "api"}),
                alert("AssayOperatorDown", "40m", rules, TARGET),
            ],
        },
        {
            # No `up` series at all (the operator was never scraped): absent() fires too.
            "interval": "1m",
            "input_series": series(before),
            "alert_rule_test": [alert("AssayOperatorDown", "10m", rules, TARGET)],
        },
    ]
    run_promtool_test(tmp_path, rules, tests)


def test_a_wrong_metric_name_fails_the_alert_test(
    helm: Helm, operator: OperatorProcess, tmp_path: Path
) -> None:
    """The check can fail: a rule that names a metric the operator does not expose never fires."""
    rules = rendered_rules(helm)
    for rule in rules["groups"][0]["rules"]:
        rule["expr"] = rule["expr"].replace("assay_evaluations_total", "assay_evaluation_total")
    blocked = [
        (n, ls, 5.0 if n == "assay_evaluations_total" and ls.get("verdict") == "Blocked" else v)
        for n, ls, v in scrape(operator)
    ]
    tests = [
        {
            "interval": "1m",
            "input_series": series(scrape(operator), blocked),
            "alert_rule_test": [alert("AssayBlockedRateHigh", "40m", rules, {})],
        }
    ]
    with pytest.raises(AssertionError, match="AssayBlockedRateHigh"):
        run_promtool_test(tmp_path, rules, tests)
