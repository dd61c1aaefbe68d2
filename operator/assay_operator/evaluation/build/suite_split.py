"""A suite ConfigMap split at its trust boundary by the runner's own rule (`contract.split_suite_files`, what
`assay split` writes): the public part (suite.yaml with the judges, questions.yaml, the code judges' files)
and the key (keys.yaml). Any other key of the ConfigMap (a README, a reviewer's notes) is in neither: nothing
names it public, so no answer pod mounts it.

The operator reads only the structure (which tickets, which keys); the runner validates the suite itself, so
a bad suite fails its Job with the runner's exact message (exit 2). Pure: data in, data out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay_runner.contract import CUSTOMERS_FILE, KEYS_FILE, SuiteSplitError, judge_scale, split_suite_files
from assay_runner.contract import threshold_override_problems as refused_overrides

SUITE_FILE = "suite.yaml"
__all__ = [
    "CUSTOMERS_FILE",
    "KEYS_FILE",
    "SuiteSplitError",
    "split_suite",
    "suite_parts",
    "threshold_override_problems",
]


def _load_yaml(text: str, where: str) -> Any:
    import yaml

    from assay_runner.contract.yaml_scalars import strict_load

    try:
        return strict_load(text)  # numbers as the runner reads them (`1:30` is not 90)
    except yaml.YAMLError as exc:
        raise SuiteSplitError(f"{where} is not valid YAML: {exc}") from None


def split_suite(data: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """A suite ConfigMap's keys split into the public part and the key (`{keys.yaml: ...}`), as `assay split`
    splits the same files. A ConfigMap that already holds keys.yaml is joined and split again."""
    public, key, _ = suite_parts(data)
    return public, key


def suite_parts(data: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str], dict[str, str] | None]:
    """`split_suite`, and the customers part (`{customers.yaml: ...}`) as `assay split --customer` writes it:
    None when no ticket is a conversation."""
    parts = split_suite_files({name: text.encode() for name, text in data.items()})
    public = {name: content.decode() for name, content in parts.public.items()}
    customers = {CUSTOMERS_FILE: parts.customers.decode()} if parts.customers is not None else None
    return public, {KEYS_FILE: parts.keys.decode()}, customers


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
