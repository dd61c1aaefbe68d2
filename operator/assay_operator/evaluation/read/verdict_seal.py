"""The operator's seal on the decision an Evaluation's status states — the gate's own outcome as much as an
override: `verdict`, `score`, the judges' means, the Ready and Completed conditions (their status, reason
and generation: what kstatus, Argo CD and `kubectl wait` act on), bound to the run they are of
(`observedGeneration`, `jobName`, whose name holds the rerun token's hash) and to the Evaluation's uid. An
HMAC-SHA256 under the operator's decision key (assay_operator.seals), in `status.verdictSeal`.

Every status the operator writes goes through `sealed` (evaluation/steps/publish.py), in the same patch as
the fields it covers: a write that leaves the decision as it is keeps the stored seal; one that changes it
carries the seal of the decision it leaves stored (its fields merged over the status as read). The operator
never vouches for a decision it did not write: over a stored decision that does not verify, only a write that
sets every decisive field itself is sealed. A decision that does not verify — written around admission: a
Blocked flipped to Pass, an old sealed block copied onto a newer run — is undone (evaluation/steps/
verdict.py). Pure: no cluster.
"""

from __future__ import annotations

from assay_operator import conditions, seals
from assay_operator.evaluation.api import EvaluationStatus

KIND = "verdict"
"""The kind of decision the seal names (an override's is "override")."""
FIELDS = ("verdict", "score", "judges", "observed_generation", "job_name")
CONDITIONS = (conditions.READY, conditions.COMPLETED)


def decision(status: EvaluationStatus) -> dict[str, object]:
    """The decisive fields of `status`, as the seal covers them. A judge whose mean is null is left out, as
    the stored status leaves it out (a merge patch's null removes the key)."""
    view: dict[str, object] = status.model_dump(mode="json", include=set(FIELDS))
    judges = {name: mean for name, mean in (status.judges or {}).items() if mean is not None}
    view["judges"] = judges or None
    for kind in CONDITIONS:
        found = conditions.find(status.conditions, kind)
        view[kind] = None if found is None else [found.status, found.reason, found.observed_generation]
    return view


UNDECIDED = decision(EvaluationStatus())


def written_by_operator(status: EvaluationStatus, uid: str) -> bool:
    """The decision `status` states carries the operator's seal for this Evaluation (`uid`); a status that
    states none yet (a new Evaluation) needs none."""
    view = decision(status)
    if status.verdict_seal is None:
        return view == UNDECIDED
    return seals.verifies(KIND, uid, view, status.verdict_seal)


def stored_after(written: EvaluationStatus, current: EvaluationStatus) -> EvaluationStatus:
    """The decisive fields as the merge patch `written` leaves them over `current` (a field `written` does not
    set is kept; `judges` is a map, merged key by key; `conditions` a list, replaced whole)."""
    fields: dict[str, object] = {}
    for name in (*FIELDS, "conditions"):
        fields[name] = getattr(written if name in written.model_fields_set else current, name)
    if "judges" in written.model_fields_set and written.judges is not None and current.judges is not None:
        fields["judges"] = {**current.judges, **written.judges}
    return EvaluationStatus.model_construct(**fields)  # type: ignore[arg-type]


def sets_every_field(written: EvaluationStatus) -> bool:
    """`written` states a whole decision of its own, leaving nothing of the stored one."""
    return set((*FIELDS, "conditions")) <= written.model_fields_set and all(
        conditions.find(written.conditions, kind) is not None for kind in CONDITIONS
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
