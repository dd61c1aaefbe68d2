"""Property: for random VALID specs (and random spec edits) the real operator never crashes (no traceback, no
kopf handler error in its log), every generation ends with a verdict (or, for a CLI preset the runner image
lacks, with Stalled and the reason AgentNotInImage), and no generation ever has two Jobs.

A handful of examples, given the cost (each is a real runner pod): hypothesis shrinks a failure to a small
spec. Not generated: `queueName` (a Kueue queue: the Job waits suspended for Kueue, which is not installed)
and `mlflow.trackingUri` (a tracking server is another test's business)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay_dev import operator_support as support
from assay_dev.cluster import ApiError, ControlPlane, KubeApi
from assay_dev.operator_support import Obj, OperatorProcess
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.settings import PRESET_KINDS

pytestmark = pytest.mark.cluster

TICKETS = [f"T-{i:03d}" for i in range(1, 17)]
JUDGES = ["kb_citation", "must_mention", "policy", "format", "quality", "abstention", "exit_code"]
COMMANDS = [
    ["sh", "-c", f"cp {support.ANSWERS_DIR}/v1/{{ticket_id}}/answer.md {{answer_file}}"],  # in the image
    ["sh", "-c", "echo 'I do not know.' > {answer_file}"],
    ["false"],
    ["sh", "-c", "printf %s {prompt_file} >/dev/null"],  # writes no answer
]
GATEWAY = "http://gateway.invalid/v1"
unit = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def agents(draw: st.DrawFn) -> Obj:
    kind = draw(st.sampled_from(["replay", "replay", "command", "chat", "opencode"]))
    agent: Obj = {"kind": kind}
    if kind == "replay":
        agent["answers"] = {"bundled": f"support-desk/answers/{draw(st.sampled_from(['v0', 'v1']))}"}
    else:
        agent["model"] = draw(st.sampled_from(["m", "gpt-small", "a/b:c"]))
    if kind == "command":
        agent["command"] = draw(st.sampled_from(COMMANDS))
    if draw(st.booleans()):
        agent["timeoutSeconds"] = draw(st.integers(1, 86400))
    return agent


@st.composite
def specs(draw: st.DrawFn) -> Obj:
    spec = support.replay_spec(draw(st.sampled_from(["brain-v0", "brain-v1"])))
    spec["agent"] = draw(agents())
    spec["repetitions"] = draw(st.integers(1, 3))
    spec["concurrency"] = draw(st.integers(1, 32))
    tickets = draw(
        st.one_of(
            st.none(),
            st.builds(lambda s: {"split": s}, st.sampled_from(["training", "validation", "all"])),
            st.builds(
                lambda ids: {"ids": ids},
                st.lists(st.sampled_from([*TICKETS, "T-999"]), min_size=1, max_size=5, unique=True),
            ),
        )
    )
    if tickets is not None:
        spec["tickets"] = tickets
    if draw(st.booleans()):
        gate: Obj = {}
        for key in ("minScore", "ticketFloor", "minPassHatK"):
            if draw(st.booleans()):
                gate[key] = draw(unit)
        if draw(st.booleans()):
            gate["requireMlflow"] = draw(st.booleans())
        if draw(st.booleans()):
            gate["thresholds"] = draw(
                st.dictionaries(st.sampled_from([*JUDGES, "nonexistent"]), unit, min_size=1, max_size=3)
            )
        spec["gate"] = gate
    if draw(st.booleans()):
        # Every quantity form (m, n, u, exponent, plain, int), each at least half a core: the runtime enforces
        # the limit as a CFS quota, and a runner held to 10m (1% of a core) takes half an hour.
        cpu = st.sampled_from(["750m", "500m", "1", "2.5", "1e1", "500000000n", "500000u", "64", 2])
        memory = st.sampled_from(["64Mi", "512Mi", "1Gi", "1e9", "2G", "256Gi", 1073741824])
        spec["resources"] = {"cpu": draw(cpu), "memory": draw(memory)}
    if draw(st.booleans()):
        spec["deadlineSeconds"] = draw(st.integers(60, 86400))
    if draw(st.booleans()):
        spec["gateway"] = GATEWAY  # replaced by the test's chat server
    if draw(st.booleans()):
        # Spaces inside a name, not only spaces: a blank experiment is invalid (refused at admission).
        spec["mlflow"] = {"experiment": draw(st.text("abc-_ ", min_size=1, max_size=20).filter(str.strip))}
    if draw(st.booleans()):
        del spec["cassettes"]
    return spec


names = st.one_of(
    st.from_regex(r"[a-z][a-z0-9-]{0,20}[a-z0-9]", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9-]{60,120}[a-z0-9]", fullmatch=True),  # longer than a Job name may be
)


@pytest.fixture
def watched(
    control_plane: ControlPlane, namespace: str, operator: OperatorProcess, admin: KubeApi
) -> Iterator[support.Recorder]:
    """Brains v0 and v1, and a recorder of every Job the examples make."""
    for version in ("v0", "v1"):
        brain = support.brain_config_map(f"brain-{version}", version)
        admin.create(support.config_maps_path(namespace), brain)
    with support.recording(control_plane, support.jobs_path(namespace)) as jobs:
        yield jobs


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    """A gateway that answers at once (an unreachable one makes the runner retry with backoff for minutes);
    the runner pods share the host's loopback."""
    with ChatServer(lambda _: Reply(content="I do not know; please contact support.")) as server:
        yield server.url


_serial = itertools.count()


def replace_spec(admin: KubeApi, namespace: str, name: str, spec: Obj) -> int:
    """PUT a whole new spec; re-read and retry on a conflict (the operator patches the status meanwhile)."""
    path = support.evaluations_path(namespace, name)
    for _ in range(10):
        current = admin.get(path)
        current["spec"] = spec
        try:
            updated = admin.request("PUT", path, body=current)
        except ApiError as error:
            if error.status != 409:
                raise
            continue
        return int(updated["metadata"]["generation"])
    raise AssertionError(f"could not replace the spec of {name}: conflicts every time")


@settings(
    max_examples=int(os.environ.get("ASSAY_PROPERTY_EXAMPLES", "8")),
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=names, first=specs(), edit=st.one_of(st.none(), specs()))
def test_random_valid_specs_never_crash_the_operator_nor_make_two_jobs(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    watched: support.Recorder,
    gateway: str,
    name: str,
    first: Obj,
    edit: Obj | None,
) -> None:
    # One operator serves every example (fixtures are per test, not per example): names are made unique.
    name = f"{name[:200]}-{next(_serial)}"
    for spec in (first, edit):
        if spec is not None:
            EvaluationSpec.model_validate(spec)  # valid for the operator's own model: must be admitted too
            if "gateway" in spec:
                spec["gateway"] = gateway
    support.create_evaluation(admin, namespace, name, first)
    generation = 1
    if edit is not None:  # a whole new spec (an update, as `kubectl apply` of another manifest would do)
        generation = replace_spec(admin, namespace, name, edit)
    final = edit if edit is not None else first
    if final["agent"]["kind"] in PRESET_KINDS:
        # The test's runner image lists no agent CLI (ASSAY_RUNNER_AGENT_PRESETS unset): no Job, a reason.
        stalled = support.wait_for_evaluation(
            admin,
            namespace,
            name,
            lambda o: (
                (o.get("status") or {}).get("observedGeneration") == generation
                and support.condition_status(o, "Stalled") == "True"
            ),
            timeout=180,
            operator=operator,
        )
        condition = support.condition(stalled, "Stalled")
        assert condition is not None and condition["reason"] == "AgentNotInImage"
    else:
        done = support.wait_for_verdict(
            admin, namespace, name, generation=generation, timeout=180, operator=operator
        )
        assert done["status"]["verdict"] in ("Pass", "Blocked")
    assert operator.problems() == []
    per_generation = support.jobs_per_generation(watched)
    assert all(len(uids) == 1 for uids in per_generation.values()), per_generation
