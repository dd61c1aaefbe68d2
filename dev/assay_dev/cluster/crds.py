"""Waiting for a CustomResourceDefinition to be usable, without `kubectl wait --for=condition=Established`.

Right after a CRD is created its `status.conditions` is null until the apiserver's naming and establishing
controllers write them, and `kubectl wait --for=condition=...` fails at once on that state
(`.status.conditions accessor error: <nil> is of the type <nil>, expected []interface{}`) instead of waiting.
So poll: no conditions yet means "not yet", and the resource's list endpoint must answer too (Established
comes a moment before the endpoint is routed).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .kubeapi import ApiError, KubeApi
from .wait import wait_until

CRDS_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def has_condition(obj: dict[str, Any], kind: str, status: str = "True") -> bool:
    """Whether obj carries condition `kind` with `status`; missing or null conditions are simply absent."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == kind and c.get("status") == status for c in conditions)


def wait_established(api: KubeApi, names: Iterable[str], timeout: float = 60.0) -> None:
    """Wait until each named CRD is Established and its resource's list endpoint serves."""
    for name in names:
        seen: list[dict[str, Any]] = [{}]

        def established(name: str = name, seen: list[dict[str, Any]] = seen) -> bool:
            seen[0] = api.get(f"{CRDS_PATH}/{name}")
            return has_condition(seen[0], "Established")

        def conditions(seen: list[dict[str, Any]] = seen) -> str:
            return repr((seen[0].get("status") or {}).get("conditions"))

        wait_until(
            established, timeout=timeout, what=f"the CRD {name} to be Established", describe=conditions
        )
        spec = seen[0]["spec"]
        served = next(v["name"] for v in spec["versions"] if v.get("served"))
        list_path = f"/apis/{spec['group']}/{served}/{spec['names']['plural']}"

        def serving(list_path: str = list_path) -> bool:
            try:
                api.get(list_path, limit=1)
                return True
            except ApiError as error:
                if error.status in (404, 429, 503):  # not routed yet; storage (re)initialising
                    return False
                raise

        wait_until(serving, timeout=timeout, what=f"{list_path} to serve")
