"""The operator's seal on the decision an Evaluation's status states — the gate's own outcome as much as an
override: `verdict`, `score`, the judges' means, the Ready and Completed conditions (their status, reason
and generation: what kstatus, Argo CD and `kubectl wait` act on) and the figures a Campaign decides on
(`judgesPassing`, `shadowJudges`, `rules`, `tickets`, `repetitions`, `paired`, and `usage`, whose cost a
Campaign's key may rank on), bound to the run they are of
(`observedGeneration`, `jobName`, whose name holds the rerun token's hash) and to the Evaluation's uid. An
HMAC-SHA256 under the operator's decision key (assay_operator.seals), in `status.verdictSeal`.

Every status the operator writes goes through `sealed` (evaluation/steps/publish.py), in the same patch as
the fields it covers: a write that leaves the decision as it is keeps the stored seal; one that changes it
carries the seal of the decision it leaves stored (the patch merged over the status as read, as the
apiserver merges it). The operator
never vouches for a decision it did not write: over a stored decision that does not verify, only a write that
sets every decisive field itself is sealed. A decision that does not verify — written around admission: a
Blocked flipped to Pass, an old sealed block copied onto a newer run — is undone (evaluation/steps/
verdict.py). Pure: no cluster.
"""

from __future__ import annotations

from typing import Any

from assay_operator import conditions, seals
from assay_operator.evaluation.api import EvaluationStatus
from assay_operator.schema import ApiModel

KIND = "verdict"
"""The kind of decision the seal names (an override's is "override")."""
DECIDING = ("verdict", "score", "judges")
"""What GitOps tools and people read as the decision, with the Ready and Completed conditions."""
FIGURES = ("judges_passing", "shadow_judges", "rules", "tickets", "repetitions", "paired", "usage")
"""What a Campaign decides on besides (campaign/standings.py): sealed with the decision. (`inputs`, whose
suite digest says which Evaluations compare, is not: the runs write it in parts.)"""
RUN = ("observed_generation", "job_name")
"""Which run the decision is of."""
FIELDS = (*DECIDING, *FIGURES, *RUN)
CONDITIONS = (conditions.READY, conditions.COMPLETED)


def decision(status: EvaluationStatus) -> dict[str, object]:
    """The decisive fields of `status`, as the seal covers them."""
    view: dict[str, object] = status.model_dump(mode="json", include=set(FIELDS))
    for kind in CONDITIONS:
        found = conditions.find(status.conditions, kind)
        view[kind] = None if found is None else [found.status, found.reason, found.observed_generation]
    return view


def undecided(status: EvaluationStatus) -> bool:
    """The status states no decision yet (a new Evaluation, whose status the CRD defaults): none to seal."""
    return all(getattr(status, name) is None for name in DECIDING) and all(
        conditions.find(status.conditions, kind) is None for kind in CONDITIONS
    )


def written_by_operator(status: EvaluationStatus, uid: str) -> bool:
    """The decision `status` states carries the operator's seal for this Evaluation (`uid`); a status that
    states none yet needs none."""
    if status.verdict_seal is None:
        return undecided(status)
    return seals.verifies(KIND, uid, decision(status), status.verdict_seal)


def merge_patch(stored: Any, patch: Any) -> Any:
    """RFC 7386, as the apiserver applies the operator's status patches: maps merge key by key, a null
    removes the key, anything else (a list included) replaces."""
    if not isinstance(patch, dict):
        return patch
    result = dict(stored) if isinstance(stored, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def stored_after(written: EvaluationStatus, current: EvaluationStatus) -> EvaluationStatus:
    """The status as the apiserver stores the merge patch `written` over `current`, read back as a later
    event reads it."""
    before = current.model_dump(by_alias=True, mode="json", exclude_unset=True, exclude_none=True)
    return EvaluationStatus.model_validate(merge_patch(before, written.to_patch()))


def _whole(value: object) -> bool:
    """A merge patch stores `value` whole: None (removes), a scalar or a list (replaces), an object that sets
    each of its fields (the schema prunes any other key) — not an object setting some, merged key by key."""
    return not isinstance(value, ApiModel) or set(type(value).model_fields) <= value.model_fields_set


def sets_every_field(written: EvaluationStatus) -> bool:
    """`written` states a whole decision of its own, leaving nothing of the stored one."""
    return (
        set((*FIELDS, "conditions")) <= written.model_fields_set
        and all(_whole(getattr(written, name)) for name in FIELDS)
        and all(conditions.find(written.conditions, kind) is not None for kind in CONDITIONS)
    )


def sealed(written: EvaluationStatus, current: EvaluationStatus, uid: str) -> EvaluationStatus:
    """`written`, the status the operator is about to patch over `current` (as read), with the seal of the
    decision it leaves stored — or as it is when it leaves the decision unchanged (the stored seal holds),
    or when the stored decision is not the operator's and `written` does not replace all of it (sealing it
    would vouch for what someone else wrote: it is left to be undone)."""
    after = decision(stored_after(written, current))
    unchanged_or_foreign = after == decision(current) or not written_by_operator(current, uid)
    if unchanged_or_foreign and not sets_every_field(written):
        return written
    result = written.model_copy()
    result.verdict_seal = seals.seal(KIND, uid, after)
    return result


def seal_of(status: EvaluationStatus, uid: str) -> str:
    """The seal of the decision `status` states, as stored."""
    return seals.seal(KIND, uid, decision(status))
