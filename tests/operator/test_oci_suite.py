"""`spec.suite.oci`: refused without a digest by the runner's own rule, pulled and split by the runner pods'
`split` init container with the install's registry CA and credentials (the answer container gets neither,
nor the keys), a failed pull named SuitePullFailed, the artifact's digest in the status."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from assay_operator.campaign.api import CampaignSpec
from assay_operator.campaign.plan import entries, evaluation_spec
from assay_operator.cluster_views import Job, Pod
from assay_operator.crdgen import EVALUATION, crd
from assay_operator.evaluation.api import EvaluationSpec, EvaluationStatus, InputsStatus
from assay_operator.evaluation.build import snapshots
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.egress import build_answer_policy
from assay_operator.evaluation.build.judge_job import build_judge_job
from assay_operator.evaluation.read import outcome as job_outcome
from assay_operator.evaluation.read import reconcile
from assay_operator.settings import Settings, from_environment
from assay_runner.contract import NOT_PINNED, Inputs, RunSummary, SummaryCounts

DIGEST = "sha256:" + "ab" * 32
REFERENCE = f"registry.example:5000/team/suites/support-desk@{DIGEST}"
SETTINGS = from_environment(
    {
        "ASSAY_RUNNER_IMAGE": "quay.io/assay/runner:0.1.0",
        "ASSAY_SUITE_REGISTRY_CA_SECRET": "suite-registry/bundle.pem",
        "ASSAY_SUITE_REGISTRY_AUTH_SECRET": "suite-registry-pull",
        "ASSAY_SUITE_REGISTRY_NETWORK": '{"cidrs": ["10.9.0.0/16"], "ports": [5000]}',
    }
)
BUNDLED = snapshots.Snapshots("e-brain", "sha256:b")


def spec(suite: dict[str, Any]) -> EvaluationSpec:
    return EvaluationSpec.model_validate(
        {
            "brain": {"configMap": {"name": "b"}},
            "suite": suite,
            "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
        }
    )


OCI = spec({"oci": REFERENCE})


def pod_of(job: Any) -> dict[str, Any]:
    found: dict[str, Any] = job.body()["spec"]["template"]["spec"]
    return found


def container(pod: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = (c for c in [*pod.get("initContainers", []), *pod["containers"]] if c["name"] == name)
    return found


def mounts(container: dict[str, Any]) -> set[str]:
    return {m["name"] for m in container.get("volumeMounts") or []}


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("registry.example/team/suites/support-desk:v1", NOT_PINNED),
        ("registry.example/team/suites/support-desk", NOT_PINNED),
        ("registry.example/team/Suites@" + DIGEST, "is not a valid OCI repository name"),
        ("support-desk@" + DIGEST, "the registry host first"),
        ("registry.example/desk@sha256:abc", "is not sha256: and 64 lower-case hex digits"),
    ],
)
def test_a_reference_without_a_valid_digest_is_refused(reference: str, expected: str) -> None:
    with pytest.raises(ValidationError) as refused:
        spec({"oci": reference})
    assert expected in str(refused.value) and reference in str(refused.value)


def test_pinned_references_are_accepted_with_or_without_the_scheme() -> None:
    assert OCI.suite.oci == REFERENCE
    assert spec({"oci": f"oci://{REFERENCE}"}).suite.oci == f"oci://{REFERENCE}"
    assert spec({"oci": f"localhost/desk:v1@{DIGEST}"}).suite.oci == f"localhost/desk:v1@{DIGEST}"


def test_the_crd_refuses_a_tag_and_a_second_source() -> None:
    suite = crd(EVALUATION)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]["suite"]
    rules = {rule["message"]: rule["rule"] for rule in suite["x-kubernetes-validations"]}
    assert rules[f"oci: {NOT_PINNED}"] == "!has(self.oci) || self.oci.matches('@sha256:[0-9a-f]{64}$')"
    assert "has(self.oci)" in rules["give exactly one of configMap, bundled or oci"]
    assert "description" in suite["properties"]["oci"]


def test_the_split_init_container_alone_holds_the_registry_ca_and_credentials() -> None:
    for job, parts in (
        # the answer pod's split writes the customers part (a conversational suite's) for its runner, and
        # the key nowhere; the judge pod's writes the key
        (
            build_answer_job(OCI, "e", 1, BUNDLED, SETTINGS),
            ["--customer", "/etc/assay/customer/customers.yaml"],
        ),
        (build_judge_job(OCI, "e", 1, BUNDLED, SETTINGS, 360), ["--keys", "/etc/assay/key/keys.yaml"]),
    ):
        pod = pod_of(job)
        assert job.metadata.annotations is not None
        assert job.metadata.annotations["assay.dev/suite-artifact"] == DIGEST
        split = container(pod, "split")
        assert split["command"] == [
            "assay", "split", f"oci://{REFERENCE}", "--public", "/etc/assay/suite", *parts,
        ]  # fmt: skip
        env = {e["name"]: e.get("value") for e in split["env"]}
        assert env["ASSAY_REGISTRY_CA"] == "/etc/assay/registry/ca/ca.crt"
        assert env["DOCKER_CONFIG"] == "/etc/assay/registry/auth"
        assert env["ASSAY_CACHE"] == "/tmp/cache" and env["HOME"] == "/tmp"
        assert {"registry-ca", "registry-auth", "suite", "split-tmp"} <= mounts(split)
        assert ("key" in mounts(split)) == ("--keys" in parts)
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert volumes["registry-ca"]["secret"] == {
            "secretName": "suite-registry",
            "items": [{"key": "bundle.pem", "path": "ca.crt"}],
            "defaultMode": 0o444,
        }
        assert volumes["registry-auth"]["secret"]["secretName"] == "suite-registry-pull"
        assert volumes["registry-auth"]["secret"]["items"] == [
            {"key": ".dockerconfigjson", "path": "config.json"}
        ]
        others = [c for c in [*pod.get("initContainers", []), *pod["containers"]] if c["name"] != "split"]
        for other in others:
            assert not mounts(other) & {"registry-ca", "registry-auth"}, other["name"]
            assert not {e["name"] for e in other.get("env") or []} & {"ASSAY_REGISTRY_CA", "DOCKER_CONFIG"}
    answer = container(pod_of(build_answer_job(OCI, "e", 1, BUNDLED, SETTINGS)), "answer")
    assert "suite" in mounts(answer) and "key" not in mounts(answer)  # the public part only
    judge = container(pod_of(build_judge_job(OCI, "e", 1, BUNDLED, SETTINGS, 360)), "judge")
    assert {"suite", "key"} <= mounts(judge)


def test_without_registry_settings_the_pull_is_anonymous_on_the_images_trust_store() -> None:
    settings = Settings(runner_image="x")
    pod = pod_of(build_answer_job(OCI, "e", 1, BUNDLED, settings))
    env = {e["name"] for e in container(pod, "split")["env"]}
    assert not env & {"ASSAY_REGISTRY_CA", "DOCKER_CONFIG"}
    assert not {v["name"] for v in pod["volumes"]} & {"registry-ca", "registry-auth"}


def test_other_suites_carry_no_artifact() -> None:
    bundled = spec({"bundled": "support-desk"})
    job = build_answer_job(bundled, "e", 1, BUNDLED, SETTINGS)
    assert job.metadata.annotations is not None and "assay.dev/suite-artifact" not in job.metadata.annotations
    assert "registry-ca" not in mounts(container(pod_of(job), "split"))


def test_the_registry_is_in_the_answer_policy_of_an_oci_suite_only() -> None:
    def cidrs(evaluation: EvaluationSpec) -> list[str]:
        policy = build_answer_policy(evaluation, "e", SETTINGS).body()
        return [p["ipBlock"]["cidr"] for r in policy["spec"]["egress"] for p in r.get("to", [])]

    assert "10.9.0.0/16" in cidrs(OCI)
    assert "10.9.0.0/16" not in cidrs(spec({"bundled": "support-desk"}))


def split_failed(message: str) -> Pod:
    terminated = {"exitCode": 2, "reason": "Error", "message": message}
    return Pod.of(
        {
            "status": {
                "phase": "Failed",
                "initContainerStatuses": [{"name": "split", "state": {"terminated": terminated}}],
            }
        }
    )


def failed_job(annotations: dict[str, str]) -> Job:
    condition = {"type": "Failed", "status": "True", "reason": "PodFailurePolicy", "message": "exit 2"}
    return Job.of(
        {
            "metadata": {"name": "e-g1-answer", "annotations": annotations},
            "status": {"conditions": [condition]},
        }
    )


def test_a_failed_pull_is_named() -> None:
    words = f"assay: error: https://r/v2/team/manifests/{DIGEST}: GET: registry answered HTTP 404"
    named = job_outcome.classify(failed_job({"assay.dev/suite-artifact": DIGEST}), [split_failed(words)])
    assert named.state == "failed" and named.reason == "SuitePullFailed"
    assert DIGEST in named.message and "HTTP 404" in named.message
    # A bundled suite's split failing is the runner's bad input, as before.
    bundled = job_outcome.classify(failed_job({}), [split_failed(words)])
    assert bundled.reason == "PodFailurePolicy"
    status = reconcile.finished_status(named, EvaluationStatus(), 1, "2026-12-05T00:00:00Z", "e-g1")
    assert status.verdict == "Blocked"
    stalled = {c.type: c for c in status.conditions or []}["Stalled"]
    assert stalled.status == "True" and stalled.reason == "SuitePullFailed"


def test_the_artifact_digest_is_in_the_status_from_start_to_verdict() -> None:
    running = reconcile.running_status(
        EvaluationStatus(), 1, "e-g1", "sha256:b", "2026-12-05T00:00:00Z", suite_artifact=DIGEST
    )
    assert running.inputs == InputsStatus(brain_digest="sha256:b", suite_artifact_digest=DIGEST)
    summary = RunSummary(
        verdict="Pass",
        score=1.0,
        judges={},
        rules=[],
        counts=SummaryCounts(tickets=1, passed_tickets=1, cells=1, errors=0),
        inputs=Inputs(suite_digest="sha256:s", judges_digest="sha256:j", brain_digest="sha256:b"),
    )
    done = job_outcome.Outcome("succeeded", "Completed", "", summary)
    finished = reconcile.finished_status(done, running, 1, "2026-12-05T00:01:00Z", "e-g1")
    assert finished.inputs is not None
    assert finished.inputs.suite_artifact_digest == DIGEST and finished.inputs.suite_digest == "sha256:s"


def test_a_campaign_shares_its_oci_suite_with_every_candidate() -> None:
    campaign = CampaignSpec.model_validate(
        {
            "suite": {"oci": REFERENCE},
            "candidates": [
                {"name": "a", "brain": {"configMap": {"name": "a"}}},
                {"name": "b", "brain": {"configMap": {"name": "b"}}},
            ],
            "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
        }
    )
    wanted = entries("c", campaign)
    assert len(wanted) == 2
    for entry in wanted:
        assert evaluation_spec(campaign, entry.candidate)["suite"] == {"oci": REFERENCE}
