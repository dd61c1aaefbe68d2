"""One split at the trust boundary: a suite in a ConfigMap (split by the operator) and the same files split by
`assay split` (as the split init container does for a bundled suite) give the same public part and the same
key, byte for byte; a file beside the suite that nothing names public (a README, a reviewer's notes) is in
neither part, whichever way the suite came."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay_operator.evaluation.build import snapshots
from assay_operator.evaluation.build.suite_split import SuiteSplitError, split_suite
from assay_runner.cli import main
from assay_runner.core.digests import suite_digest, tree_digest
from assay_runner.suite.loader import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
CANARY = "CANARY-reviewer-notes-5c1e"
EXTRAS = {
    "README.md": f"# For reviewers\nThe trick to T-001 is {CANARY}.\n",
    "notes.md": f"T-002 expects the KB-2210 steps ({CANARY}).\n",
}
CODE_SUITE = {
    "suite.yaml": (
        "name: coded\n"
        "judges:\n"
        "  - {name: custom, type: code, weight: 1, threshold: 1.0, file: judge.py}\n"
        "tickets:\n"
        "  - id: T-1\n"
        "    split: validation\n"
        "    question: How do I export my notes?\n"
        "    key: {mustMention: ['Settings > Export'], notes: 'for the judge only'}\n"
    ),
    "judge.py": "def judge(inputs, outputs):\n    return 1.0\n",
}


def example_files() -> dict[str, str]:
    return {name: (EXAMPLE / name).read_text() for name in ("suite.yaml", "tickets.yaml")}


def runner_split(files: dict[str, str], tmp_path: Path, kb: Path | None) -> tuple[dict[str, str], str]:
    """`assay split` on a directory of `files`: the public part's files (without the KB articles, which a
    ConfigMap suite carries in its own ConfigMap) and the key file's text."""
    source, public, keys = tmp_path / "source", tmp_path / "public", tmp_path / "key" / "keys.yaml"
    source.mkdir()
    for name, text in files.items():
        (source / name).write_text(text)
    args = ["split", str(source), "--public", str(public), "--keys", str(keys)]
    assert main([*args, *(["--kb", str(kb)] if kb else [])]) == 0
    found = {str(p.relative_to(public)): p.read_text() for p in sorted(public.rglob("*")) if p.is_file()}
    return {k: v for k, v in found.items() if not k.startswith("kb/")}, keys.read_text()


@pytest.mark.parametrize(
    ("files", "kb"), [(example_files(), EXAMPLE / "kb"), (CODE_SUITE, None)], ids=["ticketsFile", "code"]
)
def test_a_config_map_suite_and_assay_split_give_the_same_parts_and_extras_reach_neither(
    files: dict[str, str], kb: Path | None, tmp_path: Path
) -> None:
    with_extras = {**files, **EXTRAS}
    public, key = split_suite(with_extras)  # the operator, on the ConfigMap's keys
    by_runner, runner_key = runner_split(with_extras, tmp_path, kb)
    assert public == by_runner and key == {"keys.yaml": runner_key}
    assert not set(EXTRAS) & set(public) and CANARY not in "".join(public.values())
    assert CANARY not in runner_key  # a file nothing names is not the key's either
    if "judge.py" in files:
        assert public["judge.py"] == files["judge.py"]  # a file the suite names public stays in it

    # What the runner in the answer pod will report for the public part is the snapshot's digest.
    assert tree_digest(tmp_path / "public") == snapshots.text_digest(
        {**public, **{f"kb/{p.name}": p.read_text() for p in sorted(kb.glob("*.md"))}} if kb else public
    )
    # Joined again, it is the suite the files make.
    rejoined = load_suite(tmp_path / "public", keys=tmp_path / "key" / "keys.yaml")
    shutil.copytree(tmp_path / "source", tmp_path / "whole")
    assert suite_digest(rejoined) == suite_digest(load_suite(tmp_path / "whole", kb))


def test_a_config_map_already_split_is_split_as_its_unsplit_self() -> None:
    public, key = split_suite({**example_files(), **EXTRAS})
    again = split_suite({**public, **key, **EXTRAS})
    assert again == (public, key)


def test_what_cannot_be_split_is_refused_saying_why() -> None:
    files = example_files()
    with pytest.raises(SuiteSplitError, match="ticketsFile"):
        split_suite({"suite.yaml": files["suite.yaml"]})
    with pytest.raises(SuiteSplitError, match=r"judge\.py"):
        split_suite({"suite.yaml": CODE_SUITE["suite.yaml"]})
    misplaced = CODE_SUITE["suite.yaml"].replace("    key:", "    notes: a hint\n    key:")
    with pytest.raises(SuiteSplitError, match="notes: a ticket has only id, split, question and key"):
        split_suite({**CODE_SUITE, "suite.yaml": misplaced})
    public, key = split_suite(CODE_SUITE)
    keyed = {
        **public,
        **key,
        "questions.yaml": public["questions.yaml"].replace("question:", "key: {}\n  question:"),
    }
    split_suite(keyed)  # an empty key in the public part is no key
    doubled = public["questions.yaml"].replace("question:", "key: {notes: x}\n  question:")
    with pytest.raises(SuiteSplitError, match=r"T-1 have a key in the public part and in keys\.yaml"):
        split_suite({**public, **key, "questions.yaml": doubled})


def test_a_conversational_ticket_s_customer_reaches_no_answer_pod(tmp_path: Path) -> None:
    """The operator's cut of a suite ConfigMap keeps a conversation (the customer, what it knows and says
    only when asked) in the key, as `assay split` does: the answer pods mount nothing of it."""
    conversations = EXAMPLE.parent / "support-desk-conversations"
    files = {"suite.yaml": (conversations / "suite.yaml").read_text()}
    public, key = split_suite(files)
    by_runner, runner_key = runner_split(files, tmp_path, EXAMPLE / "kb")
    assert public == by_runner and key == {"keys.yaml": runner_key}
    for secret in ("Android tablet", "Free plan", "which device", "freelance designer", "turnLimit"):
        assert secret not in "".join(public.values()) and secret in runner_key
