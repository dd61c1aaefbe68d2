"""A person's override of one Evaluation's verdict (assay_operator.approvals): the annotations
override.assay.dev/verdict, /reason and /by (`<user>@g<generation>:<the verdict overridden>`) — admitted only
from a user allowed to override, naming that very user, this generation and its verdict — are recorded into
the status (status.override: who, why, when, the gate's own verdict, sealed by the operator; the verdict and
conditions follow it) and an Event, then removed: each request overrides the verdict it names, never a later
run's. A request made before the generation has a verdict, or naming another generation or verdict, is
refused with a Warning Event.

An override in the status that the operator did not write (its seal does not verify: assay_operator.seals)
is undone by `undo_foreign`: removed, the verdict Blocked (reason DecisionReverted) until the Evaluation runs
again, and a Warning Event naming who wrote it as managedFields record it."""

from __future__ import annotations

import logging

from assay_operator import approvals, conditions, events, field_managers, kube
from assay_operator.evaluation.api import GROUP, PLURAL, VERSION
from assay_operator.evaluation.build import names
from assay_operator.evaluation.read import reconcile, verdict_seal
from assay_operator.evaluation.steps.watched import Watched
from assay_runner.vocabulary import Verdict

log = logging.getLogger("assay.operator.override")


def take_latest(namespace: str, name: str) -> None:
    """`take` on the Evaluation as it is now (a retry must not act on the body of an older event)."""
    watched = Watched.read(namespace, name)
    if watched is not None:
        take(watched)


def take(watched: Watched) -> None:
    namespace, name, body, annotations = watched.namespace, watched.name, watched.body, watched.annotations
    verdict = annotations.get(approvals.OVERRIDE_VERDICT)
    if verdict is None:
        return
    reason = str(annotations.get(approvals.OVERRIDE_REASON) or "").strip()
    by = str(annotations.get(approvals.OVERRIDE_BY) or "").strip()
    bound = approvals.parse_binding(by)
    generation, current = watched.generation, watched.status
    decided = current.verdict is not None and conditions.holds(
        current.conditions, conditions.COMPLETED, generation
    )
    if current.override is not None and not reconcile.override_written_by_operator(
        current.override, watched.uid
    ):
        undo_foreign(watched)  # the verdict it would override is not the operator's: undone first
        return
    if not verdict_seal.written_by_operator(current, watched.uid):
        return  # the verdict it would override is not the operator's: undone first (steps/verdict.py)
    problem = approvals.binding_problem(by, generation, current.verdict if decided else None, "verdict")
    if verdict not in ("Pass", "Blocked") or not reason or not by:
        events.warning(
            body, "OverrideIgnored", f"an override needs {', '.join(approvals.OVERRIDE_ANNOTATIONS)}"
        )
    elif not decided:
        events.warning(
            body,
            "OverrideIgnored",
            f"generation {generation} has no verdict yet: nothing to override (removed)",
        )
    elif problem is not None or bound is None:
        events.warning(body, "OverrideIgnored", f"{approvals.OVERRIDE_BY}={by}: {problem} (removed)")
    else:
        chosen: Verdict = "Pass" if verdict == "Pass" else "Blocked"
        user, uid = bound.user, watched.uid
        written = watched.write(
            lambda: reconcile.overridden_status(
                current, generation, chosen, reason, user, conditions.now(), uid
            )
        )
        if written is None:
            return  # not recorded (gone, or Stalled with the reason): keep the request
        events.warning(body, "VerdictOverridden", written.message or "")
        log.info("Evaluation %s/%s: verdict overridden to %s by %s", namespace, name, verdict, user)
    spent = {key: None for key in approvals.OVERRIDE_ANNOTATIONS}
    kube.if_present(
        lambda: kube.custom().patch_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURAL, name, {"metadata": {"annotations": spent}}
        )
    )


def foreign(watched: Watched) -> bool:
    """The status holds an override the operator did not seal (written around admission)."""
    override = watched.status.override
    return override is not None and not reconcile.override_written_by_operator(override, watched.uid)


def undo_foreign_latest(namespace: str, name: str) -> None:
    watched = Watched.read(namespace, name)
    if watched is not None and foreign(watched):
        undo_foreign(watched)


def undo_foreign(watched: Watched) -> None:
    override = watched.status.override
    assert override is not None
    writer = field_managers.last_writer(watched.body, "status", "override")
    message = (
        f"status.override ({override.verdict} by {override.by}, generation {override.generation}) was not "
        f"written by the operator (no valid seal); written by {writer}: undone, and the verdict is Blocked "
        f"until the Evaluation runs again (set {names.RERUN_ANNOTATION})"
    )
    generation, current = watched.generation, watched.status
    written = watched.write(lambda: reconcile.decision_reverted(current, generation, message))
    if written is None:
        return
    events.warning(watched.body, "DecisionReverted", message)
    log.info("Evaluation %s/%s: %s", watched.namespace, watched.name, message)  # the Event warns
