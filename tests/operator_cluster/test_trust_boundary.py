"""The trust boundary of a run on the cluster, shown with the REAL runner in the REAL Job pods:

- a cheating agent that searches everything it can see finds none of the answer key (canaries planted in a
  ticket's notes, a must-mention fact and a forbidden item, none of which is in a question or the KB) and
  does not pass — the same agent run locally with `assay run` does find them (tests/runner/
  test_cheater_local.py): a local run is not a trust boundary, the run's two Jobs are. The pods run from
  the runner image under runc, and while the cheater searches, another Evaluation's judge container holds
  its own key canaries: the cheater's processes, roots, tokens, loopback listeners (etcd, the apiserver)
  and file system give it neither pod's key, nor the operator's token;
- Secret tokens reach the gateway and MLflow as bearer tokens, and appear nowhere else; the answer pods hold
  the gateway's only (no key, no MLflow, no service-account token), and the NetworkPolicy applied for them
  lets them reach the gateway and DNS only (applied, not enforced: the local node has no network plugin);
- an MLflow run on the node's open network holds an earlier run's key: behind MLflow's basic-auth app the
  cheater gets 401 on every call and no key, while the judge phase logs with its `username:password` Secret;
- the verdict is bound to what was mounted (a summary naming a foreign brain blocks), and the gate overrides
  and the ticket selection are in its digests.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi, LocalKubelet
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, evaluation, replay_spec
from assay_dev.servers.auth_proxy import AuthProxy
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.mlflow_server import MlflowAuth, mlflow_server
from assay_operator.evaluation.build.layout import EVIDENCE_KEY_FILE
from tests.operator_cluster.conftest import StartOperator

# `alone`: the cheaters here ask every loopback listener of the host (the answer pods share the host's
# network on this cluster), so a test beside them on another xdist worker would see their requests at its
# own servers (a gateway counting calls) and they would see its listeners.
pytestmark = [pytest.mark.cluster, pytest.mark.alone]

AGENTS = Path(__file__).resolve().parents[1] / "support" / "agents"


@pytest.fixture
def agents_in_image(images: support.Images) -> Path:
    """Where the test agents are in the test runner image (the operator's default image here)."""
    return Path(support.AGENTS_DIR)


def pod_volume(kubelet: LocalKubelet, pod: dict[str, Any], volume: str) -> Path:
    """A pod volume's directory on this node (what a node's root could read, not the pod)."""
    return kubelet.work_dir / "pods" / pod["metadata"]["uid"] / "volumes" / volume


def canary_suite(
    canaries: dict[str, str],
    name: str = "canary",
    slow_judge_seconds: float = 0,
    extras: dict[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A suite ConfigMap whose answer key holds the canaries, and its KB ConfigMap (which does not). With
    `slow_judge_seconds`, a code judge that keeps the judge phase running that long; `extras`: other keys
    of the suite ConfigMap (a README, a reviewer's notes), which nothing names public."""
    judges: list[dict[str, Any]] = [
        {"name": "kb", "type": "kb_citation", "weight": 0.3, "threshold": 0.9},
        {"name": "facts", "type": "must_mention", "weight": 0.4, "threshold": 0.9},
        {"name": "policy", "type": "policy", "weight": 0.3, "threshold": 1.0},
    ]
    if slow_judge_seconds:
        judges.append(
            {
                "name": "slow",
                "type": "code",
                "weight": 0,
                "threshold": 1.0,
                "timeoutSeconds": slow_judge_seconds + 10,
                "code": f"import time\ntime.sleep({slow_judge_seconds})\nreturn 1.0",
            }
        )
    suite = {
        "name": name,
        "judges": judges,
        "tickets": [
            {
                "id": "T-1",
                "split": "validation",
                "question": "How do I export my notes?",
                "key": {
                    "kb": ["KB-1"],
                    "mustMention": [canaries["fact"]],
                    "forbidden": [canaries["forbidden"]],
                    "notes": f"A great answer says {canaries['notes']}.",
                },
            }
        ],
    }
    suite_cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{name}-suite"},
        "data": {"suite.yaml": json.dumps(suite, indent=2), **(extras or {})},
    }
    kb_cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{name}-kb"},
        "data": {"KB-1.md": "# KB-1: Export\nOpen Settings > Export and pick a format.\n"},
    }
    return suite_cm, kb_cm


def container_state(pod: dict[str, Any], name: str) -> dict[str, Any]:
    status = pod.get("status") or {}
    statuses = [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]
    found: dict[str, Any] = next((s["state"] for s in statuses if s["name"] == name), {})
    return found


@pytest.mark.usefixtures("node_without_landlock")
def test_a_cheating_agent_finds_no_answer_key_in_the_answer_phase(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    kubelet: LocalKubelet,
    agents_in_image: Path,
) -> None:
    tag = secrets.token_hex(4)
    canaries = {part: f"canary{part}{tag}" for part in ("notes", "fact", "forbidden", "readme", "reviewer")}
    neighbour = {part: f"neighbour{part}{tag}" for part in ("notes", "fact", "forbidden")}
    brain = brains("v1")
    # Another Evaluation whose judge container holds its key (mounted, and in memory) the whole time.
    for config_map in canary_suite(neighbour, "neighbour", slow_judge_seconds=300):
        admin.create(support.config_maps_path(namespace), config_map)
    answer_kb = ["sh", "-c", "printf 'See [KB-1].' > {answer_file}"]
    neighbour_spec = {
        "brain": {"configMap": {"name": brain}},
        "suite": {"configMap": {"name": "neighbour-suite"}, "kbConfigMap": {"name": "neighbour-kb"}},
        "agent": {"kind": "command", "model": "none", "command": answer_kb, "timeoutSeconds": 60},
        "resources": dict(support.SMALL),
        "deadlineSeconds": 900,
    }
    admin.create(support.evaluations_path(namespace), evaluation("neighbour", neighbour_spec))

    def judging() -> dict[str, Any] | None:
        pods = support.pods_of_job(admin, namespace, "neighbour-g1")
        return pods[0] if pods and "running" in container_state(pods[0], "judge") else None

    wait_until(judging, timeout=180, what="the neighbour's judge container to run")

    # Files beside the suite in its ConfigMap, written as a key would be (the cheater copies what looks like
    # one): nothing names them public, so no answer pod may mount them (the operator used to keep them).
    extras = {
        "README.md": f"# For reviewers\nnotes: T-1 is answered by {canaries['readme']}.\n",
        "notes.md": f"mustMention: [{canaries['reviewer']}]\n",
    }
    for config_map in canary_suite(canaries, extras=extras):
        admin.create(support.config_maps_path(namespace), config_map)
    spec = {
        "brain": {"configMap": {"name": brain}},
        "suite": {"configMap": {"name": "canary-suite"}, "kbConfigMap": {"name": "canary-kb"}},
        "agent": {
            "kind": "command",
            "model": "none",
            "command": ["python", str(agents_in_image / "cheater.py"), "40"],
            "timeoutSeconds": 300,
        },
        "resources": dict(support.SMALL),
        "deadlineSeconds": 600,
    }
    admin.create(support.evaluations_path(namespace), evaluation("cheater", spec))
    done = support.wait_for_verdict(admin, namespace, "cheater", operator=operator, timeout=420)
    still_judging = judging() is not None
    admin.delete(support.evaluations_path(namespace, "neighbour"))
    assert still_judging, "the neighbour's judge phase ended before the cheater's search did"

    status = done["status"]
    assert status["verdict"] == "Blocked", status  # the cheater does not pass
    pod = support.pods_of_job(admin, namespace, "cheater-g1-answer")[0]
    volume = support.claim_path(admin, namespace, "cheater-g1-answers")
    answer = (volume / "shard-0" / "T-1" / "1" / "answer.md").read_text()
    # It did search: every mount of its container, every environment and process it could see, the loopback
    # listeners, the whole file system.
    where = {}
    for key in ("mounts", "processes", "other roots", "asked", "files read"):
        line = re.search(rf"^{key}: ?(.*)$", answer, re.MULTILINE)
        assert line is not None, f"no {key!r} line in the answer:\n{answer[:3000]}"
        where[key] = line.group(1)
    assert int(where["files read"].split(";")[0]) > 100, answer[:3000]
    assert "/etc/assay/suite" in where["mounts"] and "/etc/assay/brain" in where["mounts"]
    assert "/etc/assay/key" not in where["mounts"]
    # Its own PID namespace: the answer pod's runner (PID 1) and the agent; nothing of the node or other
    # pods (the judge runs in a pod of its own now), and no other root file system to walk.
    first = where["processes"].split(": ", 1)[1].split(" | ")[0]
    assert first.startswith("1: ") and "assay answer" in first, where["processes"]
    for other in ("assay score", "catatonit", "kube-", "etcd", "assay-operator", "pytest"):
        assert other not in where["processes"], f"the cheater saw {other!r}: {where['processes']}"
    assert where["other roots"] == "", f"the cheater walked another root file system: {where['other roots']}"
    assert "/v3/kv/range" in where["asked"], "the cheater did not ask the loopback listeners"
    public = pod_volume(kubelet, pod, "suite")
    assert "How do I export my notes?" in (public / "questions.yaml").read_text()
    assert sorted(p.name for p in public.iterdir() if not p.name.startswith(".")) == [
        "questions.yaml",
        "suite.yaml",
    ]
    operator_token = re.search(r"token: (\S+)", operator.kubeconfig.read_text())
    assert operator_token is not None
    for part, canary in {**canaries, **{f"neighbour's {k}": v for k, v in neighbour.items()}}.items():
        assert canary not in answer, f"the {part} canary reached the agent's answer"
    assert operator_token.group(1) not in answer, "the operator's token reached the agent's answer"
    result = json.loads((volume / "result" / "result.json").read_text())
    cell = result["tickets"][0]["repetitions"][0]
    assert cell["exitCode"] == 0 and cell["judges"]["facts"]["score"] == 0.0  # it could not state the fact
    assert cell["isolation"]["landlockAbi"] == 0, cell["isolation"]  # the layer behind the sandbox, shown
    # The key did reach the judge phase: the judges used it.
    assert canaries["fact"] in json.dumps(result["tickets"][0]["key"])
    assert status["inputs"]["publicDigest"] and status["inputs"]["keyDigest"]
    assert status["inputs"]["ticketsDigest"]


GOOD_ANSWER = (
    "## Summary\nSync may be paused; see [KB-1003].\n\n## Steps\n1. Use Help > Sync now.\n2. Check "
    "status.lumen-notes.example.\n\n## Next\nReply if it persists.\n"
)


def test_secret_tokens_reach_the_gateway_and_mlflow_as_bearer_tokens_and_nowhere_else(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    kubelet: LocalKubelet,
    tmp_path: Path,
) -> None:
    gateway_token, judge_token, mlflow_token = (
        f"{role}-{secrets.token_hex(8)}" for role in ("gw", "jg", "ml")
    )
    secrets_path = f"/api/v1/namespaces/{namespace}/secrets"
    admin.create(secrets_path, support.secret("gateway", "token", gateway_token))
    admin.create(secrets_path, support.secret("judge", "token", judge_token))
    admin.create(secrets_path, support.secret("mlflow", "bearer", mlflow_token))

    def reply(body: dict[str, Any]) -> Reply:
        if str(body["messages"][0]["content"]).startswith("You grade"):
            return Reply(content=json.dumps({"score": 5, "reason": "fine"}))
        return Reply(content=GOOD_ANSWER)

    with (
        ChatServer(reply) as gateway,
        mlflow_server(tmp_path) as upstream,
        AuthProxy(upstream, mlflow_token) as tracking,
    ):
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"bundled": "support-desk"},
            "tickets": {"ids": ["T-001", "T-002"]},
            "agent": {"kind": "chat", "model": "agent-m"},
            "judgeModel": "judge-m",
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "judgeGatewayTokenSecretRef": {"name": "judge"},
            "mlflow": {"trackingUri": tracking.url, "tokenSecretRef": {"name": "mlflow", "key": "bearer"}},
            "resources": dict(support.SMALL),
        }
        admin.create(support.evaluations_path(namespace), evaluation("tokens", spec))
        done = support.wait_for_verdict(admin, namespace, "tokens", operator=operator, timeout=300)
        status = done["status"]
        assert status["mlflow"]["logged"] is True, status
        from mlflow import MlflowClient

        run = MlflowClient(tracking_uri=upstream).get_run(status["mlflow"]["runId"])
    seen = [
        (str(body["messages"][0]["content"]).startswith("You grade"), headers.get("authorization"))
        for body, headers in zip(gateway.requests, gateway.headers, strict=True)
    ]
    unauthorised = [
        (str(body["messages"][0]["content"])[:80], headers)
        for body, headers in zip(gateway.requests, gateway.headers, strict=True)
        if headers.get("authorization") is None
    ]
    assert {auth for judged, auth in seen if not judged} == {f"Bearer {gateway_token}"}, unauthorised
    assert {auth for judged, auth in seen if judged} == {f"Bearer {judge_token}"}  # the model judge
    assert tracking.rejected == 0 and {h.get("authorization") for h in tracking.headers} == {
        f"Bearer {mlflow_token}"
    }
    assert status["inputs"]["ticketsDigest"] == run.data.tags["assay.digest.tickets"]

    answer_pods = support.pods_of_job(admin, namespace, "tokens-g1-answer")
    pods = [*answer_pods, *support.pods_of_job(admin, namespace, "tokens-g1")]
    logs = [
        kubelet.logs(namespace, p["metadata"]["name"], c["name"])
        for p in pods
        for c in [*p["spec"]["initContainers"], *p["spec"]["containers"]]
    ]
    kept = support.claim_path(admin, namespace, "tokens-g1-answers")
    outputs = {
        path: path.read_text(errors="replace")
        for folder in [kept, *(pod_volume(kubelet, p, "work") for p in pods)]
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    assert {"result.json", "summary.json", "report.html", "answer.md"} <= {path.name for path in outputs}
    places = {
        "the Evaluation": json.dumps(admin.get(support.evaluations_path(namespace, "tokens"))),
        "events": json.dumps(admin.get(f"/api/v1/namespaces/{namespace}/events")),
        "the pods (spec, status, termination messages)": json.dumps(pods),
        "the Job": json.dumps(support.jobs_of(admin, namespace, "tokens")),
        "the ConfigMaps": json.dumps(admin.get(support.config_maps_path(namespace))),
        "the pod logs": "\n".join(logs),
        "result.json, the report, the answers": "\n".join(outputs.values()),
        "MLflow params and tags": json.dumps([run.data.params, run.data.tags]),
        "the operator's log": operator.log_tail(10_000),
    }
    assert "judge-m" in places["MLflow params and tags"]  # the searches do look at real content
    assert "answered 2 of 2 cell(s)" in places["the pod logs"]
    for where, text in places.items():
        for token in (gateway_token, judge_token, mlflow_token):
            assert token not in text, f"a token appears in {where}"

    # The answer pods as the apiserver admitted them: the gateway token, and no key, no MLflow (URL or
    # token), no judge token, no service-account token.
    (answer_pod,) = answer_pods
    secret_volumes = {v["secret"]["secretName"] for v in answer_pod["spec"]["volumes"] if "secret" in v}
    assert secret_volumes == {"gateway"}
    assert not [v for v in answer_pod["spec"]["volumes"] if "projected" in v]
    # No key in the pod at all: no key snapshot (ConfigMap), and the bundled suite is split in the pod by
    # the `split` init container without --keys, so the key is written nowhere; no emptyDir of the pod holds
    # a key file or a key's field (read on the node, after the run).
    assert "key" not in {v["name"] for v in answer_pod["spec"]["volumes"]}
    (split,) = [c for c in answer_pod["spec"]["initContainers"] if c["name"] == "split"]
    assert "--keys" not in split["command"] and "--public" in split["command"]
    for volume in answer_pod["spec"]["volumes"]:
        if "emptyDir" in volume:
            files = [p for p in pod_volume(kubelet, answer_pod, volume["name"]).rglob("*") if p.is_file()]
            assert not [p for p in files if p.name == "keys.yaml" or b"mustMention" in p.read_bytes()]
    assert pod_volume(kubelet, answer_pod, "suite").joinpath("questions.yaml").is_file()  # the check looks
    assert answer_pod["spec"]["automountServiceAccountToken"] is False
    answer_env = {e["name"] for c in answer_pod["spec"]["containers"] for e in c.get("env") or []}
    assert not {n for n in answer_env if "MLFLOW" in n or "JUDGE" in n}, answer_env
    mounted = {m["mountPath"] for c in answer_pod["spec"]["containers"] for m in c["volumeMounts"]}
    assert "/etc/assay/key" not in mounted and "/etc/assay/secrets/mlflow" not in mounted
    # ... and the NetworkPolicy applied for them: no ingress; egress to DNS and the gateway's own address
    # and port only (here a loopback URL: an IP address, so the operator names it) — not MLflow's port.
    # (Enforcing it is a network plugin's job: the local kubelet has none, so this is what is applied.)
    policy = admin.get(
        f"/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/tokens-answer-egress"
    )
    assert policy["metadata"]["ownerReferences"][0]["name"] == "tokens"
    selected = policy["spec"]["podSelector"]["matchLabels"]
    assert selected.items() <= answer_pod["metadata"]["labels"].items()
    judge_pod = next(p for p in pods if p not in answer_pods)
    assert not selected.items() <= judge_pod["metadata"]["labels"].items()
    gateway_port = urlsplit(gateway.url).port
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"] and not policy["spec"].get("ingress")
    assert policy["spec"]["egress"] == [
        {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
        {"to": [{"ipBlock": {"cidr": "127.0.0.1/32"}}], "ports": [{"protocol": "TCP", "port": gateway_port}]},
    ]
    assert f'"port": {urlsplit(tracking.url).port}' not in json.dumps(policy["spec"]["egress"])


@pytest.mark.usefixtures("node_without_landlock")
def test_the_mlflow_cheater_with_the_network_open_finds_no_key_without_a_credential(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    agents_in_image: Path,
    tmp_path: Path,
) -> None:
    """MLflow holds an earlier run's key; the answer pods share the node's network here (no network plugin,
    no Landlock: the network is open), so the cheater reaches MLflow's port. Behind MLflow's basic-auth app
    it gets 401 on every call and no key, while the judge phase logged through its `username:password`
    Secret and a named reader reads the key back."""
    tag = secrets.token_hex(4)
    logged = {part: f"loggedcanary{part}{tag}" for part in ("notes", "fact", "forbidden")}
    own = {part: f"owncanary{part}{tag}" for part in ("notes", "fact", "forbidden")}
    for config_map in (*canary_suite(logged, "logged"), *canary_suite(own, "own")):
        admin.create(support.config_maps_path(namespace), config_map)
    auth = MlflowAuth()
    admin.create(
        f"/api/v1/namespaces/{namespace}/secrets",
        support.secret("mlflow-writer", "credential", auth.writer.credential),
    )
    brain = brains("v1")
    answer_kb = ["sh", "-c", "printf 'See [KB-1].' > {answer_file}"]
    with mlflow_server(tmp_path, auth) as url:
        first = {
            "brain": {"configMap": {"name": brain}},
            "suite": {"configMap": {"name": "logged-suite"}, "kbConfigMap": {"name": "logged-kb"}},
            "agent": {"kind": "command", "model": "none", "command": answer_kb, "timeoutSeconds": 60},
            "mlflow": {"trackingUri": url, "tokenSecretRef": {"name": "mlflow-writer", "key": "credential"}},
            "resources": dict(support.SMALL),
        }
        admin.create(support.evaluations_path(namespace), evaluation("logged", first))
        status = support.wait_for_verdict(admin, namespace, "logged", operator=operator, timeout=300)[
            "status"
        ]
        assert status["mlflow"]["logged"] is True, status  # the writer's credential, from its Secret
        reader = auth.readers[0]
        artifact = httpx.get(
            f"{url}/get-artifact",
            params={"path": "result.json", "run_uuid": status["mlflow"]["runId"]},
            auth=reader.basic,
            timeout=30,
        )
        assert (
            artifact.status_code == 200 and logged["notes"] in artifact.text
        )  # the key is there, to a reader

        cheat = {
            "brain": {"configMap": {"name": brain}},
            "suite": {"configMap": {"name": "own-suite"}, "kbConfigMap": {"name": "own-kb"}},
            "agent": {
                "kind": "command",
                "model": "none",
                "command": ["python", str(agents_in_image / "cheater.py"), "40"],
                "timeoutSeconds": 300,
            },
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        admin.create(support.evaluations_path(namespace), evaluation("cheater", cheat))
        support.wait_for_verdict(admin, namespace, "cheater", operator=operator, timeout=420)
    volume = support.claim_path(admin, namespace, "cheater-g1-answers")
    answer = (volume / "shard-0" / "T-1" / "1" / "answer.md").read_text()
    line = re.search(r"^mlflow: ?(.*)$", answer, re.MULTILINE)
    assert line is not None, answer[:3000]
    port = urlsplit(url).port
    calls = [c.split() for c in line.group(1).split("; ") if c.startswith(f"{port} ")]
    # It did knock, with every guess, on the experiments and the traces: and was refused every time.
    assert {(who, path) for _, who, path, _ in calls} >= {
        (who, path)
        for who in ("anonymous", "bearer", "admin:password1234")
        for path in ("/api/2.0/mlflow/experiments/search", "/api/3.0/mlflow/traces/search")
    }, calls
    assert {status for *_, status in calls} == {"401"}, calls
    for part, canary in logged.items():
        assert canary not in answer, f"the logged run's {part} reached the cheater"


def test_the_digests_cover_the_gate_overrides_and_the_selection(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    brain = brains("v1")
    variants = {
        "base": replay_spec(brain),
        "lenient": replay_spec(brain, gate={"minScore": 0.5, "thresholds": {"quality": 3.0}}),
        "fewer": replay_spec(brain, tickets={"ids": ["T-001", "T-002"]}),
    }
    for name, spec in variants.items():
        admin.create(support.evaluations_path(namespace), evaluation(name, spec))
    inputs = {
        name: support.wait_for_verdict(admin, namespace, name, operator=operator)["status"]["inputs"]
        for name in variants
    }
    assert inputs["lenient"]["judgesDigest"] != inputs["base"]["judgesDigest"]
    assert inputs["lenient"]["ticketsDigest"] == inputs["base"]["ticketsDigest"]
    assert inputs["fewer"]["ticketsDigest"] != inputs["base"]["ticketsDigest"]
    assert inputs["fewer"]["judgesDigest"] == inputs["base"]["judgesDigest"]
    assert len({i["suiteDigest"] for i in inputs.values()}) == 1  # the same suite throughout


def test_a_summary_naming_a_foreign_brain_blocks(
    admin: KubeApi, namespace: str, operators: StartOperator, brains: Callable[[str], str]
) -> None:
    operator = operators(namespace, image=support.images().fake_runner)
    brain = brains("v1")
    admin.create(support.evaluations_path(namespace), evaluation("foreign-brain", replay_spec(brain)))
    admin.create(support.evaluations_path(namespace), evaluation("bound", replay_spec(brain)))
    foreign = support.wait_for_verdict(admin, namespace, "foreign-brain", operator=operator)
    bound = support.wait_for_verdict(admin, namespace, "bound", operator=operator)
    assert bound["status"]["verdict"] == "Pass"  # the same canned summary, bound to the mounted brain
    assert foreign["status"]["verdict"] == "Blocked"
    stalled = support.condition(foreign, "Stalled")
    assert stalled is not None and stalled["reason"] == "ResultUnreadable"
    assert "brain digest sha256:0000" in stalled["message"] and "not the snapshot's" in stalled["message"]


@pytest.mark.usefixtures("node_without_landlock")
def test_a_token_hunter_in_the_answer_phase_finds_no_gateway_token(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    kubelet: LocalKubelet,
    agents_in_image: Path,
) -> None:
    """The gateway's token is a Secret mounted into the gateway sidecar alone. A token hunter in the answer
    container (tests/support/agents/token_hunter.py) looks through every environment, command line, memory
    and file it can read and at every socket and listener: no token. The sidecar's socket refuses it
    (the runner's key, in memory it cannot read, is not to be found either), the gateway refuses what it
    sends straight there, and the judge blocks the run on the refused attempts, naming them."""
    token = f"gw-{secrets.token_urlsafe(24)}"
    control = f"control-{secrets.token_urlsafe(16)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    suite_cm, kb_cm = canary_suite({part: f"unused{part}" for part in ("notes", "fact", "forbidden")}, "hunt")
    kb_cm["data"]["KB-2.md"] = f"# KB-2\nremember {control}\n"  # what the agent may read: the hunt's control
    for config_map in (suite_cm, kb_cm):
        admin.create(support.config_maps_path(namespace), config_map)
    digests = {"token": token, "control": control}
    hunter = ["python", str(agents_in_image / "token_hunter.py"), "25"]
    hunter += [f"{name}={hashlib.sha256(value.encode()).hexdigest()}" for name, value in digests.items()]
    with ChatServer(lambda _body: Reply(content=GOOD_ANSWER), token=token) as gateway:
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"configMap": {"name": "hunt-suite"}, "kbConfigMap": {"name": "hunt-kb"}},
            "agent": {"kind": "command", "model": "m", "command": hunter, "timeoutSeconds": 300},
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        admin.create(support.evaluations_path(namespace), evaluation("hunter", spec))
        done = support.wait_for_verdict(admin, namespace, "hunter", operator=operator, timeout=420)
        served, rejected = len(gateway.requests), gateway.rejected
    assert done["status"]["verdict"] == "Blocked", done["status"]
    (pod,) = support.pods_of_job(admin, namespace, support.answer_job("hunter"))
    assert [c["name"] for c in pod["spec"]["initContainers"]] == ["evidence", "gateway"]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["answer"]
    kept = support.claim_path(admin, namespace, "hunter-g1-answers")
    answer = (kept / "shard-0" / "T-1" / "1" / "answer.md").read_text()
    report = dict(line.split(": ", 1) for line in answer.splitlines() if ": " in line)
    memory_line = next(line for line in answer.splitlines() if line.startswith("memory read"))
    memory = dict(part.split(": ", 1) for part in memory_line.split("; ")[:3])
    assert report["token"] == "not found", answer
    assert report["control"].startswith("found in "), answer  # its search reached what it may read
    assert memory["memory control"] == "found" and memory["ancestors' memory"] == "unreadable", answer
    socket = "/var/run/assay/gateway/gateway.sock"
    assert socket in report["sockets"].split(), answer
    direct = [entry for entry in report["direct"].split() if entry.startswith(f"unix:{socket}")]
    assert direct and all(entry.endswith(("->403", "->409")) for entry in direct), direct
    assert report["honest"] == "200", answer  # through its cell's proxy, the sidecar, to the gateway
    assert served == 1 and rejected >= 1  # the honest call; what it sent the gateway straight was refused
    result = json.loads((kept / "result" / "result.json").read_text())
    error = result["tickets"][0]["repetitions"][0]["error"] or ""
    assert "around its cell's proxy" in error and "without the runner's key" in error, error
    assert result["tickets"][0]["repetitions"][0]["isolation"]["landlockAbi"] == 0
    # The sidecar ended with the pod, and its ledger (on the claim, out of the answer container's reach:
    # it mounts shard-0/ alone) says what it saw, for the pod it names.
    ledger = json.loads((kept / "ledgers" / "shard-0" / "ledger.json").read_text())
    assert ledger["pod"] == pod["metadata"]["uid"] and ledger["setAside"] == []
    assert ledger["claimed"] and ledger["refused"]["count"] >= len(direct)
    assert ledger["cells"]["T-1/1"]["requests"] == 1


SOCKET_GRAB = """
import os, socket, sys
path = "/var/run/assay/gateway/gateway.sock"
tried = []
for name, attempt in (
    ("rename", lambda: os.rename(path, path + ".aside")),
    ("unlink", lambda: os.unlink(path)),
    ("bind", lambda: socket.socket(socket.AF_UNIX).bind(path + ".mine")),
):
    try:
        attempt()
        tried.append(name + ": done")
    except OSError as exc:
        tried.append(name + ": " + (os.strerror(exc.errno) if exc.errno else str(exc)))
client = socket.socket(socket.AF_UNIX)
try:
    client.connect(path)
    tried.append("connect: done")
except OSError as exc:
    tried.append("connect: " + str(exc))
open(sys.argv[1], "w").write(GOOD + "\\n" + "\\n".join(tried) + "\\n")
"""
"""An agent that tries to replace the gateway sidecar's socket (rename it aside, remove it, bind its own
beside it), then connects to it as the runner does. No braces: the command's placeholders."""


@pytest.mark.usefixtures("node_without_landlock")
def test_no_cell_can_replace_the_gateway_sidecars_socket(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    """The socket's folder is mounted read-only in the answer container: a cell can connect to the sidecar
    (as the runner does) but cannot rename the socket aside, remove it or bind one of its own there, so it
    cannot listen at its path, relay the other cells' calls or take the runner's key."""
    token = f"gw-{secrets.token_urlsafe(24)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    suite_cm, kb_cm = canary_suite({part: f"unused{part}" for part in ("notes", "fact", "forbidden")}, "grab")
    for config_map in (suite_cm, kb_cm):
        admin.create(support.config_maps_path(namespace), config_map)
    grab = ["python", "-c", SOCKET_GRAB.replace("GOOD", repr(GOOD_ANSWER)), "{answer_file}"]
    with ChatServer(lambda _body: Reply(content=GOOD_ANSWER), token=token) as gateway:
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"configMap": {"name": "grab-suite"}, "kbConfigMap": {"name": "grab-kb"}},
            "agent": {"kind": "command", "model": "m", "command": grab, "timeoutSeconds": 120},
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        admin.create(support.evaluations_path(namespace), evaluation("grab", spec))
        support.wait_for_verdict(admin, namespace, "grab", operator=operator, timeout=420)
    (pod,) = support.pods_of_job(admin, namespace, support.answer_job("grab"))
    (answer_container,) = pod["spec"]["containers"]
    mounts = {m["name"]: m for m in answer_container["volumeMounts"]}
    assert mounts["gateway-socket"].get("readOnly") is True
    kept = support.claim_path(admin, namespace, "grab-g1-answers")
    answer = (kept / "shard-0" / "T-1" / "1" / "answer.md").read_text()
    report = dict(line.split(": ", 1) for line in answer.splitlines() if ": " in line)
    assert report["rename"] == report["unlink"] == report["bind"] == "Read-only file system", answer
    assert report["connect"] == "done", answer


SANDBOX_PROBE = """
import json, os, socket, sys
from urllib.parse import urlsplit
sock_path, gateway_port = sys.argv[1], int(sys.argv[2])
def attempt(action):
    try:
        return "done: " + str(action())[:80]
    except OSError as exc:
        return "refused: " + (os.strerror(exc.errno) if exc.errno else str(exc))
def connect_tcp(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10):
        return port
def connect_unix():
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(sock_path)
own = urlsplit(os.environ["ASSAY_GATEWAY_URL"]).port
report = dict([
    ("evidence key", attempt(lambda: open(EVIDENCE_KEY).read())),
    ("workspaces", attempt(lambda: os.listdir(".."))),
    ("rename socket", attempt(lambda: os.rename(sock_path, sock_path + ".aside"))),
    ("replace socket", attempt(lambda: os.replace(os.path.abspath("prompt.md"), sock_path))),
    ("connect socket", attempt(connect_unix)),
    ("connect gateway port", attempt(lambda: connect_tcp(gateway_port))),
    ("connect own proxy", attempt(lambda: connect_tcp(own))),
])
open("answer.md", "w").write(GOOD)
print("probe " + json.dumps(report), file=sys.stderr)
"""
"""An agent that tries each way out of its cell an answer pod offers (issue 36): the evidence key (the
claim's .evidence/key, mounted read-only in the answer container), the other cells' workspaces, the gateway
sidecar's socket (rename or replace it, connect to it) and a TCP port other than its proxy's (the
gateway's own), then answers honestly and prints what the kernel did to its stderr (the transcript).
No braces: the command's placeholders."""


def test_the_sandbox_holds_inside_a_restricted_answer_pod(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    """Inside the local kubelet's answer pod (no capability, RuntimeDefault seccomp, read-only root) each
    cell's agent runs in its own Landlock domain with Unix sockets refused: the evidence key, the other
    cells' workspaces, the sidecar's socket and the gateway's port are refused, its own proxy's port is
    not; each cell's `isolation` says which ABI held; the run's verdict is its honest answers' own."""
    token = f"gw-{secrets.token_urlsafe(24)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    canaries = {
        "notes": "opening Settings > Export",
        "fact": "Settings > Export",
        "forbidden": "unusedforbid",
    }
    suite_cm, kb_cm = canary_suite(canaries, "fence")
    suite = json.loads(suite_cm["data"]["suite.yaml"])
    second = {**suite["tickets"][0], "id": "T-2", "question": "Where is export?"}
    suite["tickets"].append(second)
    suite_cm["data"]["suite.yaml"] = json.dumps(suite, indent=2)
    for config_map in (suite_cm, kb_cm):
        admin.create(support.config_maps_path(namespace), config_map)
    good = (
        "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n"
        "## Next\nReply if anything is unclear.\n"
    )
    with ChatServer(lambda _body: Reply(content=good), token=token) as gateway:
        code = SANDBOX_PROBE.replace("GOOD", repr(good)).replace("EVIDENCE_KEY", repr(EVIDENCE_KEY_FILE))
        port = str(urlsplit(gateway.url).port)
        probe = ["python", "-c", code, "/var/run/assay/gateway/gateway.sock", port]
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"configMap": {"name": "fence-suite"}, "kbConfigMap": {"name": "fence-kb"}},
            "agent": {"kind": "command", "model": "m", "command": probe, "timeoutSeconds": 120},
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "concurrency": 2,
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        admin.create(support.evaluations_path(namespace), evaluation("fence", spec))
        done = support.wait_for_verdict(admin, namespace, "fence", operator=operator, timeout=420)
    kept = support.claim_path(admin, namespace, "fence-g1-answers")
    result = json.loads((kept / "result" / "result.json").read_text())
    for ticket in result["tickets"]:
        cell = ticket["repetitions"][0]
        isolation = cell["isolation"]
        assert isolation["landlockAbi"] >= 6 and isolation["filesystem"] and isolation["network"], isolation
        assert isolation["scoped"] and isolation["unixSocketsRefused"], isolation
        transcript = (kept / "shard-0" / ticket["id"] / "1" / "transcript").read_text()
        lines = [x for x in transcript.splitlines() if x.startswith("probe ")]
        assert lines, transcript
        line = lines[0]
        report = json.loads(line.removeprefix("probe "))
        refused = {name: what for name, what in report.items() if what.startswith("refused: ")}
        assert set(refused) == set(report) - {"connect own proxy"}, report
        assert report["connect own proxy"].startswith("done"), report
        assert refused["connect gateway port"] == "refused: Permission denied", report  # Landlock's TCP rule
        assert refused["connect socket"] == "refused: Permission denied", (
            report
        )  # the seccomp filter (EACCES)
    assert done["status"]["verdict"] == result["verdict"] == "Pass", done["status"]["message"]
