"""The customers part of a split suite (`assay split --customer`, the operator's cut of a suite ConfigMap):
each conversational ticket's `conversation` and nothing else, so the answer phase can play its customers;
no answer key, no judge. A suite with no conversation has none. The answer phase that holds it protects it
from its agents' sandbox and refuses an agent program where the kernel cannot give that sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay_runner.cli import main
from assay_runner.contract import CUSTOMERS_FILE, RunConfig, split_suite_files
from assay_runner.errors import InputError
from assay_runner.run import isolation
from assay_runner.run.preparation import prepare
from assay_runner.suite import load_suite
from assay_runner.suite.loader import with_customers
from tests.support.conversations import QUESTION, ROUTER_SAYS, conversation_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk-conversations"
PLAIN = Path(__file__).resolve().parents[2] / "examples" / "support-desk"


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def split(root: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    public, keys, customers = (
        tmp_path / "public",
        tmp_path / "key" / "keys.yaml",
        tmp_path / "c" / CUSTOMERS_FILE,
    )
    args = ["split", str(root), "--public", str(public), "--keys", str(keys), "--customer", str(customers)]
    assert main(args) == 0
    return public, keys, customers


def test_the_customers_part_holds_each_conversation_and_no_answer_key_or_judge(tmp_path: Path) -> None:
    parts = split_suite_files(files_of(EXAMPLE))
    assert parts.customers is not None
    document = yaml.safe_load(parts.customers)
    assert set(document) == {"customers"}
    suite = load_suite(EXAMPLE)
    talking = {t.id: t for t in suite.tickets if t.key.conversation is not None}
    assert talking and set(document["customers"]) == set(talking)
    for ticket_id, conversation in document["customers"].items():
        assert set(conversation) <= {"customer", "hidden", "unprompted", "turnLimit"}, ticket_id
    text = parts.customers.decode()
    for ticket in suite.tickets:  # nothing of any key but the conversation: no fact, article, note, item
        key = ticket.key
        for secret in [*key.must_mention, *key.kb, *([key.notes] if key.notes.strip() else [])]:
            assert secret not in text, f"{ticket.id}: {secret!r} is in the customers part"
    for judge in suite.spec.judges:  # and no judge: their names and options are the public part's
        assert f"name: {judge.name}" not in text and "threshold" not in text and "judges" not in text


def test_a_suite_with_no_conversation_has_no_customers_part(tmp_path: Path) -> None:
    assert split_suite_files(files_of(PLAIN)).customers is None
    _, keys, customers = split(PLAIN, tmp_path)
    assert keys.is_file() and not customers.exists()


def test_the_customers_part_plays_the_same_customer_as_the_key(tmp_path: Path) -> None:
    root = conversation_suite(tmp_path / "suite")
    public, keys, customers = split(root, tmp_path)
    assert ROUTER_SAYS in customers.read_text() and "firmware 5.50" not in customers.read_text()
    played = with_customers(load_suite(public), customers)
    judged = load_suite(public, keys=keys)
    assert [t.key.conversation for t in played.tickets] == [t.key.conversation for t in judged.tickets]
    assert played.has_conversations and not played.has_answer_keys  # the customer, and nothing else
    assert played.tickets[0].key.must_mention == []


def test_the_answer_phase_plays_from_it_and_the_judge_phase_refuses_it(tmp_path: Path) -> None:
    root = conversation_suite(tmp_path / "suite")
    public, keys, customers = split(root, tmp_path)
    base = {"suite": str(public), "agent": {"kind": "chat", "model": "m"}, "customers": str(customers)}
    answering = prepare(RunConfig.model_validate(base), with_keys=False)
    assert answering.tickets[0].key.conversation is not None
    with pytest.raises(InputError, match="`customers` is the answer phase's"):
        prepare(RunConfig.model_validate({**base, "keys": str(keys)}))
    missing = prepare(
        RunConfig.model_validate({**base, "customers": str(tmp_path / "none.yaml")}), with_keys=False
    )
    assert missing.tickets[0].key.conversation is None  # the split wrote none: no conversation


def test_a_customer_for_an_unknown_ticket_or_one_the_question_tells_is_refused(tmp_path: Path) -> None:
    root = conversation_suite(tmp_path / "suite")
    public, _, customers = split(root, tmp_path)
    text = customers.read_text()
    customers.write_text(text.replace("ASK-1:", "ASK-9:"))
    with pytest.raises(InputError, match=r"ASK-9.*no ticket with this id"):
        with_customers(load_suite(public), customers)
    questions = public / "questions.yaml"
    customers.write_text(text)
    questions.write_text(questions.read_text().replace(QUESTION, QUESTION + " It is a Zyxel."))
    with pytest.raises(InputError, match="already states router"):
        with_customers(load_suite(public), customers)


def test_an_agent_program_beside_the_customers_needs_the_kernel_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = conversation_suite(tmp_path / "suite")
    public, _, customers = split(root, tmp_path)
    agent = {"kind": "command", "command": ["true"], "continueCommand": ["true"]}
    config = RunConfig.model_validate({"suite": str(public), "agent": agent, "customers": str(customers)})
    prepared = prepare(config, with_keys=False)
    assert isolation.holds_customers(prepared)
    assert str(customers.absolute()) in isolation.protected_paths(prepared)
    monkeypatch.setattr(isolation.landlock, "abi", lambda: 0)
    with pytest.raises(InputError, match=r"holds its conversational tickets' customers .* only the kernel's"):
        isolation.run_sandbox(prepared)
    # The chat agent runs no program: there is nothing to sandbox, and it reads no file.
    chat = prepare(
        config.model_copy(update={"agent": config.agent.model_copy(update={"kind": "chat"})}), with_keys=False
    )
    assert isolation.run_sandbox(chat) is None
    # Without the customers the same kernel is only recorded (best effort), as before.
    plain = prepare(config.model_copy(update={"customers": None}), with_keys=False)
    assert not isolation.holds_customers(plain)
    assert isolation.run_sandbox(plain) is not None


def test_a_model_customer_behind_the_gateway_sidecar_is_refused_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay_runner.contract import GATEWAY_SOCKET_ENV
    from assay_runner.run.answering import refuse_model_customers_behind_sidecar

    root = conversation_suite(tmp_path / "suite", played_by="model")
    public, _, customers = split(root, tmp_path)
    config = RunConfig.model_validate(
        {"suite": str(public), "agent": {"kind": "chat", "model": "m"}, "customers": str(customers)}
    )
    prepared = prepare(config, with_keys=False)
    refuse_model_customers_behind_sidecar(prepared)  # no sidecar: the runner meters it apart itself
    monkeypatch.setenv(GATEWAY_SOCKET_ENV, str(tmp_path / "gateway.sock"))
    with pytest.raises(InputError, match=r"ASK-1: a customer played by a model is not supported behind"):
        refuse_model_customers_behind_sidecar(prepared)
