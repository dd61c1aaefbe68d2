"""Property-based fuzzing of the CLI over suites, answer trees and result files.

Whatever the input: no traceback, exit 0 only with a written result whose verdict is Pass, and exit 2
(bad input) names the file it is about. Bounded for `make test` (a few tens of seconds); a larger run:
`ASSAY_FUZZ_EXAMPLES=500 .venv/bin/pytest tests/unit/test_fuzz_cli.py`.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay_runner.cli import main

EXAMPLES = int(os.environ.get("ASSAY_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

BASE_SUITE: dict[str, Any] = {
    "name": "fuzz",
    "judges": [
        {"name": "kb", "type": "kb_citation", "weight": 1, "threshold": 0.5},
        {"name": "facts", "type": "must_mention", "weight": 1, "threshold": 0.5},
        {"name": "policy", "type": "policy", "weight": 1, "threshold": 1, "forbidden": ["reinstall"]},
        {"name": "format", "type": "format", "weight": 0, "threshold": 0, "sections": ["Summary"]},
        {"name": "abstention", "type": "abstention", "weight": 0, "threshold": 0},
        {"name": "exit_code", "type": "exit_code"},
    ],
    "gate": {"minScore": 0.5, "ticketFloor": 0.5},
    "tickets": [
        {
            "id": "T-1",
            "split": "validation",
            "question": "Sync?",
            "key": {"kb": ["KB-1"], "mustMention": ["cache"]},
        },
        {"id": "T-2", "split": "training", "question": "Login?", "key": {"forbidden": ["reset"]}},
    ],
}
GOOD_ANSWER = "## Summary\nClear the cache, see KB-1."

ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["", " ", "!!!", ".", "..", "../x", "/etc/passwd", "kb", "T-1", "reinstall", "a*", "(a+)+b"]
    ),
    st.text(max_size=20),
    st.lists(st.sampled_from(["", "x", "!!!", "Summary"]), max_size=3),
    st.dictionaries(st.sampled_from(["phrase", "pattern", "x"]), st.sampled_from(["", "x", "("]), max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _mutate(document: Any, data: st.DataObject, count: int) -> Any:
    document = copy.deepcopy(document)
    for _ in range(count):
        paths = [p for p in _paths(document) if p]
        path = data.draw(st.sampled_from(paths))
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(path[-1])
        else:
            parent[path[-1]] = data.draw(ODD_VALUES)
    return document


@contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def _write_suite(root: Path, document: Any) -> Path:
    suite = root / "suite"
    (suite / "kb").mkdir(parents=True)
    (suite / "kb" / "KB-1.md").write_text("# KB-1\n")
    (suite / "suite.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    return suite


def _check(code: int, err: str, out: Path | None, names: list[str]) -> None:
    assert "Traceback" not in err and "could not run" not in err, err
    assert code in (0, 1, 2)
    if code == 0 and out is not None:
        assert json.loads((out / "result.json").read_text())["verdict"] == "Pass"
    if code == 2:
        assert any(name in err for name in names), err


@FUZZ
@given(data=st.data(), count=st.integers(min_value=1, max_value=3))
def test_fuzzed_suites(capsys: pytest.CaptureFixture[str], data: st.DataObject, count: int) -> None:
    document = _mutate(BASE_SUITE, data, count)
    with _workdir() as root:
        suite = _write_suite(root, document)
        answers = root / "answers"
        for tid in ("T-1", "T-2"):
            (answers / tid).mkdir(parents=True)
            (answers / tid / "answer.md").write_text(GOOD_ANSWER)
        code = main(["validate", str(suite)])
        _check(code, capsys.readouterr().err, None, ["suite.yaml", "tickets"])
        if code == 0:
            out = root / "out"
            code = main(["score", str(suite), "--answers", str(answers), "--out", str(out), "-q"])
            _check(code, capsys.readouterr().err, out, [str(answers), str(suite)])


FILES = st.sampled_from(
    [
        "T-1/answer.md",
        "T-2/answer.md",
        "T-1/1/answer.md",
        "T-1/0/answer.md",
        "T-1/2/answer.md",
        "T-9/answer.md",
        "T-1/exit_code",
        "T-2/exit_code",
        "T-1/notes.txt",
        ".hidden/answer.md",
    ]
)
CONTENTS = st.one_of(
    st.sampled_from([GOOD_ANSWER, "Reinstall the app.", "", "0", "1", "137", "x"]).map(str.encode),
    st.sampled_from([GOOD_ANSWER]).map(lambda t: t.encode("utf-16")),
    st.binary(max_size=40),
    st.text(max_size=60).map(str.encode),
)


@FUZZ
@given(files=st.dictionaries(FILES, CONTENTS, max_size=6), k=st.integers(min_value=1, max_value=2))
def test_fuzzed_answer_trees(capsys: pytest.CaptureFixture[str], files: dict[str, bytes], k: int) -> None:
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        answers = root / "answers"
        answers.mkdir()
        for name, content in files.items():
            (answers / name).parent.mkdir(parents=True, exist_ok=True)
            (answers / name).write_bytes(content)
        out = root / "out"
        code = main(["score", str(suite), "--answers", str(answers), "-k", str(k), "--out", str(out), "-q"])
        _check(code, capsys.readouterr().err, out, [str(answers)])


@pytest.fixture(scope="module")
def stored_result() -> Iterator[dict[str, Any]]:
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        answers = root / "answers"
        for tid in ("T-1", "T-2"):
            (answers / tid).mkdir(parents=True)
            (answers / tid / "answer.md").write_text(GOOD_ANSWER)
        main(["score", str(suite), "--answers", str(answers), "--out", str(root / "out"), "-q"])
        yield json.loads((root / "out" / "result.json").read_text())


@FUZZ
@given(data=st.data(), count=st.integers(min_value=1, max_value=3))
def test_fuzzed_result_files(
    capsys: pytest.CaptureFixture[str], stored_result: dict[str, Any], data: st.DataObject, count: int
) -> None:
    document = _mutate(stored_result, data, count)
    with _workdir() as root:
        path = root / "result.json"
        path.write_text(json.dumps(document))
        out = root / "out"
        code = main(["gate", str(path), "--out", str(out), "-q"])
        _check(code, capsys.readouterr().err, out, [str(path)])
        code = main(["compare", str(path)])
        _check(code, capsys.readouterr().err, None, [str(path)])
