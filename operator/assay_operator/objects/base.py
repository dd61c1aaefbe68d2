"""What every object the operator builds shares: the API's JSON (camelCase, unset fields left out), the
frozen model that forbids a misspelt field, the object's metadata; the ConfigMap; and the typed dicts of an
RBAC rule and a CRD's printer column."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiJson(BaseModel):
    """A model the operator sends to the API (what it builds, and the Lease it reads and writes back)."""

    def body(self) -> dict[str, Any]:
        """The API's JSON for this object: camelCase keys, fields left unset (None) omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class KubeModel(ApiJson):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class PolicyRule(TypedDict):
    """An RBAC rule as a Role's `rules` (and the chart's rule files) hold it."""

    apiGroups: list[str]
    resources: list[str]
    verbs: list[str]


class PrinterColumn(TypedDict):
    """One of a CRD's `additionalPrinterColumns` (what `kubectl get` shows)."""

    name: str
    type: Literal["string", "boolean", "date", "integer", "number"]
    jsonPath: str
    priority: NotRequired[int]


class ObjectMeta(KubeModel):
    name: str
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None


class ConfigMap(KubeModel):
    api_version: Literal["v1"] = "v1"
    kind: Literal["ConfigMap"] = "ConfigMap"
    metadata: ObjectMeta
    immutable: bool | None = None
    data: dict[str, str] | None = None
    binary_data: dict[str, str] | None = None
