"""Events on Assay's resources, for `kubectl describe` and `kubectl get events`.

Not kopf.info: kopf drops that below settings.posting.level (WARNING), which keeps kopf's own chatter out
of the Events; our Normal Events go through kopf.event, which that level does not filter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import kopf

from assay_operator import bounded

MAX_MESSAGE = 1024


def _reference(obj: Mapping[str, Any]) -> kopf.Body:
    """What kopf needs to address an Event: apiVersion, kind and metadata (name, namespace, uid)."""
    return cast(
        kopf.Body, {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": obj["metadata"]}
    )


def normal(obj: Mapping[str, Any], reason: str, message: str) -> None:
    kopf.event(_reference(obj), type="Normal", reason=reason, message=bounded.text(message, MAX_MESSAGE))


def warning(obj: Mapping[str, Any], reason: str, message: str) -> None:
    kopf.event(_reference(obj), type="Warning", reason=reason, message=bounded.text(message, MAX_MESSAGE))
