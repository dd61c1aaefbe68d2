"""Issue 36's attacks, made from inside a restricted answer pod on the local control plane (the REAL runner
and operator, the cells in their Landlock sandboxes under runc), each ending Blocked with the cell and the
reason named, while the honest cells are judged as usual. Three Evaluations, one ticket per attack:

- the attacks of one cell on the others and on what the pod holds (tests/support/agents/pod_attacks.py):
  the neighbour found through /proc, a symbolic and a hard link out of the workspace, a call on a
  neighbour's proxy URL and one with a made-up credential, and a zombie leader with a live thread, seen on
  the node while its cell runs and gone once the cell is recorded;
- the real Codex CLI (the runner-agents image) reading the KB through its shell: `head -c 0 kb/X.md`
  shows the model nothing and is no read (the trajectory judge blocks), `cat kb/*.md` shows it the
  articles and counts;
- the answers edited on the claim between the answer and the judge phase (a cell's answer swapped and its
  seal and the manifest's digest recomputed, as anyone without the evidence key could): the judge pod names
  the cell, and a rerun of the generation refuses to resume on that tree, naming it.

The socket the gateway sidecar listens on is shown out of every cell's reach in test_trust_boundary.py, the
daemon rewriting a timed-out cell in test_sealed_cells.py, a laundered result.json through `gate --verify`
there too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay_dev import operator_support as support
from assay_dev.cluster import KubeApi, LocalKubelet, PullFault
from assay_dev.cluster.wait import wait_until
from assay_dev.operator_support import OperatorProcess, evaluation
from assay_dev.servers.chat_server import ChatServer, Reply
from assay_dev.servers.model_server import ModelServer, Say, Script, Shell, WriteFile
from assay_operator.evaluation.build import names
from assay_runner.contract import Result
from tests.operator_cluster.conftest import StartOperator

pytestmark = pytest.mark.cluster

ATTACKER = f"{support.AGENTS_DIR}/pod_attacks.py"
GOOD = (
    "## Summary\nOpen Settings > Export [KB-1].\n\n## Steps\n1. Open Settings > Export.\n\n"
    "## Next\nReply if anything is unclear.\n"
)
BAD = "I do not know.\n"


class Board:
    """The test's model, and the board cells that act together talk through (pod_attacks.py): `board put
    KEY VALUE` keeps a value, `board get KEY` answers it ("" until it is there); anything else gets a good
    answer."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self._lock = threading.Lock()

    def reply(self, body: dict[str, Any]) -> Reply:
        text = str(body["messages"][-1]["content"])
        with self._lock:
            if text.startswith("board put "):
                _, _, key, value = text.split(" ", 3)
                self.values[key] = value
                return Reply(content="ok")
            if text.startswith("board get "):
                return Reply(content=self.values.get(text.split(" ", 2)[2], ""))
        return Reply(content=GOOD)

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self.values[key] = value


def config_maps(admin: KubeApi, namespace: str, name: str, tickets: list[str]) -> None:
    """A suite of `tickets` (each asks the same question; a good answer cites KB-1 and names the menu) and
    its KB, as ConfigMaps `<name>-suite` and `<name>-kb`."""
    suite = {
        "name": name,
        "judges": [
            {"name": "kb", "type": "kb_citation", "weight": 0.4, "threshold": 0.9},
            {"name": "facts", "type": "must_mention", "weight": 0.4, "threshold": 0.9},
            {"name": "policy", "type": "policy", "weight": 0.2, "threshold": 1.0, "forbidden": ["reinstall"]},
        ],
        "tickets": [
            {
                "id": ticket,
                "split": "validation",
                "question": "How do I export my notes?",
                "key": {"kb": ["KB-1"], "mustMention": ["Settings > Export"]},
            }
            for ticket in tickets
        ],
    }
    for suffix, data in (
        ("suite", {"suite.yaml": json.dumps(suite, indent=2)}),
        ("kb", {"KB-1.md": "# KB-1: Export\nOpen Settings > Export and pick a format.\n"}),
    ):
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-{suffix}"}}
        admin.create(support.config_maps_path(namespace), {**config_map, "data": data})


def attack_spec(
    brain: str, name: str, gateway: str, marker: str, tickets: int, **extra: Any
) -> dict[str, Any]:
    return {
        "brain": {"configMap": {"name": brain}},
        "suite": {"configMap": {"name": f"{name}-suite"}, "kbConfigMap": {"name": f"{name}-kb"}},
        "agent": {
            "kind": "command",
            "model": "m",
            "command": ["python", ATTACKER, "{ticket_id}", marker],
            "timeoutSeconds": 240,
        },
        "gateway": gateway,
        "concurrency": tickets,  # every cell at once: the ones that act together wait on each other
        "resources": dict(support.SMALL),
        "deadlineSeconds": 900,
        **extra,
    }


def reported(cell_dir: Path) -> dict[str, str]:
    """What an attacking agent said the kernel and the proxy did (its transcript's `attack {json}` line)."""
    transcript = (cell_dir / "transcript").read_text()
    lines = [line for line in transcript.splitlines() if line.startswith("attack ")]
    assert lines, transcript
    found: dict[str, str] = json.loads(lines[0].removeprefix("attack "))
    return found


def _state(stat: Path) -> str:
    return stat.read_text().rsplit(")", 1)[1].split()[0]


def node_tasks(*words: str) -> list[tuple[int, int, str, str]]:
    """Every live thread on this node whose command line holds all `words`: (thread group, thread, the
    group leader's state, the thread's). A thread group whose leader ended with the raw exit syscall shows
    an empty command line for its leader (a zombie, `Z`) and the real one for its threads that run on."""
    wanted = [word.encode() for word in words]
    found = []
    for pid in (entry for entry in os.listdir("/proc") if entry.isdigit()):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            task = Path(f"/proc/{pid}/task/{tid}")
            try:
                argv = (task / "cmdline").read_bytes().split(b"\0")
                if not all(word in argv for word in wanted):
                    continue
                found.append((int(pid), int(tid), _state(Path(f"/proc/{pid}/stat")), _state(task / "stat")))
            except (OSError, IndexError):
                continue
    return found


ATTACKS = [
    "T-honest",
    "T-victim",
    "T-proc",
    "T-lender",
    "T-cred",
    "T-forged",
    "T-symlink",
    "T-hardlink",
    "T-zombie",
]


def test_each_attack_from_a_cell_in_the_answer_pod_blocks_on_its_cell_with_the_reason(
    admin: KubeApi, namespace: str, operator: OperatorProcess, brains: Callable[[str], str]
) -> None:
    token = f"gw-{secrets.token_urlsafe(24)}"
    admin.create(f"/api/v1/namespaces/{namespace}/secrets", support.secret("gateway", "token", token))
    config_maps(admin, namespace, "attacks", ATTACKS)
    marker = f"attack-{secrets.token_hex(6)}"
    board = Board()
    with ChatServer(board.reply, token=token) as gateway:
        spec = attack_spec(
            brains("v1"),
            "attacks",
            gateway.url,
            marker,
            len(ATTACKS),
            gatewayTokenSecretRef={"name": "gateway"},
        )
        admin.create(support.evaluations_path(namespace), evaluation("attacks", spec))

        # T-zombie's child, its leader a zombie and its second thread running, is on the node while the
        # cell runs; once the cell is recorded on the claim, no thread of it is left.
        def zombie_leader() -> list[tuple[int, int, str, str]]:
            tasks = node_tasks(marker, "T-zombie")
            return [t for t in tasks if t[0] != t[1] and t[2] == "Z" and t[3] not in ("Z", "X")]

        seen = wait_until(zombie_leader, timeout=300, what="T-zombie's zombie leader with a live thread")
        board.put("zombie-seen", "yes")
        kept = support.claim_path(admin, namespace, "attacks-g1-answers")
        record = kept / "shard-0" / "T-zombie" / "1" / "cell.json"
        wait_until(record.exists, timeout=240, what="T-zombie's cell recorded on the claim")
        left = node_tasks(marker, "T-zombie")
        done = support.wait_for_verdict(admin, namespace, "attacks", operator=operator, timeout=600)
    assert seen and left == [], (seen, left)  # it was there, and nothing of it outlived its cell

    status = done["status"]
    result = Result.model_validate_json((kept / "result" / "result.json").read_text())
    assert status["verdict"] == result.verdict == "Blocked", status
    cells = {ticket.id: ticket.repetitions[0] for ticket in result.tickets}
    answers = kept / "shard-0"
    for ticket, cell in cells.items():
        isolation = cell.isolation
        assert isolation is not None and isolation.landlock_abi >= 6 and isolation.filesystem, (
            ticket,
            isolation,
        )
        assert isolation.network and isolation.scoped and isolation.unix_sockets_refused, (ticket, isolation)
    failing = {ticket.id for ticket in result.tickets if not ticket.passed}
    assert failing == {"T-victim", "T-lender", "T-cred", "T-forged", "T-symlink", "T-hardlink"}, failing
    # The honest cells are judged as ever: the honest one, and the attackers whose attacks came to nothing.
    for ticket in ("T-honest", "T-proc", "T-zombie"):
        assert cells[ticket].passed and cells[ticket].error is None and cells[ticket].answer == GOOD, ticket

    # The neighbour found through /proc: told the victim's pid and answer path (through the board), the
    # kernel refuses every look at it and the write; the victim's own bad answer is what is judged.
    proc = reported(answers / "T-proc" / "1")
    assert all(what.startswith("refused: ") for what in proc.values()), proc
    victim = cells["T-victim"]
    assert victim.answer == BAD and victim.error is None
    assert victim.judges["facts"].score == 0.0 and victim.judges["kb"].score == 0.0

    # A call on a neighbour's proxy URL (with the caller's own credential): refused, and both cells named.
    why = (
        "the metering proxy refused a call: a call on cell T-lender/1's URL presented cell T-cred/1's "
        "credential"
    )
    assert cells["T-lender"].error == why and cells["T-cred"].error == why, cells["T-lender"].error
    assert reported(answers / "T-cred" / "1")["neighbour's URL"].startswith("403 "), reported(
        answers / "T-cred" / "1"
    )
    # A made-up credential on the cell's own URL: refused, and the cell named.
    forged = "a call on cell T-forged/1's URL presented a credential that is no cell's"
    assert forged in (cells["T-forged"].error or "")
    assert reported(answers / "T-forged" / "1")["own URL, made-up credential"].startswith("403 ")

    # A symbolic link to the public suite: the kernel refuses to read through it, the runner to follow it.
    symlink = cells["T-symlink"]
    assert reported(answers / "T-symlink" / "1")["read through the link"].startswith("refused: ")
    assert "answer.md is a symbolic link to /etc/assay/suite/suite.yaml (outside the workspace): refused" in (
        symlink.error or ""
    ), symlink.error
    # Hard links: none can be made to anything outside the workspace (another mount, or the neighbour's
    # workspace, which the sandbox does not grant); one made inside it is refused when the cell is read.
    links = reported(answers / "T-hardlink" / "1")
    outside = {name: what for name, what in links.items() if name != "own prompt.md"}
    assert len(outside) == 3 and all(what.startswith("refused: ") for what in outside.values()), links
    assert links["own prompt.md"].startswith("done"), links
    assert "answer.md is a hard link (2 names" in (cells["T-hardlink"].error or ""), cells["T-hardlink"].error
    assert status["tickets"]["failing"] and set(status["tickets"]["failing"]) <= failing, status["tickets"]

    # The zombie's cell: its agent exited 0 with its child alive (the test had seen it), and the cell's end
    # killed the child's whole thread group.
    zombie = cells["T-zombie"]
    assert zombie.exit_code == 0 and zombie.containment in ("cgroup", "pidfd-tree"), zombie.containment


# --- the real Codex CLI: what counts as a read --------------------------------------------------------------

CODEX_MODEL = "assay-scripted-model"
TICKET = re.compile(r"# Support ticket (\S+)")
CITED = re.compile(r"\bKB-\d+\b")
CODEX_READS = {"T-001": "head -c 0 kb/{article}.md", "T-002": "cat kb/*.md"}
"""T-001 `reads` each article it cites with `head -c 0` (nothing of it reaches the model); T-002 reads
them all at once with a glob (every article's content reaches the model, no path names one)."""


def read_then_answer(text: str) -> Script:
    found = TICKET.search(text)
    assert found is not None, "no ticket id in the request"
    ticket = found.group(1)
    answer = (support.SUPPORT_DESK / "answers" / "v1" / ticket / "answer.md").read_text()
    commands = dict.fromkeys(
        CODEX_READS[ticket].format(article=article) for article in dict.fromkeys(CITED.findall(answer))
    )
    return [*(Shell(command) for command in commands), WriteFile("answer.md", answer), Say("Done.")]


def test_a_codex_read_counts_when_the_article_reached_the_model_in_the_answer_pod(
    agents_image: str,
    admin: KubeApi,
    namespace: str,
    operators: StartOperator,
    brains: Callable[[str], str],
) -> None:
    operator = operators(namespace, image=agents_image, env={"ASSAY_RUNNER_AGENT_PRESETS": "codex"})
    spec = support.replay_spec(
        brains("v1"),
        agent={"kind": "codex", "model": CODEX_MODEL, "timeoutSeconds": 180},
        tickets={"ids": list(CODEX_READS)},
        prices={CODEX_MODEL: {"inputPerMillion": 3, "outputPerMillion": 15}},
        resources=dict(support.FOR_CLIS),
    )
    with ModelServer(read_then_answer, model=CODEX_MODEL) as server:
        spec["gateway"] = server.url
        admin.create(support.evaluations_path(namespace), evaluation("codex-reads", spec))
        done = support.wait_for_verdict(admin, namespace, "codex-reads", timeout=300, operator=operator)
        problems = list(server.problems)
        commands = {
            json.loads(item["arguments"]).get("cmd")
            for request in server.requests
            for item in request.body.get("input") or []
            if isinstance(item, dict) and item.get("type") == "function_call"
        }
    assert problems == []
    assert {"head -c 0 kb/KB-1003.md", "head -c 0 kb/KB-1005.md", "cat kb/*.md"} <= commands, commands
    status = done["status"]
    assert status["verdict"] == "Blocked" and status["tickets"]["failing"] == ["T-001"], status
    kept = support.claim_path(admin, namespace, "codex-reads-g1-answers")
    result = Result.model_validate_json((kept / "result" / "result.json").read_text())
    cells = {ticket.id: ticket.repetitions[0] for ticket in result.tickets}
    head0, glob = cells["T-001"], cells["T-002"]
    for cell in (head0, glob):
        assert cell.isolation is not None and cell.isolation.landlock_abi >= 6, cell.isolation
        assert cell.exit_code == 0 and cell.error is None, cell.error
    # head -c 0: the CLI's transcript says "read", the proxy saw nothing of the articles: unread, blocked.
    citing = head0.judges["read_before_citing"]
    assert citing.score == 0.0 and citing.reason == "cites KB-1003, KB-1005 without having read it", citing
    assert head0.trajectory is not None and head0.trajectory.articles_read == []
    for article in ("KB-1003", "KB-1005"):
        said = f"kb/{article}.md: read in the CLI's transcript, but its content never reached the model"
        assert said in head0.trajectory.differences, head0.trajectory.differences
    # cat kb/*.md: no path names an article, every article's content reached the model: read.
    assert glob.passed and glob.judges["read_before_citing"].score == 1.0, glob.judges["read_before_citing"]
    assert glob.trajectory is not None and "KB-1002" in (glob.trajectory.articles_read or [])
    shown = "kb/KB-1002.md: its content reached the model, with no read of it in the CLI's transcript"
    assert shown in glob.trajectory.differences, glob.trajectory.differences


# --- evidence edited between the phases ---------------------------------------------------------------------


def forge(shard: Path, cell: str) -> None:
    """What anyone without the evidence key can do to a sealed tree: `cell`'s answer swapped for a good one,
    its seal and the manifest's digest recomputed as sha256 digests (a hand-written manifest)."""
    folder = shard / cell
    (folder / "answer.md").write_text(GOOD)
    manifest = json.loads((shard / "answers.json").read_text())
    manifest["cells"][cell] = {
        path.name: "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.is_file()
    }
    manifest.pop("treeDigest")
    canonical = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    manifest["treeDigest"] = "sha256:" + hashlib.sha256(canonical).hexdigest()
    (shard / "answers.json").write_text(json.dumps(manifest, indent=2))


def test_answers_edited_on_the_claim_between_the_phases_block_and_are_not_resumed(
    admin: KubeApi,
    namespace: str,
    operator: OperatorProcess,
    brains: Callable[[str], str],
    kubelet: LocalKubelet,
    images: support.Images,
) -> None:
    config_maps(admin, namespace, "forge", ["T-honest", "T-victim"])
    board = Board()
    with ChatServer(board.reply) as gateway:
        spec = attack_spec(brains("v1"), "forge", gateway.url, "forge", 2)
        admin.create(support.evaluations_path(namespace), evaluation("forge", spec))
        # T-victim posts on the board once its cell runs: the answer pod is past its image pull. From now
        # on the runner image's pull never ends, so the judge pod waits (ContainerCreating) until released.
        wait_until(lambda: board.values.get("victim"), timeout=240, what="T-victim's cell to run")
        kubelet.fault_pull(images.test_runner, PullFault(never=True))
        try:
            board.put("proc-done", "yes")  # T-victim may end now (with its bad answer)
            wait_until(
                lambda: support.pods_of_job(admin, namespace, "forge-g1"), timeout=240, what="the judge pod"
            )
            kept = support.claim_path(admin, namespace, "forge-g1-answers")
            assert json.loads((kept / "shard-0" / "answers.json").read_text())["finishedAt"]
            forge(kept / "shard-0", "T-victim/1")
        finally:
            kubelet.fault_pull(images.test_runner, None)
        done = support.wait_for_verdict(admin, namespace, "forge", operator=operator, timeout=300)
        assert done["status"]["verdict"] == "Blocked", done["status"]
        result = Result.model_validate_json((kept / "result" / "result.json").read_text())
        errors = {ticket.id: ticket.repetitions[0].error for ticket in result.tickets}
        assert errors == {
            "T-victim": "cell T-victim/1: its seal does not verify under this run's evidence key: blocked",
            "T-honest": "the answers manifest does not verify under this run's evidence key (it was edited "
            "or re-sealed)",
        }, errors

        # A rerun of the generation resumes on the claim: it refuses the tree, naming the cell, and keeps
        # nothing of it (the answer pod exits 2: bad input).
        admin.merge_patch(
            support.evaluations_path(namespace, "forge"),
            {"metadata": {"annotations": {names.RERUN_ANNOTATION: "after-edit"}}},
        )
        rerun = names.job_name("forge", 1, "after-edit")
        again = support.wait_for_evaluation(
            admin,
            namespace,
            "forge",
            lambda o: (o.get("status") or {}).get("jobName") == rerun and support.has_verdict()(o),
            timeout=300,
            what="the rerun's verdict",
            operator=operator,
        )
    status = again["status"]
    assert status["verdict"] == "Blocked", status
    assert "cell T-victim/1: its seal does not verify" in status["message"], status["message"]
    assert "nothing of the earlier attempt is kept" in status["message"], status["message"]
    stalled = support.condition(again, "Stalled")
    assert stalled is not None and stalled["reason"] == "PodFailurePolicy", stalled
