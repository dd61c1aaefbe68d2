"""Generate the CRDs from the typed models: `python -m assay_operator.crdgen --out crds` (`--check crds`).

The schema is made structural on purpose: `$defs` are inlined, `X | None` becomes `nullable: true`, titles
are dropped, every property keeps its description, and each model's CEL rules are attached as
`x-kubernetes-validations`. The output is deterministic so a test can compare it with the committed file.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from assay_operator.campaign import api as campaign_api
from assay_operator.evaluation import api
from assay_operator.objects import PrinterColumn

HEADER = (
    "# GENERATED from the assay_operator API models by `make crds` (assay_operator.crdgen). Do not edit.\n"
)


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
        if node.get("x-kubernetes-int-or-string"):
            # A structural int-or-string (resource quantities): no type, the two options, string checks.
            keep = ("x-kubernetes-int-or-string", "anyOf", "pattern", "maxLength", "default")
            described = (
                {"description": " ".join(str(node["description"]).split())} if "description" in node else {}
            )
            return {**described, **{k: node[k] for k in keep if k in node}}
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


@dataclass(frozen=True)
class Kind:
    """One custom resource: its names, its typed spec and status, and how `kubectl get` shows it."""

    kind: str
    plural: str
    singular: str
    short_names: list[str]
    spec: type[BaseModel]
    status: type[BaseModel]
    printer_columns: list[PrinterColumn]
    description: str
    spec_description: str
    status_description: str


EVALUATION = Kind(
    kind=api.KIND,
    plural=api.PLURAL,
    singular=api.SINGULAR,
    short_names=api.SHORT_NAMES,
    spec=api.EvaluationSpec,
    status=api.EvaluationStatus,
    printer_columns=api.printer_columns(),
    description="An evaluation of an agent's brain against a suite of tickets, reduced to a release "
    "verdict (Pass or Blocked).",
    spec_description="What to evaluate: the brain, the suite, the agent and the gate.",
    status_description="The verdict of the observed generation, written by the operator.",
)
CAMPAIGN = Kind(
    kind=campaign_api.KIND,
    plural=campaign_api.PLURAL,
    singular=campaign_api.SINGULAR,
    short_names=campaign_api.SHORT_NAMES,
    spec=campaign_api.CampaignSpec,
    status=campaign_api.CampaignStatus,
    printer_columns=campaign_api.printer_columns(),
    description="Candidates (brain x agent x model) evaluated over the same tickets, ranked by the release "
    "rule's own reductions, with a promotion decision against the incumbent.",
    spec_description="The candidates, the incumbent, the shared evaluation settings and the release key.",
    status_description="The comparison and the promotion decision of the observed generation.",
)


def crd(kind: Kind) -> dict[str, Any]:
    spec = _strip_defaults_on_nullable(SchemaConverter(kind.spec).root())
    status = _strip_defaults_on_nullable(SchemaConverter(kind.status).root())
    spec["description"] = kind.spec_description
    status["description"] = kind.status_description
    # Served on every read until the operator writes status: kstatus reads observedGeneration 0 as "in
    # progress", where an object with no status at all would count as Current (healthy) at once.
    status["default"] = {"observedGeneration": 0}
    conditions = status["properties"]["conditions"]
    conditions["x-kubernetes-list-type"] = "map"
    conditions["x-kubernetes-list-map-keys"] = ["type"]
    schema = {
        "type": "object",
        "description": kind.description,
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
        "metadata": {"name": f"{kind.plural}.{api.GROUP}"},
        "spec": {
            "group": api.GROUP,
            "names": {
                "kind": kind.kind,
                "listKind": f"{kind.kind}List",
                "plural": kind.plural,
                "singular": kind.singular,
                "shortNames": kind.short_names,
                "categories": ["assay"],
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": api.VERSION,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": kind.printer_columns,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def evaluation_crd() -> dict[str, Any]:
    return crd(EVALUATION)


def campaign_crd() -> dict[str, Any]:
    return crd(CAMPAIGN)


def file_name(definition: dict[str, Any]) -> str:
    """`assay.dev_evaluations.yaml`: one file per CRD, named like controller-gen names them."""
    return f"{definition['spec']['group']}_{definition['spec']['names']['plural']}.yaml"


def render(crds: list[dict[str, Any]]) -> str:
    return HEADER + "".join("---\n" + yaml.safe_dump(one, sort_keys=False, width=110) for one in crds)


def all_crds() -> list[dict[str, Any]]:
    return [evaluation_crd(), campaign_crd()]


def rendered_files() -> dict[str, str]:
    return {file_name(one): render([one]) for one in all_crds()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assay_operator.crdgen", description=__doc__)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--out", type=Path, metavar="DIR", help="write one file per CRD into DIR")
    action.add_argument("--check", type=Path, metavar="DIR", help="fail when DIR's files drift")
    args = parser.parse_args(argv)
    drifted = []
    for name, text in rendered_files().items():
        if args.out is not None:
            (args.out / name).write_text(text)
            continue
        path = args.check / name
        committed = path.read_text() if path.exists() else ""
        if committed != text:
            drifted.append(str(path))
            sys.stdout.writelines(
                difflib.unified_diff(
                    committed.splitlines(True), text.splitlines(True), str(path), f"{name} (generated)"
                )
            )
    if drifted:
        print(
            f"{', '.join(drifted)} drifted from operator/assay_operator/*api.py: run make crds",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
