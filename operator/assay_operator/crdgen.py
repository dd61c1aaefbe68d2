"""Generate the Evaluation CRD from the typed models: `python -m assay_operator.crdgen > crds/...yaml`.

The schema is made structural on purpose: `$defs` are inlined, `X | None` becomes `nullable: true`, titles
are dropped, every property keeps its description, and each model's CEL rules are attached as
`x-kubernetes-validations`. The output is deterministic so a test can compare it with the committed file.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml
from pydantic import BaseModel

from assay_operator import api

HEADER = "# GENERATED from assay_operator/api.py by `make crds` (assay_operator.crdgen). Do not edit.\n"


def _models(root: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Every model reachable from `root`, by the name pydantic uses in $defs."""
    found: dict[str, type[BaseModel]] = {}
    stack: list[type[BaseModel]] = [root]
    while stack:
        model = stack.pop()
        if model.__name__ in found:
            continue
        found[model.__name__] = model
        for field in model.model_fields.values():
            stack.extend(_nested_models(field.annotation))
    return found


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _nested_models(arg)]


class SchemaConverter:
    def __init__(self, root: type[BaseModel]) -> None:
        self.schema = root.model_json_schema(by_alias=True, mode="validation")
        self.defs: dict[str, Any] = self.schema.pop("$defs", {})
        self.models = _models(root)

    def convert(self, node: dict[str, Any], model_name: str | None = None) -> dict[str, Any]:
        node = dict(node)
        if "$ref" in node:
            name = node.pop("$ref").rsplit("/", 1)[-1]
            merged = {**self.defs[name], **{k: v for k, v in node.items() if k == "description"}}
            return self.convert(merged, name)
        for key in ("anyOf", "oneOf"):
            if key in node:
                raw = node.pop(key)
                options = [o for o in raw if o.get("type") != "null"]
                nullable = len(options) < len(raw)
                if len(options) != 1:
                    raise ValueError(f"not structural: {key} with {options}")
                base = self.convert(options[0])
                extra = {k: v for k, v in node.items() if k in ("description", "default")}
                return {**base, **extra, "nullable": nullable}
        out: dict[str, Any] = {}
        if "description" in node:
            out["description"] = " ".join(str(node["description"]).split())
        if "const" in node:
            node["enum"] = [node.pop("const")]
        kind = node.get("type") or ("string" if "enum" in node else None)
        if kind is None and "properties" in node:
            kind = "object"
        if kind is None:
            raise ValueError(f"not structural: no type in {node}")
        out["type"] = kind
        for key, target in (
            ("enum", "enum"),
            ("pattern", "pattern"),
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("minLength", "minLength"),
            ("maxLength", "maxLength"),
            ("minItems", "minItems"),
            ("maxItems", "maxItems"),
            ("default", "default"),
            ("minProperties", "minProperties"),
            ("maxProperties", "maxProperties"),
            ("exclusiveMinimum", "exclusiveMinimum"),
        ):
            if key in node:
                out[target] = node[key]
        if kind == "number" and "exclusiveMinimum" in out:
            out["minimum"], out["exclusiveMinimum"] = out["exclusiveMinimum"], True
        if kind == "object":
            properties = node.get("properties", {})
            if properties:
                out["properties"] = {name: self.convert(prop) for name, prop in properties.items()}
            if node.get("required"):
                out["required"] = list(node["required"])
            additional = node.get("additionalProperties")
            if isinstance(additional, dict):
                out["additionalProperties"] = self.convert(additional)
        if kind == "array":
            out["items"] = self.convert(node["items"])
        model = self.models.get(model_name or "")
        if model is not None:
            rules = getattr(model, "cel_rules", ())
            if rules:
                out["x-kubernetes-validations"] = [
                    {"rule": rule, "message": message} for rule, message in rules
                ]
        return out

    def root(self) -> dict[str, Any]:
        return self.convert(self.schema, self.schema.get("title"))


def _strip_defaults_on_nullable(schema: Any) -> Any:
    # A null default is no default for the apiserver; drop it rather than have it written into objects.
    if isinstance(schema, dict):
        if schema.get("default", 0) is None:
            schema.pop("default")
        for value in schema.values():
            _strip_defaults_on_nullable(value)
    elif isinstance(schema, list):
        for value in schema:
            _strip_defaults_on_nullable(value)
    return schema


def evaluation_crd() -> dict[str, Any]:
    spec = _strip_defaults_on_nullable(SchemaConverter(api.EvaluationSpec).root())
    status = _strip_defaults_on_nullable(SchemaConverter(api.EvaluationStatus).root())
    spec["description"] = "What to evaluate: the brain, the suite, the agent and the gate."
    status["description"] = "The verdict of the observed generation, written by the operator."
    # Served on every read until the operator writes status: kstatus reads observedGeneration 0 as "in
    # progress", where an object with no status at all would count as Current (healthy) at once.
    status["default"] = {"observedGeneration": 0}
    conditions = status["properties"]["conditions"]
    conditions["x-kubernetes-list-type"] = "map"
    conditions["x-kubernetes-list-map-keys"] = ["type"]
    schema = {
        "type": "object",
        "description": "An evaluation of an agent's brain against a suite of tickets, reduced to a release "
        "verdict (Pass or Blocked).",
        "required": ["spec"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{api.PLURAL}.{api.GROUP}"},
        "spec": {
            "group": api.GROUP,
            "names": {
                "kind": api.KIND,
                "listKind": f"{api.KIND}List",
                "plural": api.PLURAL,
                "singular": api.SINGULAR,
                "shortNames": api.SHORT_NAMES,
                "categories": ["assay"],
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": api.VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": api.printer_columns(),
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def render(crds: list[dict[str, Any]]) -> str:
    return HEADER + "".join("---\n" + yaml.safe_dump(crd, sort_keys=False, width=110) for crd in crds)


def all_crds() -> list[dict[str, Any]]:
    return [evaluation_crd()]


def main() -> int:
    sys.stdout.write(render(all_crds()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
