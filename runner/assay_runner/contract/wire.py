"""The base of every wire model: camelCase on the wire, unknown keys refused."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


def no_items() -> list[Any]:
    """An empty list, as `default_factory=list` gives, from a Python function: pydantic reads a factory's
    signature as it builds a validator, and a builtin's is parsed from its text by the tokenizer, whose
    regular expressions are compiled on first use (~1 ms). For the models a run builds before its first
    agent (the suite's); elsewhere `list` is as good."""
    return []


class WireModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown keys are errors, never silently dropped."""

    # defer_build: schemas are built on first use, so importing the contract stays cheap for the CLI.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True
    )

    def to_wire(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)

    def to_json(self, indent: int | None = None) -> str:
        """The wire form as JSON text, serialised by pydantic-core (the stdlib encoder falls back to pure
        Python when indenting: tens of milliseconds for a large result.json)."""
        return self.model_dump_json(by_alias=True, indent=indent)
