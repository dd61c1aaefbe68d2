"""The conversational ticket's suite contract: read, refused when wrong, and kept on the key's side of the
split (the hidden facts are in no file an answer pod or its agent is given)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay_runner.cli import main
from assay_runner.contract import RunConfig, split_suite_files
from assay_runner.run.preparation import prepare
from assay_runner.suite import load_suite
from assay_runner.suite.split import split_suite
from tests.support.conversations import ROUTER_SAYS, conversation_suite

SECRETS = (ROUTER_SAYS, "VMG8825", "router model", "a home user", "fixDidNotWork", "turnLimit")


def test_a_conversational_ticket_is_read_into_its_key(tmp_path: Path) -> None:
    suite = load_suite(conversation_suite(tmp_path / "suite"))
    conversation = suite.tickets[0].key.conversation
    assert conversation is not None and conversation.turn_limit == 3
    assert [fact.name for fact in conversation.hidden] == ["router"]
    assert conversation.customer.played_by == "scripted" and conversation.unprompted == "fixDidNotWork"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("turnLimit: 3", "turnLimit: 1"), "turnLimit: Input should be greater than or equal to 2"),
        (("fixDidNotWork", "shrugs"), "unprompted: Input should be 'repeatProblem' or 'fixDidNotWork'"),
        (('askedWhen: ["router model", "which router", "what router"]', "askedWhen: []"), "askedWhen"),
        (("playedBy: scripted", "playedBy: telepathy"), "playedBy: Input should be 'scripted' or 'model'"),
        (("name: router", "name: Router!"), "hidden[0].name"),
        (('tone: "short"', "tone: short, mood: grumpy"), "customer.mood: unknown key"),
        (
            ("every evening", "every evening on my VMG8825"),
            "the question already states hidden fact(s) router",
        ),
    ],
)
def test_bad_conversations_are_refused_where_they_are(
    tmp_path: Path, edit: tuple[str, str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = conversation_suite(tmp_path / "suite")
    text = (root / "suite.yaml").read_text()
    assert edit[0] in text
    (root / "suite.yaml").write_text(text.replace(edit[0], edit[1]))
    assert main(["validate", str(root)]) == 2
    error = capsys.readouterr().err
    assert f"{root / 'suite.yaml'}:" in error and expected in error, error


def test_two_facts_of_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = conversation_suite(tmp_path / "suite")
    text = (root / "suite.yaml").read_text()
    fact = text[text.index("          - name: router") : text.index("        unprompted")]
    (root / "suite.yaml").write_text(text.replace(fact, fact + fact))
    assert main(["validate", str(root)]) == 2
    assert "hidden fact names must be unique; repeated: router" in capsys.readouterr().err


def test_the_hidden_facts_are_in_no_public_file(tmp_path: Path) -> None:
    """`assay split` and the operator's cut of a suite ConfigMap (the same rule) put the whole conversation
    in keys.yaml: the questions file, suite.yaml and the KB say nothing of what the customer knows."""
    root = conversation_suite(tmp_path / "suite")
    public, keys = tmp_path / "public", tmp_path / "keys.yaml"
    split_suite(root, public, keys)
    written = {p.relative_to(public).as_posix(): p.read_text() for p in public.rglob("*") if p.is_file()}
    assert set(written) == {"suite.yaml", "questions.yaml", "kb/KB-7.md"}
    for name, text in written.items():
        leaked = [secret for secret in SECRETS if secret in text and not name.startswith("kb/")]
        assert not leaked, f"{name} holds {leaked}"
    assert all(secret in keys.read_text() for secret in (ROUTER_SAYS, "router model", "turnLimit: 3"))
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    parts = split_suite_files(files)
    assert parts.public["questions.yaml"] == written["questions.yaml"].encode()
    assert not any(ROUTER_SAYS.encode() in data for data in parts.public.values())
    # An answer pod is given the public part: its tickets carry no conversation, so no customer.
    config = RunConfig.model_validate({"suite": str(public), "agent": {"kind": "chat", "model": "m"}})
    assert all(ticket.key.conversation is None for ticket in prepare(config, with_keys=False).tickets)
    rejoined = load_suite(public, keys=keys)
    assert rejoined.tickets == load_suite(root).tickets
