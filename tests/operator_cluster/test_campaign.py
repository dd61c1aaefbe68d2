"""Campaigns end to end on the real control plane and local kubelet: the REAL operator creates one owned
Evaluation per candidate (at most maxParallel unfinished at once), the REAL runner scores each, and the
Campaign's status carries the comparison and the promotion decision, read the ways users read it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ApiError, ControlPlane, KubeApi
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, campaign, condition, get_or_none

pytestmark = pytest.mark.cluster
Obj = dict[str, Any]


def replay(answers: str) -> Obj:
    """An agent giving the example's recorded answer in every repetition (the replay agent proper has
    one recorded repetition, and correctly fails the others)."""
    return support.slow_agent(0, answers)


def shared(**overrides: Any) -> Obj:
    spec: Obj = {
        "suite": {"bundled": "support-desk"},
        "cassettes": {"bundled": "support-desk/cassettes"},
        "judgeModel": "example-judge",
        "resources": dict(support.SMALL),
        "repetitions": 2,
    }
    spec.update(overrides)
    return spec


def wait_for_decision(
    api: KubeApi, namespace: str, name: str, operator: OperatorProcess, timeout: float = 240
) -> Obj:
    path = support.campaigns_path(namespace, name)

    def probe() -> Obj | None:
        if not operator.alive():
            raise RuntimeError(f"the operator died:\n{operator.log_tail()}")
        obj = get_or_none(api, path)
        return obj if obj is not None and support.campaign_decided(obj) else None

    return wait_until(
        probe,
        timeout=timeout,
        interval=0.5,
        what=f"the decision of campaign {namespace}/{name}",
        describe=lambda: str((get_or_none(api, path) or {}).get("status")),
    )


def unfinished_peak(recorder: support.Recorder, campaign_name: str) -> int:
    """The most of the campaign's Evaluations ever unfinished at once, replaying the watch in order."""
    unfinished: set[str] = set()
    peak = 0
    for event in recorder.snapshot():
        obj = event.object
        labels = obj["metadata"].get("labels") or {}
        if labels.get("assay.dev/campaign") != campaign_name:
            continue
        name = obj["metadata"]["name"]
        if event.type == "DELETED" or support.has_verdict()(obj):
            unfinished.discard(name)
        else:
            unfinished.add(name)
        peak = max(peak, len(unfinished))
    return peak


def test_campaign_promotes_the_release_key_winner_one_evaluation_at_a_time(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    v1, v0 = brains("v1"), brains("v0")
    spec = shared(
        maxParallel=1,
        incumbent={"name": "live", "brain": {"configMap": {"name": v0}}, "agent": replay("v0")},
        candidates=[
            {"name": "old-answers", "brain": {"configMap": {"name": v0}}, "agent": replay("v0")},
            {"name": "new-answers", "brain": {"configMap": {"name": v1}}, "agent": replay("v1")},
        ],
    )
    with support.recording(control_plane, support.evaluations_path(namespace)) as watch:
        created = admin.create(support.campaigns_path(namespace), campaign("release", spec))
        done = wait_for_decision(admin, namespace, "release", operator)
        peak = unfinished_peak(watch, "release")

    # --- bounded: maxParallel 1 means one Evaluation at a time, three in all -----------------------------
    assert peak == 1
    children = admin.get(support.evaluations_path(namespace))["items"]
    mine = {c["metadata"]["name"]: c for c in children if support.has_verdict()(c)}
    assert set(mine) == {"release-live", "release-old-answers", "release-new-answers"}
    for child in mine.values():
        owner = child["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
            "Campaign",
            "release",
            created["metadata"]["uid"],
            True,
        )
        assert child["spec"]["repetitions"] == 2 and child["spec"]["suite"] == {"bundled": "support-desk"}

    # --- the decision, with the three labels and why --------------------------------------------------------
    status = done["status"]
    assert (status["highestMean"], status["winner"], status["promote"]) == (
        "new-answers",
        "new-answers",
        True,
    )
    assert status["progress"] == "3/3" and status["key"] == ["fully-resolved", "mean"]
    rows = {r["name"]: r for r in status["candidates"]}
    new, old, live = rows["new-answers"], rows["old-answers"], status["incumbent"]
    assert new["verdict"] == "Pass" and new["eligible"] and new["complete"] and new["coverage"] == 1.0
    assert new["tickets"] == 16 and new["rankByKey"] == 1
    assert new["fullyResolved"] > old["fullyResolved"] == live["fullyResolved"]
    assert old["verdict"] == "Blocked" and not old["eligible"] and live["name"] == "live"
    # The numbers are the Evaluations' own: the Campaign reads them from their status.
    evaluated = mine["release-new-answers"]["status"]
    assert new["mean"] == next(r["value"] for r in evaluated["rules"] if r["name"] == "score")
    assert new["fullyResolved"] == evaluated["repetitions"]["fullyResolved"]
    assert any(
        r == f"promote new-answers: fully-resolved {new['fullyResolved']} beats the incumbent's "
        f"{live['fullyResolved']}"
        for r in status["reasons"]
    )
    support.assert_conditions(
        done, {"Ready": "True", "Completed": "True", "Reconciling": "False", "Stalled": "False"}, 1
    )

    # --- kubectl: printer columns and wait ---------------------------------------------------------------
    table = control_plane.kubectl("get", "campaigns", "-n", namespace).stdout.splitlines()
    assert table[0].split() == ["NAME", "WINNER", "PROMOTE", "APPROVAL", "PROGRESS", "READY", "AGE"], table
    # approval: Automatic (the default) needs no approval: the column is empty.
    assert table[1].split()[:5] == ["release", "new-answers", "true", "3/3", "True"]
    ok = control_plane.kubectl(
        "wait", "-n", namespace, "--for=condition=Ready", "campaign/release", "--timeout=30s"
    )
    assert "condition met" in ok.stdout
    support.wait_for_events(admin, namespace, "release", {"EvaluationCreated", "Decided"})

    # --- deleting the Campaign takes its Evaluations with it (ownerReferences, garbage collector) -------
    admin.delete(support.campaigns_path(namespace, "release"))
    wait_until(
        lambda: (
            not [
                c
                for c in admin.get(support.evaluations_path(namespace))["items"]
                if (c["metadata"].get("labels") or {}).get("assay.dev/campaign") == "release"
            ]
        ),
        timeout=60,
        what="the garbage collector to delete the campaign's Evaluations",
    )


def test_an_incumbent_only_matched_is_kept_and_ready_stays_false(
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    v1 = brains("v1")
    spec = shared(
        maxParallel=2,
        repetitions=1,
        agent=replay("v1"),
        incumbent={"name": "live", "brain": {"configMap": {"name": v1}}},
        candidates=[{"name": "same", "brain": {"configMap": {"name": v1}}}],
    )
    admin.create(support.campaigns_path(namespace), campaign("rerun", spec))
    done = wait_for_decision(admin, namespace, "rerun", operator)
    status = done["status"]
    assert (status["winner"], status["promote"]) == ("same", False)
    assert status["candidates"][0]["verdict"] == "Pass" and status["incumbent"]["verdict"] == "Pass"
    assert status["message"].startswith("keep the incumbent live: same only matches it on fully-resolved (")
    ready, stalled = condition(done, "Ready"), condition(done, "Stalled")
    assert ready is not None and (ready["status"], ready["reason"]) == ("False", "NoPromotion")
    assert stalled is not None and stalled["status"] == "True"
    not_ready = control_plane.kubectl(
        "wait", "-n", namespace, "--for=condition=Ready", "campaign/rerun", "--timeout=2s", check=False
    )
    assert not_ready.returncode != 0 and "timed out" in not_ready.stderr

    # A spec change re-runs the Evaluations under the new settings, and the decision follows the generation.
    patched = admin.merge_patch(
        support.campaigns_path(namespace, "rerun"), {"spec": {"onTie": "full-key", "repetitions": 2}}
    )
    assert patched["metadata"]["generation"] == 2
    again = wait_for_decision(admin, namespace, "rerun", operator)
    assert again["status"]["observedGeneration"] == 2
    child = admin.get(support.evaluations_path(namespace, "rerun-same"))
    assert child["spec"]["repetitions"] == 2 and child["metadata"]["generation"] == 2
    # Equal on every reduction: full-key cannot break the tie either, so the incumbent stays.
    assert again["status"]["promote"] is False


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"candidates": [{"name": "a", "brain": {"configMap": {"name": "b"}}}] * 2},
            "candidate names must be unique",
        ),
        (
            {
                "incumbent": {"name": "a", "brain": {"configMap": {"name": "b"}}},
                "candidates": [{"name": "a", "brain": {"configMap": {"name": "b"}}}],
            },
            "the incumbent's name must differ",
        ),
        ({"agent": None}, "give spec.agent, or an agent for every candidate"),
        ({"key": ["mean", "mean"]}, "name each reduction in key once"),
        ({"key": ["vibes"]}, "Unsupported value"),
    ],
)
def test_the_apiserver_refuses_bad_campaigns(
    admin: KubeApi, namespace: str, crd: Obj, change: Obj, message: str
) -> None:
    spec = shared(agent=replay("v1"), candidates=[{"name": "a", "brain": {"configMap": {"name": "b"}}}])
    spec.update(change)
    spec = {k: v for k, v in spec.items() if v is not None}
    with pytest.raises(ApiError) as refused:
        admin.create(support.campaigns_path(namespace), campaign("bad", spec))
    assert refused.value.status == 422 and message in str(refused.value), refused.value


def test_a_name_taken_by_someone_elses_evaluation_is_reported_and_never_touched(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    v1 = brains("v1")
    foreign = admin.create(
        support.evaluations_path(namespace), support.evaluation("taken-a", support.replay_spec(v1))
    )
    spec = shared(
        repetitions=1, agent=replay("v1"), candidates=[{"name": "a", "brain": {"configMap": {"name": v1}}}]
    )
    admin.create(support.campaigns_path(namespace), campaign("taken", spec))
    path = support.campaigns_path(namespace, "taken")

    def conflict() -> Obj | None:
        obj = get_or_none(admin, path)
        ready = condition(obj, "Ready")
        return obj if ready is not None and ready["reason"] == "NameConflict" else None

    reported = wait_until(conflict, timeout=60, what="the name conflict in the campaign's status")
    assert (
        "an Evaluation named taken-a already exists and is not owned by this Campaign"
        in (reported["status"]["message"])
    )
    assert reported["status"]["promote"] is False
    # Stalled without Reconciling (kstatus' rule: both True would read InProgress to Flux for ever); the
    # operator still retries, as the rest of this test shows.
    assert [
        support.condition_status(reported, c) for c in ("Ready", "Completed", "Reconciling", "Stalled")
    ] == [
        "False",
        "False",
        "False",
        "True",
    ]
    mine = admin.get(support.evaluations_path(namespace, "taken-a"))
    assert mine["metadata"]["uid"] == foreign["metadata"]["uid"]
    assert not mine["metadata"].get("ownerReferences") and mine["spec"] == foreign["spec"]
    support.wait_for_events(admin, namespace, "taken", {"NameConflict"})

    # Once the name is free, the campaign's retry creates its own Evaluation and decides.
    admin.delete(support.evaluations_path(namespace, "taken-a"))
    done = wait_for_decision(admin, namespace, "taken", operator, timeout=180)
    assert (done["status"]["winner"], done["status"]["promote"]) == ("a", True)
    owner = admin.get(support.evaluations_path(namespace, "taken-a"))["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"]) == ("Campaign", "taken")
