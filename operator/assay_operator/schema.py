"""The base of the typed API models that are the single source of truth for the CRDs.

`crdgen` turns each model into an OpenAPI schema: field docstrings become `description`s, bounds
`minimum`/`maximum`, literals `enum`s, and `cel_rules` `x-kubernetes-validations`. The same models type the
status the operator writes: `extra="forbid"` makes a field the CRD does not declare a ValidationError at the
point where the status is built, instead of a key the apiserver's structural schema silently prunes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

GROUP = "assay.dev"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
DNS_NAME = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"


class ApiModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        use_attribute_docstrings=True,
        validate_assignment=True,
    )
    # CEL rules (x-kubernetes-validations) attached to this object in the CRD: (rule, message).
    cel_rules: ClassVar[tuple[tuple[str, str], ...]] = ()

    def to_patch(self) -> dict[str, Any]:
        """The fields this object was built with, camelCase, as a merge patch: a field set to None clears the
        stored value, a field never set leaves it as it is."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="json")


def problems(exc: ValidationError) -> str:
    """A spec's validation errors on one line, each with its field path (for status messages)."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
