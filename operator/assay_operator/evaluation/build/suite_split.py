"""A suite ConfigMap split at its trust boundary, as `assay split` lays a suite out: the public part
(suite.yaml with the judges, questions.yaml, any other file such as judge code) and the key (keys.yaml).

The operator reads only the structure (which tickets, which keys); the runner validates the suite itself, so
a bad suite fails its Job with the runner's exact message (exit 2). Pure: data in, data out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay_runner.contract import judge_scale
from assay_runner.contract import threshold_override_problems as refused_overrides

SUITE_FILE, QUESTIONS_FILE, KEYS_FILE = "suite.yaml", "questions.yaml", "keys.yaml"


class SuiteSplitError(ValueError):
    """The suite ConfigMap cannot be split (not YAML, no suite.yaml, tickets not a list...)."""


def _load_yaml(text: str, where: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SuiteSplitError(f"{where} is not valid YAML: {exc}") from None


def _dump_yaml(data: object) -> str:
    import yaml

    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110))


def split_suite(data: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A suite ConfigMap's files split into the public part (suite.yaml with the judges, questions.yaml,
    any other file such as judge code) and the key (keys.yaml), as `assay split` lays them out. Only the
    structure is read here; the runner validates the suite itself (a bad suite fails its Job, exit 2). A
    ConfigMap that already holds keys.yaml is taken as split."""
    if SUITE_FILE not in data:
        raise SuiteSplitError(f"it has no {SUITE_FILE} key (keys: {', '.join(sorted(data)) or 'none'})")
    if KEYS_FILE in data:
        return {k: v for k, v in data.items() if k != KEYS_FILE}, {KEYS_FILE: data[KEYS_FILE]}
    suite = _load_yaml(data[SUITE_FILE], SUITE_FILE)
    if not isinstance(suite, dict):
        raise SuiteSplitError(f"{SUITE_FILE} must be a mapping")
    tickets_file = suite.get("ticketsFile")
    consumed = {SUITE_FILE}
    if tickets_file is not None:
        if not isinstance(tickets_file, str) or tickets_file not in data:
            raise SuiteSplitError(
                f"{SUITE_FILE} names ticketsFile {tickets_file!r}, which is not a key of it"
            )
        document = _load_yaml(data[tickets_file], tickets_file)
        tickets = document.get("tickets") if isinstance(document, dict) else None
        consumed.add(tickets_file)
    else:
        tickets = suite.get("tickets")
    if not isinstance(tickets, list) or not all(isinstance(t, dict) and "id" in t for t in tickets):
        raise SuiteSplitError("its tickets must be a list of mappings, each with an id")
    public_suite = {k: v for k, v in suite.items() if k not in ("tickets", "ticketsFile")}
    public_suite["ticketsFile"] = QUESTIONS_FILE
    questions = [{k: v for k, v in ticket.items() if k != "key"} for ticket in tickets]
    keys = {str(ticket["id"]): ticket.get("key") or {} for ticket in tickets}
    header = "# Split by the Assay operator: {what}.\n"
    public = {k: v for k, v in data.items() if k not in consumed}
    public[SUITE_FILE] = header.format(what="the suite's public part") + _dump_yaml(public_suite)
    public[QUESTIONS_FILE] = header.format(what="the questions") + _dump_yaml({"tickets": questions})
    return public, {KEYS_FILE: header.format(what="the answer keys") + _dump_yaml({"keys": keys})}


def threshold_override_problems(data: dict[str, str], thresholds: Mapping[str, float]) -> list[str]:
    """What is wrong with an Evaluation's `gate.thresholds` against the judges its suite ConfigMap names: a
    judge the suite does not have, or a value off the judge's scale. The runner would refuse the same
    overrides (exit 2) by the same rule, in the same words (`contract.seam.threshold_override_problems`);
    checked here, the Evaluation is refused before any Job starts. Only the structure is read, as for the
    split."""
    if not thresholds or SUITE_FILE not in data:
        return []
    suite = _load_yaml(data[SUITE_FILE], SUITE_FILE)
    judges = suite.get("judges") if isinstance(suite, dict) else None
    scales: dict[str, tuple[float, float]] = {}
    for judge in judges if isinstance(judges, list) else []:
        if not isinstance(judge, dict) or not isinstance(judge.get("name"), str):
            continue  # the runner names what is wrong with the suite itself
        scale = judge.get("scale")
        given = (float(scale[0]), float(scale[1])) if isinstance(scale, list) and _is_pair(scale) else None
        scales[judge["name"]] = judge_scale(str(judge.get("type")), given)
    return [f"{where}: {what}" for where, what in refused_overrides(thresholds, scales)]


def _is_pair(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    )
