"""Reading a labels file: people's verdicts on answers, one JSON object per line (`.jsonl`) or a YAML mapping
with a `labels:` list. Every problem is reported at once, with its line or index."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import ValidationError

from assay_runner.errors import InputError, Problem
from assay_runner.suite.calibration import Label


def labels_digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


def read_labels(path: Path) -> tuple[list[Label], bytes]:
    """The labels and the file's bytes (for its digest)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError([Problem(str(path), "", exc.strerror or str(exc))]) from None
    entries: list[tuple[str, object]] = []
    problems: list[Problem] = []
    if path.suffix == ".jsonl":
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                problems.append(Problem(str(path), f"line {number}", f"not JSON: {exc.msg}"))
    elif path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            document = yaml.safe_load(data)
        except yaml.YAMLError as exc:
            raise InputError([Problem(str(path), "", f"not valid YAML: {exc}")]) from None
        listed = document.get("labels") if isinstance(document, dict) else None
        if not isinstance(listed, list):
            raise InputError([Problem(str(path), "", "must be a mapping with a `labels:` list")])
        entries = [(f"labels[{index}]", entry) for index, entry in enumerate(listed)]
    else:
        raise InputError([Problem(str(path), "", "give a .jsonl or .yaml labels file")])
    labels: list[Label] = []
    for where, entry in entries:
        try:
            labels.append(Label.model_validate(entry, strict=True))
        except ValidationError as exc:
            for error in exc.errors():
                field = ".".join(str(part) for part in error["loc"])
                problems.append(Problem(str(path), f"{where}{'.' + field if field else ''}", error["msg"]))
    if problems:
        raise InputError(problems)
    if not labels:
        raise InputError([Problem(str(path), "", "no labels")])
    return labels, data
