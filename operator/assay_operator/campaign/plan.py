"""Planning a Campaign's children: which Evaluations it wants (one per candidate or grid cell, and one for the
incumbent), and which to create, re-spec, delete or hold back now (at most maxParallel unfinished at once).

Pure: the handlers list the Campaign's Evaluations (children.parse_children), call `entries` and `plan`, and
apply the plan.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from assay_operator.campaign.api import (
    CHILD_SETTINGS,
    CampaignSpec,
    CandidateSpec,
    GridModel,
    GridSpec,
)
from assay_operator.campaign.children import Child, finished, normalised_spec
from assay_operator.evaluation.build.names import bounded_name
from assay_operator.schema import API_VERSION
from assay_runner.core.standing import Role

LABEL_CAMPAIGN = "assay.dev/campaign"
LABEL_CANDIDATE = "assay.dev/candidate"
LABEL_ROLE = "assay.dev/role"
# The Evaluation fields a Campaign shares with each of its Evaluations, copied as they are.
SHARED_FIELDS = (
    "suite",
    "tickets",
    "repetitions",
    "concurrency",
    "gate",
    "gateway",
    "judge_model",
    "cassettes",
    "mlflow",
    "resources",
    "deadline_seconds",
    "queue_name",
    *CHILD_SETTINGS,
)
# The ones a listed candidate (or the incumbent) may set for itself: its value replaces the shared one.
OWN_FIELDS = (*CHILD_SETTINGS, "resources", "concurrency")
MERGED_FIELDS = ("prices",)
"""Merged key by key over the shared value (a candidate prices its own model, the rest stay shared)."""


@dataclass(frozen=True)
class Entry:
    """One Evaluation the Campaign wants: a candidate or the incumbent."""

    role: Role
    candidate: CandidateSpec
    evaluation: str
    """The Evaluation's name."""
    spec: dict[str, Any]
    """Its spec as JSON, camelCase, as the apiserver stores it (no nulls)."""
    normal: dict[str, Any] | None = None
    """The spec normalised (children.normalised_spec), to compare with an existing Evaluation's."""


def evaluation_name(campaign: str, candidate: str) -> str:
    return bounded_name(campaign, f"-{candidate}", 253)


def campaign_label(campaign: str) -> str:
    return bounded_name(campaign, "", 63)


def child_labels(campaign: str, entry: Entry) -> dict[str, str]:
    return {
        "app.kubernetes.io/managed-by": "assay-operator",
        "app.kubernetes.io/part-of": "assay",
        LABEL_CAMPAIGN: campaign_label(campaign),
        LABEL_CANDIDATE: entry.candidate.name,
        LABEL_ROLE: entry.role,
    }


def evaluation_spec(spec: CampaignSpec, candidate: CandidateSpec) -> dict[str, Any]:
    agent = candidate.agent or spec.agent
    if agent is None:  # the CRD's CEL rules refuse this; checked again for objects that predate them
        raise ValueError(f"candidate {candidate.name} has no agent and spec.agent is not set")
    out: dict[str, Any] = {
        "brain": candidate.brain.model_dump(by_alias=True, exclude_none=True, mode="json"),
        "agent": agent.model_dump(by_alias=True, exclude_none=True, mode="json"),
    }
    for name in SHARED_FIELDS:
        value = _json(getattr(spec, name))
        own = _json(getattr(candidate, name)) if name in OWN_FIELDS else None
        if own is not None and name in MERGED_FIELDS and isinstance(value, dict):
            value = {**value, **own}
        elif own is not None:
            value = own
        if value is None:
            continue
        out[CampaignSpec.model_fields[name].alias or name] = value
    return out


def _json(value: object) -> Any:
    """A spec value as the Evaluation's JSON (camelCase, no nulls)."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    return value


def grid_candidates(grid: GridSpec) -> list[CandidateSpec]:
    """One candidate per cell, named `<brain>-<agent>[-<model>]` (the names `assay compare --grid` gives),
    the last axis varying fastest."""
    models: list[GridModel | None] = list(grid.models) if grid.models else [None]
    out = []
    for brain, agent, model in itertools.product(grid.brains, grid.agents, models):
        parts = [brain.name, agent.name] + ([model.name] if model is not None else [])
        spec = agent.agent if model is None else agent.agent.model_copy(update={"model": model.model})
        # Built, not validated: each part is checked by its own pattern, and the joined name (up to 62
        # characters) is longer than a listed candidate's may be.
        out.append(CandidateSpec.model_construct(name="-".join(parts), brain=brain.brain, agent=spec))
    return out


def candidates_of(spec: CampaignSpec) -> list[CandidateSpec]:
    if spec.grid is not None and spec.candidates:
        raise ValueError("give either candidates or grid, not both")
    if spec.grid is not None:
        return grid_candidates(spec.grid)
    if not spec.candidates:
        raise ValueError("give candidates or a grid")
    return list(spec.candidates)


def entries(campaign: str, spec: CampaignSpec) -> list[Entry]:
    """Incumbent first: it is the reference every candidate is measured against."""
    wanted: list[tuple[Role, CandidateSpec]] = [("incumbent", spec.incumbent)] if spec.incumbent else []
    wanted += [("candidate", c) for c in candidates_of(spec)]
    names = [c.name for _, c in wanted]
    if len(set(names)) != len(names):
        raise ValueError(f"candidate names must be unique (the incumbent's included): {sorted(names)}")
    out = []
    for role, candidate in wanted:
        child_spec = evaluation_spec(spec, candidate)
        name = evaluation_name(campaign, candidate.name)
        out.append(Entry(role, candidate, name, child_spec, normalised_spec(child_spec)))
    return out


def evaluation_body(campaign: str, entry: Entry) -> dict[str, Any]:
    """The Evaluation to create, as JSON."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Evaluation",
        "metadata": {"name": entry.evaluation, "labels": child_labels(campaign, entry)},
        "spec": entry.spec,
    }


def up_to_date(entry: Entry, existing: Mapping[str, Child]) -> Child | None:
    """The entry's Evaluation when it exists with the spec the Campaign wants now (equal once both have the
    defaults filled in)."""
    have = existing.get(entry.evaluation)
    if have is None or have.spec is None or entry.normal is None:
        return None
    return have if have.spec == entry.normal else None


@dataclass
class Plan:
    create: list[Entry] = field(default_factory=list)
    update: list[Entry] = field(default_factory=list)
    """Existing Evaluations whose spec no longer matches the Campaign's: their spec is replaced."""
    delete: list[str] = field(default_factory=list)
    """Evaluations of candidates no longer in the spec."""
    waiting: list[Entry] = field(default_factory=list)
    """Wanted but not started: maxParallel are running."""


def plan(wanted: list[Entry], existing: Mapping[str, Child], max_parallel: int) -> Plan:
    """What to do now. At most `max_parallel` Evaluations run at a time — a re-run after a spec change
    counts like a new one — and entries start in order, so concurrent reconciles with slightly stale views
    pick the same next ones."""
    out = Plan()
    names = {e.evaluation for e in wanted}
    out.delete = sorted(name for name in existing if name not in names)
    current = {e.evaluation: up_to_date(e, existing) for e in wanted}
    running = sum(1 for have in current.values() if have is not None and not finished(have))
    for entry in wanted:
        if current[entry.evaluation] is not None:
            continue
        if running >= max_parallel:
            out.waiting.append(entry)
            continue
        (out.update if entry.evaluation in existing else out.create).append(entry)
        running += 1
    return out
