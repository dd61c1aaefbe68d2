"""Reading a RunConfig file (YAML or JSON) with errors that name the file, the field and the line."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import RunConfig
from assay_runner.errors import InputError, Problem
from assay_runner.suite.yamlsource import YamlDocument


def read_run_config(path: Path) -> RunConfig:
    doc = YamlDocument(path, str(path))  # JSON is YAML, so one reader serves both (and gives the lines)
    data = _json_numbers(path, doc.data)
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), "", "a run configuration must be a mapping")])
    try:
        config = RunConfig.model_validate(data)
    except ValidationError as exc:
        raise InputError(list(doc.problems(exc))) from None
    return resolve_paths(config, path.parent)


def _json_numbers(path: Path, data: object) -> object:
    """A JSON file's own reading: JSON writers spell a non-finite number NaN or Infinity, which YAML
    reads as words; read as JSON they are numbers, refused as such by the checks of range (a word is
    refused as not a number, with no coercion)."""
    try:
        parsed = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return data  # not JSON: YAML's reading stands
    return parsed if isinstance(parsed, dict) else data


def resolve_paths(config: RunConfig, base: Path) -> RunConfig:
    """Relative paths in a config file are relative to the file, not to wherever the command was run (an
    `oci://` suite is a reference, kept as it is)."""
    from assay_runner.contract.oci_reference import OCI_SCHEME

    def absolute(value: str | None) -> str | None:
        return None if value is None else str(base / value) if not Path(value).is_absolute() else value

    agent = config.agent.model_copy(update={"answers": absolute(config.agent.answers)})
    cassettes = (
        config.cassettes.model_copy(update={"dir": absolute(config.cassettes.dir)})
        if config.cassettes
        else None
    )
    output = config.output.model_copy(update={"dir": absolute(config.output.dir)})
    return config.model_copy(
        update={
            "suite": config.suite if config.suite.startswith(OCI_SCHEME) else absolute(config.suite),
            "kb": absolute(config.kb),
            "brain": absolute(config.brain),
            "keys": absolute(config.keys),
            "answers_dir": absolute(config.answers_dir),
            "agent": agent,
            "cassettes": cassettes,
            "output": output,
        }
    )
