"""Answers in shards, on the real control plane: the answer Job's pods each answer their shard onto the
generation's volume (made by the real local-path provisioner), then one judge pod judges them all.

- The same recorded answers in four shards or in one give the same verdict, score, judge means and digests:
  one judge reads them, so the verdict cannot depend on how the answers were cut.
- A shard's pod killed mid-run is retried alone (the other shards' pods run once); a shard whose pod fails
  on every attempt fails for good, and the verdict blocks on its cells, naming it and why.
- Behind gateway sidecars, each shard's spend is metered by its own pod, and a killed pod's spend is still
  in the result: the result's usage is the gateway's own count.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import ControlPlane, KubeApi, LocalKubelet
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import Obj, OperatorProcess, replay_spec
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_runner.gateway.metering.sidecar_ledger import read_ledger

pytestmark = pytest.mark.cluster

INDEX = "batch.kubernetes.io/job-completion-index"


def pods_by_index(admin: KubeApi, namespace: str, job: str) -> dict[int, list[Obj]]:
    found: dict[int, list[Obj]] = {}
    for pod in support.pods_of_job(admin, namespace, job):
        found.setdefault(int(pod["metadata"]["annotations"][INDEX]), []).append(pod)
    return found


def test_four_shards_give_the_one_pod_verdict_on_the_same_answers(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    brain = brains("v1")
    # The recorded answers of every ticket, given by a command agent for each repetition (the replay agent
    # reads one folder per repetition, which the bundled v1 answers do not have).
    agent = support.slow_agent(0)
    one = replay_spec(brain, agent=agent, repetitions=2)
    # Four pods, on a ReadWriteMany claim (what lets shards spread over nodes where the class allows it).
    four = replay_spec(
        brain, agent=agent, repetitions=2, parallelism=4, storage={"accessMode": "ReadWriteMany"}
    )
    support.create_evaluation(admin, namespace, "one-pod", one)
    support.create_evaluation(admin, namespace, "four-pods", four)
    single = support.wait_for_verdict(admin, namespace, "one-pod", operator=operator, timeout=240)
    sharded = support.wait_for_verdict(admin, namespace, "four-pods", operator=operator, timeout=240)

    single, sharded = single["status"], sharded["status"]
    for field in ("verdict", "score", "judges", "judgesPassing", "tickets", "repetitions", "rules"):
        assert sharded[field] == single[field], field
    digests = ("brainDigest", "suiteDigest", "judgesDigest", "ticketsDigest", "publicDigest", "keyDigest")
    for digest in digests:
        assert sharded["inputs"].get(digest) == single["inputs"].get(digest), digest
    assert single["verdict"] == "Pass" and single["inputs"]["judgesDigest"]
    # Each verdict is bound to the answers it read: one tree, or four sealed shards.
    assert sharded["inputs"]["answersDigest"] and single["inputs"]["answersDigest"]
    assert sharded["inputs"]["answersDigest"] != single["inputs"]["answersDigest"]

    assert sharded["answer"]["shardsSummary"] == "4/4" and sharded["answer"]["cellsSummary"] == "32/32"
    assert single["answer"]["shardsSummary"] == "1/1" and single["answer"]["cellsSummary"] == "32/32"
    by_index = pods_by_index(admin, namespace, "four-pods-g1-answer")
    assert sorted(by_index) == [0, 1, 2, 3] and all(len(pods) == 1 for pods in by_index.values())
    claim = admin.get(f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/four-pods-g1-answers")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    kept = support.claim_path(admin, namespace, "four-pods-g1-answers")
    shards = ["shard-0", "shard-1", "shard-2", "shard-3"]
    assert sorted(p.name for p in kept.iterdir()) == [".evidence", "result", *shards]  # one key, four shards
    assert [p.name for p in (kept / ".evidence").iterdir()] == ["key"]
    # Repetition-major, round-robin: eight cells per shard, every ticket's first repetition in the first half.
    assert all(len(list((kept / f"shard-{i}").glob("*/*/cell.json"))) == 8 for i in range(4))


def test_a_killed_shard_is_retried_alone_and_one_that_always_fails_blocks_with_its_reason(
    control_plane: ControlPlane,
    admin: KubeApi,
    kubelet: LocalKubelet,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    """Three shards of a slow agent: shard 0's pod is killed once (retried alone, it then answers), shard
    1's on each of its attempts (backoffLimitPerIndex 1: it fails for good), shard 2's never."""
    spec = replay_spec(brains("v1"), agent=support.slow_agent(1.5), concurrency=1, parallelism=3)
    job = support.answer_job("shards")
    with support.recording(control_plane, support.evaluations_path(namespace)) as watch:
        support.create_evaluation(admin, namespace, "shards", spec)
        killed: list[str] = []

        def kill_a_running_pod(index: int) -> str:
            def running() -> str | None:
                for pod in pods_by_index(admin, namespace, job).get(index, []):
                    name = str(pod["metadata"]["name"])
                    statuses = (pod.get("status") or {}).get("containerStatuses") or []
                    if name not in killed and any("running" in s["state"] for s in statuses):
                        return name
                return None

            name = wait_until(running, timeout=120, what=f"a running pod of shard {index}")
            kubelet.oom_kill(namespace, name, "answer")
            killed.append(name)
            return name

        kill_a_running_pod(0)
        kill_a_running_pod(1)
        kill_a_running_pod(1)  # its retry, too: no attempt left
        done = support.wait_for_verdict(admin, namespace, "shards", operator=operator, timeout=300)
        history = watch.versions("shards")

    status = done["status"]
    assert status["verdict"] == "Blocked"
    answer = status["answer"]
    assert (answer["shards"], answer["shardsSucceeded"], answer["shardsFailed"]) == (3, 2, 1)
    assert answer["shardsSummary"] == "2/3 (1 failed)"
    (failed,) = answer["failed"]
    assert failed["index"] == 1
    assert failed["reason"].startswith("its pod failed 2 times; the last: the answer container was OOMKilled")
    # The verdict names it: every cell of shard 1 blocks with the reason (the `complete` rule).
    complete = next(r for r in status["rules"] if r["name"] == "complete")
    assert not complete["passed"] and "answer shard 1 failed: its pod failed 2 times" in complete["detail"]
    # 16 cells in 3 shards: 6, 5, 5. Shards 0 and 2 answered theirs; shard 1's five are the missing ones.
    assert answer["cellsSummary"] == "11/16"
    assert status["tickets"]["total"] == 16 and len(status["tickets"]["failing"]) > 0

    # Retried alone: shard 0 ran twice, shard 1 twice (both failed), shard 2 once.
    by_index = pods_by_index(admin, namespace, job)
    phases = {i: sorted(p["status"]["phase"] for p in pods) for i, pods in by_index.items()}
    assert phases == {0: ["Failed", "Succeeded"], 1: ["Failed", "Failed"], 2: ["Succeeded"]}, phases
    answer_job = admin.get(support.jobs_path(namespace, job))["status"]
    assert answer_job["completedIndexes"] == "0,2" and answer_job["failedIndexes"] == "1"
    # The judge ran once, on what the two shards answered.
    judge_pods = support.pods_of_job(admin, namespace, "shards-g1")
    assert [p["status"]["phase"] for p in judge_pods] == ["Succeeded"]

    # The status followed the shards as they finished, before the judge Job was made.
    def answered(obj: Obj) -> Any:
        return ((obj.get("status") or {}).get("answer") or {}).get("shardsSucceeded")

    progress = [answered(o) for o in history if (o.get("status") or {}).get("observedGeneration") == 1]
    assert 1 in progress, progress


METERED_SUITE = {
    "name": "metered",
    "judges": [
        {"name": "kb", "type": "kb_citation", "weight": 0.4, "threshold": 0.9},
        {"name": "facts", "type": "must_mention", "weight": 0.4, "threshold": 0.9},
        {"name": "format", "type": "format", "weight": 0.2, "threshold": 0.8},
    ],
    "gate": {"minScore": 0.9, "ticketFloor": 0.7},
    "tickets": [
        {
            "id": f"T-{i}",
            "split": "validation",
            "question": f"How do I export notebook {i}?",
            "key": {"kb": ["KB-1"], "mustMention": ["Settings > Export"]},
        }
        for i in range(1, 7)
    ],
}
METERED_ANSWER = (
    "## Summary\nExport from the app; see [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n## Next\nDone.\n"
)


def metered_suite_and_token(admin: KubeApi, namespace: str) -> str:
    """The metered suite and its KB as ConfigMaps, and a gateway token in Secret `gateway`: the token."""
    token = f"gw-{secrets.token_hex(12)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    for name, data in (
        ("metered-suite", {"suite.yaml": json.dumps(METERED_SUITE)}),
        ("metered-kb", {"KB-1.md": "# KB-1: Export\nOpen Settings > Export.\n"}),
    ):
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
        admin.create(support.config_maps_path(namespace), config_map)
    return token


def test_sharded_answers_behind_gateway_sidecars_are_metered_to_the_gateways_own_count(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    """Two answer pods, each with its own gateway sidecar holding the token: each shard's sidecar keeps the
    ledger of its own pod's cells, the judge reconciles both with the sealed cells, and the usage in the
    result is what the gateway itself billed — no call lost or counted twice across the shards."""
    token = metered_suite_and_token(admin, namespace)
    billed = Reply(content=METERED_ANSWER, prompt_tokens=120, completion_tokens=30)
    with ChatServer(lambda _body: billed, token=token) as gateway:
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"configMap": {"name": "metered-suite"}, "kbConfigMap": {"name": "metered-kb"}},
            "agent": {"kind": "chat", "model": "agent-m"},
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "parallelism": 2,
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        support.create_evaluation(admin, namespace, "metered", spec)
        done = support.wait_for_verdict(admin, namespace, "metered", operator=operator, timeout=300)
        served, rejected = len(gateway.requests), gateway.rejected
        authorizations = {headers.get("authorization") for headers in gateway.headers}

    status = done["status"]
    assert status["verdict"] == "Pass", status
    assert status["answer"]["shardsSummary"] == "2/2" and status["answer"]["cellsSummary"] == "6/6"
    assert served >= 6 and rejected == 0 and authorizations == {f"Bearer {token}"}
    by_index = pods_by_index(admin, namespace, support.answer_job("metered"))
    assert sorted(by_index) == [0, 1]
    kept = support.claim_path(admin, namespace, "metered-g1-answers")
    ledgers = {i: json.loads((kept / "ledgers" / f"shard-{i}" / "ledger.json").read_text()) for i in (0, 1)}
    cells: dict[str, int] = {}
    for index, ledger in ledgers.items():
        (pod,) = by_index[index]
        assert [c["name"] for c in pod["spec"]["initContainers"]] == ["evidence", "gateway"]
        assert ledger["pod"] == pod["metadata"]["uid"] and ledger["setAside"] == []
        assert ledger["claimed"] and ledger["refused"]["count"] == 0
        mine = {cell: entry["requests"] for cell, entry in ledger["cells"].items()}
        assert mine and not set(mine) & set(cells), (index, mine, cells)  # each cell metered by one pod
        cells.update(mine)
    assert sorted(cells) == [f"T-{i}/1" for i in range(1, 7)] and sum(cells.values()) == served
    result = json.loads((kept / "result" / "result.json").read_text())
    assert (result["usage"]["inputTokens"], result["usage"]["outputTokens"]) == (120 * served, 30 * served)


CALL_ONCE_THEN_ANSWER = f"""
import json, os, sys, time, urllib.request
call = dict(model="agent-m", messages=[dict(role="user", content="hi")])
request = urllib.request.Request(
    os.environ["ASSAY_GATEWAY_URL"].rstrip("/") + "/chat/completions", data=json.dumps(call).encode()
)
request.add_header("Content-Type", "application/json")
request.add_header("Authorization", "Bearer " + os.environ.get("ASSAY_PROXY_KEY", ""))  # its credential
reply = json.loads(urllib.request.urlopen(request, timeout=60).read())
if sys.argv[2] == "T-1" and reply["choices"][0]["message"]["content"] == "hold":
    time.sleep(600)
open(sys.argv[1], "w").write({METERED_ANSWER!r})
"""
"""A program agent: one model call (through its cell's proxy, then the sidecar), then a good answer; on T-1
(shard 0's first cell) it holds while the gateway says `hold`, so its pod can be killed with that call
settled and nothing sealed, however slow the machine is."""


def test_a_killed_shards_earlier_spend_is_in_the_result_and_the_result_is_the_gateways_count(
    admin: KubeApi,
    kubelet: LocalKubelet,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    """Shard 0's first pod is killed once its first call (T-1's, held) is on its sidecar's ledger, before it
    sealed any cell. Its retry answers every cell of the shard; what the first pod spent was billed all the
    same, and the result's usage is still the gateway's own count."""
    token = metered_suite_and_token(admin, namespace)
    hold = {"content": "hold"}
    agent = {
        "kind": "command",
        "model": "agent-m",
        "command": ["python3", "-c", CALL_ONCE_THEN_ANSWER, "{answer_file}", "{ticket_id}"],
        "timeoutSeconds": 120,
    }
    job = support.answer_job("retried")
    with metered_gateway(token, lambda: hold["content"]) as gateway:
        spec = {
            "brain": {"configMap": {"name": brains("v1")}},
            "suite": {"configMap": {"name": "metered-suite"}, "kbConfigMap": {"name": "metered-kb"}},
            "agent": agent,
            "gateway": gateway.url,
            "gatewayTokenSecretRef": {"name": "gateway"},
            "parallelism": 2,
            "concurrency": 1,
            "resources": dict(support.SMALL),
            "deadlineSeconds": 600,
        }
        support.create_evaluation(admin, namespace, "retried", spec)

        def first_call_settled() -> str | None:
            try:
                journal = support.claim_path(admin, namespace, "retried-g1-answers") / "ledgers" / "shard-0"
                lines = (journal / "ledger.jsonl").read_text().splitlines()
            except Exception:  # the claim is not bound yet, the sidecar has not started its journal
                return None
            counts = [json.loads(line)["count"] for line in lines if line.strip()]
            if not any(c.get("requests") for c in counts) or counts[-1].get("inFlight"):
                return None
            (pod,) = pods_by_index(admin, namespace, job)[0]
            return str(pod["metadata"]["name"])

        first = wait_until(first_call_settled, timeout=180, what="shard 0's first call on its ledger")
        hold["content"] = "fine"  # the retry's T-1 answers
        kubelet.oom_kill(namespace, first, "answer")
        done = support.wait_for_verdict(admin, namespace, "retried", operator=operator, timeout=300)
        served = len(gateway.requests)

    status = done["status"]
    assert status["verdict"] == "Pass", status.get("reasons")
    by_index = pods_by_index(admin, namespace, job)
    phases = {i: sorted(p["status"]["phase"] for p in pods) for i, pods in by_index.items()}
    assert phases == {0: ["Failed", "Succeeded"], 1: ["Succeeded"]}, phases
    kept = support.claim_path(admin, namespace, "retried-g1-answers")
    shard0 = kept / "ledgers" / "shard-0"
    (earlier_file,) = [p.name for p in shard0.glob("ledger-*.json")]
    ledgers = [read_ledger(shard0 / "ledger.json"), read_ledger(shard0 / earlier_file)]
    ledgers.append(read_ledger(kept / "ledgers" / "shard-1" / "ledger.json"))
    assert ledgers[0].set_aside == [earlier_file] and ledgers[1].pod != ledgers[0].pod
    counts = [count for ledger in ledgers for count in ledger.cells.values()]
    settled = sum(c.requests for c in counts)
    unknown = sum(c.in_flight + c.lost for c in counts)
    assert ledgers[1].cells and settled + unknown == served  # every call the gateway served is on a ledger
    assert served > 6  # the killed pod's call(s), then one per cell
    result = json.loads((kept / "result" / "result.json").read_text())
    usage = (result["usage"]["inputTokens"], result["usage"]["outputTokens"])
    assert usage == (120 * settled, 30 * settled)
    assert any("answer shard 0 was retried: 1 earlier attempt(s)" in w for w in result["warnings"])
    manifest = json.loads((kept / "shard-0" / "answers.json").read_text())
    assert set(manifest["answeredBy"].values()) == {ledgers[0].pod}


HOLD_ON_T3 = f"""
import json, os, sys, time, urllib.request
call = dict(model="agent-m", messages=[dict(role="user", content="hi")])
request = urllib.request.Request(
    os.environ["ASSAY_GATEWAY_URL"].rstrip("/") + "/chat/completions", data=json.dumps(call).encode()
)
request.add_header("Content-Type", "application/json")
request.add_header("Authorization", "Bearer " + os.environ.get("ASSAY_PROXY_KEY", ""))  # its credential
reply = json.loads(urllib.request.urlopen(request, timeout=60).read())
if sys.argv[2] == "T-3" and reply["choices"][0]["message"]["content"] == "hold":
    time.sleep(600)
open(sys.argv[1], "w").write({METERED_ANSWER!r})
"""
"""A program agent: one model call, then a good answer; on T-3 (shard 0's second cell) it holds while the
gateway says `hold`, so its pod can be deleted with a cell sealed and one cut off, both calls settled."""
PRICE = {"agent-m": {"inputPerMillion": 1000.0, "outputPerMillion": 2000.0}}
CALL_COST = (120 * 1000.0 + 30 * 2000.0) / 1e6  # $0.18 a call at the test's prices


def holding_spec(brain: str, url: str, **fields: Any) -> Obj:
    """Two shards of the metered suite, answered one cell at a time by HOLD_ON_T3 through gateway `url` at
    PRICE; `fields` added or instead."""
    agent = {
        "kind": "command",
        "model": "agent-m",
        "command": ["python3", "-c", HOLD_ON_T3, "{answer_file}", "{ticket_id}"],
        "timeoutSeconds": 300,
    }
    return {
        "brain": {"configMap": {"name": brain}},
        "suite": {"configMap": {"name": "metered-suite"}, "kbConfigMap": {"name": "metered-kb"}},
        "agent": agent,
        "gateway": url,
        "gatewayTokenSecretRef": {"name": "gateway"},
        "prices": PRICE,
        "parallelism": 2,
        "concurrency": 1,
        "resources": dict(support.SMALL),
        "deadlineSeconds": 600,
        **fields,
    }


def metered_gateway(token: str, content: Callable[[], str]) -> ChatServer:
    """The gateway (needing `token`): every call 120 tokens in and 30 out (CALL_COST), saying `content()`."""
    return ChatServer(
        lambda _body: Reply(content=content(), prompt_tokens=120, completion_tokens=30), token=token
    )


def t1_sealed_and_t3_settled(admin: KubeApi, namespace: str, evaluation: str) -> bool:
    """Whether shard 0 of `evaluation` has recorded T-1 and T-3's call settled (the agent holds, no call in
    flight)."""
    try:
        claim = support.claim_path(admin, namespace, f"{evaluation}-g1-answers")
        lines = (claim / "ledgers" / "shard-0" / "ledger.jsonl").read_text().splitlines()
        recorded = (claim / "shard-0" / "T-1" / "1" / "cell.json").is_file()
    except Exception:  # the claim is not bound yet, the sidecar has not started its journal
        return False
    entries = [json.loads(line) for line in lines if line.strip()]
    t3 = [e["count"] for e in entries if e["cell"] == "T-3/1"]
    return recorded and bool(t3) and bool(t3[-1].get("requests")) and not t3[-1].get("inFlight")


def assert_the_calm_verdict(status: Obj, calm_status: Obj) -> None:
    # Why, in full: the dict itself is cut short in pytest's message (a cold run blocked it once, 4/6 cells).
    def why(of: Obj) -> str:
        kept = {key: of.get(key) for key in ("message", "conditions", "answer", "shards")}
        return json.dumps(kept, indent=1, default=str)

    assert calm_status["verdict"] == "Pass", why(calm_status)
    assert (status["verdict"], status["score"], status["judges"]) == (
        calm_status["verdict"],
        calm_status["score"],
        calm_status["judges"],
    ), why(status)


def retried_once(admin: KubeApi, namespace: str, job: str) -> Obj:
    """Both shards succeeded, shard 0 on the one retry left of it: that retry's pod."""
    by_index = pods_by_index(admin, namespace, job)
    phases = {i: [p["status"]["phase"] for p in attempts] for i, attempts in by_index.items()}
    assert phases == {0: ["Succeeded"], 1: ["Succeeded"]}, phases
    (retry,) = by_index[0]
    return retry


def answered_by(claim: Path, first: Obj, retry: Obj) -> dict[str, str]:
    """Which pod answered each of shard 0's cells (its answers' manifest): `first` or `retry`."""
    manifest = json.loads((claim / "shard-0" / "answers.json").read_text())
    by_pod = {first["metadata"]["uid"]: "first", retry["metadata"]["uid"]: "retry"}
    return {cell: by_pod[uid] for cell, uid in manifest["answeredBy"].items()}


def assert_billed_as_served(
    result: Obj, status: Obj, calm_status: Obj, served: int, calm_served: int
) -> None:
    """The result's and the status's usage and cost are the gateway's count of calls (`served`; the calm
    run's, `calm_served`), and the result says shard 0 was retried."""
    usage = result["usage"]
    assert (usage["inputTokens"], usage["outputTokens"]) == (120 * served, 30 * served), usage
    assert usage["costUsd"] == pytest.approx(served * CALL_COST), usage
    assert status["usage"]["costUsd"] == pytest.approx(served * CALL_COST), status["usage"]
    assert calm_status["usage"]["costUsd"] == pytest.approx(calm_served * CALL_COST)
    assert any("answer shard 0 was retried: 1 earlier attempt(s)" in w for w in result["warnings"])


def end_pod(admin: KubeApi, namespace: str, name: str, how: str) -> None:
    """`delete`: what `kubectl delete pod` does; `evict`: what `kubectl drain` does, through the Eviction API
    (the apiserver marks the pod DisruptionTarget, then deletes it). Either way: SIGTERM, the grace period."""
    path = f"/api/v1/namespaces/{namespace}/pods/{name}"
    if how == "delete":
        admin.delete(path)
    else:
        eviction = {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": name, "namespace": namespace},
        }
        admin.create(f"{path}/eviction", eviction)


@pytest.mark.parametrize("how", ["delete", "evict"])
def test_an_answer_pod_ended_mid_run_is_an_interrupted_shard_retried_resumed_and_billed_once(
    how: str,
    control_plane: ControlPlane,
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
) -> None:
    """An answer pod deleted (`kubectl delete pod`) or evicted (`kubectl drain`) mid-run gets SIGTERM and its
    grace period: the runner records the cell it cut off, seals the tree and exits 143, so the Job retries
    the index (exit 0 counted it done, and the cut-off cells blocked the verdict). The retry resumes: the
    cell the first pod sealed is kept, not asked again; the cut-off one is answered anew. The verdict and
    score equal a calm run's beside it, and the result's usage and cost are what the gateway served: the
    sealed cell's call once, the cut-off cell's two calls (the first pod's, thrown away, and the retry's)
    both, as both were billed. An eviction is not counted against the backoff limit; a delete is."""
    token = metered_suite_and_token(admin, namespace)
    hold = {"content": "hold"}
    job = support.answer_job("deleted")
    with (
        metered_gateway(token, lambda: hold["content"]) as gateway,
        metered_gateway(token, lambda: "go") as calm_gateway,
        # The ended pod is removed once the Job controller counted it: its last version is in the watch.
        support.recording(control_plane, f"/api/v1/namespaces/{namespace}/pods") as pods,
    ):
        brain = brains("v1")
        support.create_evaluation(admin, namespace, "deleted", holding_spec(brain, gateway.url))
        support.create_evaluation(admin, namespace, "calm", holding_spec(brain, calm_gateway.url))

        def t1_sealed_and_t3_holding() -> str | None:
            """Shard 0's pod, once T-1 is recorded and T-3's call settled (the agent holds, no call in
            flight)."""
            if not t1_sealed_and_t3_settled(admin, namespace, "deleted"):
                return None
            (pod,) = pods_by_index(admin, namespace, job)[0]
            return str(pod["metadata"]["name"])

        first = wait_until(t1_sealed_and_t3_holding, timeout=240, what="shard 0 with T-1 sealed, T-3 held")
        hold["content"] = "go"  # the retry's T-3 answers
        end_pod(admin, namespace, first, how)
        done = support.wait_for_verdict(admin, namespace, "deleted", operator=operator, timeout=360)
        calm = support.wait_for_verdict(admin, namespace, "calm", operator=operator, timeout=360)
        served, calm_served = len(gateway.requests), len(calm_gateway.requests)

    status, calm_status = done["status"], calm["status"]
    assert_the_calm_verdict(status, calm_status)
    # The index was retried: the ended pod failed (exit 143), its retry succeeded; shard 1 ran once. An
    # evicted pod is DisruptionTarget (the podFailurePolicy ignores it); a deleted one is not (counted).
    deleted = pods.versions(first)[-1]
    assert deleted["status"]["phase"] == "Failed", deleted["status"]
    (answer_state,) = [s for s in deleted["status"]["containerStatuses"] if s["name"] == "answer"]
    assert answer_state["state"]["terminated"]["exitCode"] == 143, answer_state
    retry = retried_once(admin, namespace, job)
    assert retry["metadata"]["uid"] != deleted["metadata"]["uid"]
    job_status = support.job_status(admin, namespace, job)
    assert job_status.get("succeeded") == 2, job_status
    disrupted = [c for c in deleted["status"].get("conditions") or [] if c["type"] == "DisruptionTarget"]
    if how == "evict":
        assert disrupted and disrupted[0]["status"] == "True", deleted["status"]
        assert not job_status.get("failed"), job_status
    else:
        assert not disrupted and job_status.get("failed") == 1, job_status
    # Resumed: T-1 is the first pod's (kept, not asked again), T-3 and T-5 the retry's.
    shard0 = support.claim_path(admin, namespace, "deleted-g1-answers")
    cells = answered_by(shard0, deleted, retry)
    assert cells == {"T-1/1": "first", "T-3/1": "retry", "T-5/1": "retry"}, cells
    # Billed once each, the cut-off cell twice: 6 cells + the first pod's T-3 call; the calm run, 6.
    assert (served, calm_served) == (7, 6)
    result = json.loads((shard0 / "result" / "result.json").read_text())
    assert_billed_as_served(result, status, calm_status, served, calm_served)
