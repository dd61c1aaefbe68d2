"""Reading a stored result.json, with errors that name the file and the field.

Nothing is decided from a file that fails `assay_runner.core.integrity.check_result`: a result edited by
hand (a score out of range, a duplicated ticket, a verdict that its judge verdicts do not give) is bad
input, exit 2, never a verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import Result
from assay_runner.errors import InputError, Problem, not_a_file

MAX_RESULT_BYTES = 512 * 1024 * 1024


def read_result(path: Path) -> Result:
    from assay_runner.core.integrity import check_result

    where = str(path)
    try:
        if path.is_dir():
            raise InputError([Problem(where, "", "is a directory; give the result.json file")])
        if path.exists() and (unreadable := not_a_file(path)) is not None:  # a FIFO would hang the reader
            raise InputError([Problem(where, "", unreadable)])
        if path.stat().st_size > MAX_RESULT_BYTES:
            raise InputError([Problem(where, "", f"larger than {MAX_RESULT_BYTES} bytes")])
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError([Problem(where, "", "result file not found")]) from None
    except OSError as exc:
        raise InputError([Problem(where, "", f"cannot read: {exc.strerror or exc}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            [Problem(where, "", f"not UTF-8 JSON ({exc.reason} at byte {exc.start}); write it as UTF-8")]
        ) from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(where, "", f"invalid JSON: {exc.msg}", exc.lineno)]) from None
    except RecursionError:
        raise InputError([Problem(where, "", "invalid JSON: nested too deeply")]) from None
    except ValueError as exc:  # a 5000-digit integer, NaN, Infinity
        raise InputError([Problem(where, "", f"invalid JSON: {exc}")]) from None
    try:
        result = Result.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(where, ".".join(str(p) for p in e["loc"]), e["msg"])
            for e in exc.errors(include_url=False)
        ]
        raise InputError(problems) from None
    except RecursionError:
        raise InputError([Problem(where, "", "nested too deeply")]) from None
    issues = check_result(result)
    if issues:
        raise InputError([Problem(where, field, message) for field, message in issues])
    return result


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")
