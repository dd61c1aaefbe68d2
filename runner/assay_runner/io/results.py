"""Reading a stored result.json, with errors that name the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import Result
from assay_runner.errors import InputError, Problem


def read_result(path: Path) -> Result:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError([Problem(str(path), "", "result file not found")]) from None
    except json.JSONDecodeError as exc:
        raise InputError([Problem(str(path), "", f"invalid JSON: {exc.msg}", exc.lineno)]) from None
    try:
        return Result.model_validate(data)
    except ValidationError as exc:
        problems = [Problem(str(path), ".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()]
        raise InputError(problems) from None
