"""Property-based fuzzing of the CLI over suites, answer trees, result files and RunConfig files.

Whatever the input: no traceback, exit 0 only with a written result whose verdict is Pass, and exit 2
(bad input) names the file it is about. Where an oracle written apart from the models says an input is
invalid (a RunConfig's values, numbers as YAML 1.1 writes them, file names that are not UTF-8), it must be
refused: 0 invalid inputs accepted. Bounded for `make test` (a few tens of seconds); a larger run:
`ASSAY_FUZZ_EXAMPLES=500 .venv/bin/pytest tests/unit/test_fuzz_cli.py`.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
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

# Issue 42's strict-input cases: text that becomes a path, a URL or a name (NUL and other control
# characters, a file URL, no host, too long), and numbers past any sensible bound.
LOOSE_TEXT = st.sampled_from(
    [
        *("a\x00b", "out\x00", "a\nb", "\x1b[31m", "x\x7f", "r" * 257, "p" * 5000),
        *("file:///etc/passwd", "not a url", "http:///v1", "ftp://h/x", "http://h:99999/v1"),
        *("http://127.0.0.1:9/v1", "https://gateway.example/v1", "gateway:8080"),
    ]
)
ODD_VALUES = st.one_of(
    LOOSE_TEXT,
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


# ------------------------------------------------------------------------------------- RunConfig files

RUN_CONFIG_VALUES = st.one_of(
    ODD_VALUES,
    st.sampled_from(["4", "true", "yes", "1e3", "inf", "/dev/full", "/dev/null/x", "all", "T-1", "chat"]),
    st.sampled_from([0, 1, 2, 64, 65, 100, 101, 0.5, 1.5, -1, 86401, 1e-9, 10**30, 1e308]),
    st.lists(st.sampled_from(["T-1", "T-2", "T-9", "", "T-1"]), max_size=3),
)
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


def _base_config(root: Path, suite: Path, answers: Path) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "runName": "fuzz",
        "gateway": "http://127.0.0.1:9/v1",  # never called: the replay agent, no model judge
        "suite": str(suite),
        "tickets": ["T-1", "T-2"],
        "agent": {"kind": "replay", "answers": str(answers), "timeoutSeconds": 30},
        "repetitions": 1,
        "concurrency": 2,
        "mlflow": {"enabled": False, "experiment": "assay"},
        "gate": {"minScore": 0.5, "ticketFloor": 0.5},
        "prices": {"m": {"inputPerMillion": 1.0, "outputPerMillion": 2.0}},
        "maxCostUsd": 10.0,
        "output": {"dir": str(root / "out"), "blockedExitCode": 1, "keepWorkspaces": False},
        "answerDeadlineSeconds": 600.0,
    }


def _number(value: Any, low: float, high: float, *, integer: bool = False, low_open: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if integer else int | float):
        return False
    if not math.isfinite(value):
        return False
    return (low < value if low_open else low <= value) and value <= high


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _no_controls(value: Any) -> bool:
    """Text with something in it and no control character (C0, DEL, C1)."""
    return _text(value) and not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value)


def _path(value: Any) -> bool:
    return _no_controls(value) and len(value.encode()) <= 4095


def _label(value: Any) -> bool:
    return _no_controls(value) and len(value) <= 256


URL = re.compile(r"(?i)https?://([^\s/?#:@\[\]]+)(?::(\d+))?(?:[/?#]\S*)?")


def _url(value: Any) -> bool:
    match = URL.fullmatch(value) if _no_controls(value) and len(value) <= 2048 else None
    return match is not None and (match[2] is None or int(match[2]) <= 65535)


KNOWN = {
    "schemaVersion": lambda v: v == 1 and not isinstance(v, bool) and isinstance(v, int),
    "runName": lambda v: v is None or _label(v),
    "gateway": lambda v: v is None or _url(v),
    "suite": _path,
    "tickets": lambda v: (
        v in ("all", "training", "validation")
        or (
            isinstance(v, list)
            and bool(v)
            and all(isinstance(t, str) and ID.match(t) for t in v)
            and len(set(v)) == len(v)
        )
    ),
    "repetitions": lambda v: _number(v, 1, 100, integer=True),
    "concurrency": lambda v: _number(v, 1, 64, integer=True),
    "maxCostUsd": lambda v: v is None or _number(v, 0, math.inf, low_open=True),
    "answerDeadlineSeconds": lambda v: v is None or _number(v, 0, 7 * 86400, low_open=True),
}
NESTED = {
    "agent": {
        "kind": lambda v: v in ("chat", "opencode", "claude-code", "codex", "command", "replay"),
        "answers": lambda v: v is None or _path(v),
        "timeoutSeconds": lambda v: _number(v, 0, 86400, low_open=True),
    },
    "mlflow": {"enabled": lambda v: isinstance(v, bool), "experiment": _label},
    "gate": {
        "minScore": lambda v: v is None or _number(v, 0, 1),
        "ticketFloor": lambda v: v is None or _number(v, 0, 1),
    },
    "output": {
        "dir": _path,
        "blockedExitCode": lambda v: _number(v, 0, 1, integer=True),
        "keepWorkspaces": lambda v: isinstance(v, bool),
    },
}


def _invalid(document: Any) -> str | None:
    """Why a RunConfig document is invalid, by the contract's own words (an oracle written apart from
    the models): types without coercion, ranges, finite numbers, unique ticket ids, no unknown key."""
    if not isinstance(document, dict):
        return "not a mapping"
    if "suite" not in document:
        return "suite is missing"
    for key, value in document.items():
        if key in KNOWN:
            if not KNOWN[key](value):
                return f"{key}={value!r}"
        elif key in NESTED:
            if not isinstance(value, dict):
                return f"{key} is not a mapping"
            for inner, inner_value in value.items():
                check = NESTED[key].get(inner)
                if check is None or not check(inner_value):
                    return f"{key}.{inner}={inner_value!r}"
        elif key == "prices":
            if not isinstance(value, dict):
                return "prices is not a mapping"
            for model, price in value.items():
                if (
                    not _label(model)
                    or not isinstance(price, dict)
                    or set(price)
                    != {
                        "inputPerMillion",
                        "outputPerMillion",
                    }
                ):
                    return f"prices.{model!r}"
                if not all(_number(p, 0, 1e6) for p in price.values()):
                    return f"prices.{model}={price!r}"
        else:
            return f"unknown key {key!r}"
    return None


@FUZZ
@given(data=st.data(), count=st.integers(min_value=1, max_value=3))
def test_fuzzed_run_configs(capsys: pytest.CaptureFixture[str], data: st.DataObject, count: int) -> None:
    # 0 tracebacks, 0 hangs (the replay agent answers at once), and 0 invalid values accepted: a
    # document the oracle above finds invalid must be refused as bad input (exit 2) before any work.
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        answers = root / "answers"
        for tid in ("T-1", "T-2"):
            (answers / tid).mkdir(parents=True)
            (answers / tid / "answer.md").write_text(GOOD_ANSWER)
        document = _base_config(root, suite, answers)
        for _ in range(count):
            paths = [p for p in _paths(document) if p]
            path = data.draw(st.sampled_from(paths))
            parent = document
            for part in path[:-1]:
                parent = parent[part]
            if data.draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1])
            else:
                parent[path[-1]] = data.draw(RUN_CONFIG_VALUES)
        config = root / "config.yaml"
        config.write_text(yaml.safe_dump(document, allow_unicode=True))
        code = main(["run", "--config", str(config), "-q"])
        err = capsys.readouterr().err
        assert "Traceback" not in err and "could not run" not in err, err
        assert code in (0, 1, 2)
        why = _invalid(document)
        if why is not None:
            assert code == 2, f"invalid value accepted ({why}): exit {code}\n{err}"


# ------------------------------------------------------------------ numbers as written in YAML (issue 42)

YAML_NUMBER_TOKENS = st.one_of(
    st.sampled_from(
        [
            *("1:30", "-1:30", "1:30.5", "190:20:30", "017", "00", "0x1F", "0o17", "0b101", "1_000"),
            *("+5", "-0", ".5", "1.", "1e3", "1.0e+3", ".inf", "-.inf", ".nan", "1" + "0" * 30, "~", "0"),
        ]
    ),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.from_regex(r"[-+]?[0-9_:.xob]{1,8}", fullmatch=True),
)
PLAIN_INTEGER = re.compile(r"[-+]?(0|[1-9][0-9]*)")


def _plain_integer_within(token: str, low: int, high: int) -> bool:
    """The oracle: an integer written plainly (sign, decimal digits, no leading zero) within the bounds;
    YAML 1.1's other integers (sexagesimal 1:30 = 90, octal 017, 0x1F, 1_000) are not."""
    return PLAIN_INTEGER.fullmatch(token) is not None and low <= int(token) <= high


@FUZZ
@given(token=YAML_NUMBER_TOKENS)
def test_fuzzed_yaml_numbers_in_a_suite(capsys: pytest.CaptureFixture[str], token: str) -> None:
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        text = (suite / "suite.yaml").read_text()
        (suite / "suite.yaml").write_text(text.replace("sections:", f"maxWords: {token}\n  sections:", 1))
        code = main(["validate", str(suite)])
        err = capsys.readouterr().err
        _check(code, err, None, ["suite.yaml"])
        valid = _plain_integer_within(token, 1, 1_000_000)
        assert code == (0 if valid else 2), f"maxWords: {token} gave exit {code}\n{err}"


@FUZZ
@given(token=YAML_NUMBER_TOKENS)
def test_fuzzed_yaml_numbers_in_a_run_config(capsys: pytest.CaptureFixture[str], token: str) -> None:
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        answers = root / "answers"
        for tid in ("T-1", "T-2"):
            (answers / tid).mkdir(parents=True)
            (answers / tid / "answer.md").write_text(GOOD_ANSWER)
        document = _base_config(root, suite, answers)
        del document["concurrency"]
        config = root / "config.yaml"
        config.write_text(yaml.safe_dump(document) + f"concurrency: {token}\n")
        code = main(["run", "--config", str(config), "-q"])
        err = capsys.readouterr().err
        _check(code, err, root / "out", [str(config)])
        valid = _plain_integer_within(token, 1, 64)
        assert (code in (0, 1)) if valid else (code == 2), f"concurrency: {token} gave exit {code}\n{err}"


# ------------------------------------------------------------------------ file names read from disk

FILE_NAMES = st.binary(min_size=1, max_size=12).filter(
    lambda name: b"/" not in name and b"\0" not in name and name not in (b".", b"..")
)


def _utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@FUZZ
@given(name=FILE_NAMES, where=st.sampled_from(["kb", "brain"]))
def test_fuzzed_file_names(capsys: pytest.CaptureFixture[str], name: bytes, where: str) -> None:
    # A kb/ article or a brain file of any name: refused (exit 2) naming it when the name is not UTF-8,
    # else judged; never a traceback, whichever command reads it.
    with _workdir() as root:
        suite = _write_suite(root, BASE_SUITE)
        answers = root / "answers"
        for tid in ("T-1", "T-2"):
            (answers / tid).mkdir(parents=True)
            (answers / tid / "answer.md").write_text(GOOD_ANSWER)
        brain = root / "brain"
        brain.mkdir()
        (brain / "AGENTS.md").write_text("Answer briefly.")
        folder = suite / "kb" if where == "kb" else brain
        (folder / os.fsdecode(name + b".md")).write_bytes(b"# an article\n")
        document = {**_base_config(root, suite, answers), "brain": str(brain)}
        config = root / "config.yaml"
        config.write_text(yaml.safe_dump(document))
        code = main(["run", "--config", str(config), "-q"])
        err = capsys.readouterr().err
        _check(code, err, root / "out", [str(folder)])
        if _utf8(name):
            assert code in (0, 1), err
        else:
            assert code == 2 and "file name is not UTF-8" in err, err
            assert not (root / "out").exists()
