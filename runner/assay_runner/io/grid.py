"""The grid manifest `assay compare --grid` reads: axes, and where each cell's result is.

```yaml
axes:                      # one cell per combination, named by its values joined with "-"
  brain: [terse, cited]
  agent: [chat, opencode]
  model: [m1, m2]
results: out/{brain}-{agent}-{model}/result.json   # relative to this file; {axis} is the cell's value
incumbent: out/live/result.json                    # optional
```
"""

from __future__ import annotations

import string
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assay_runner.contract.yaml_scalars import strict_load
from assay_runner.core.grid import Cell, cells
from assay_runner.errors import InputError, Problem, not_a_file


class GridManifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    axes: dict[str, list[str]] = Field(min_length=1)
    results: str = Field(min_length=1)
    incumbent: str | None = None


class Grid:
    def __init__(self, manifest: GridManifest, base: Path, source: Path) -> None:
        self.manifest = manifest
        self.cells = cells(manifest.axes)
        fields = {name for _, name, _, _ in string.Formatter().parse(manifest.results) if name}
        unknown = fields - set(manifest.axes)
        if unknown:
            raise InputError([Problem(str(source), "results", f"names no axis: {sorted(unknown)}")])
        if len(self.cells) > 1 and fields != set(manifest.axes):
            missing = sorted(set(manifest.axes) - fields)
            raise InputError(
                [Problem(str(source), "results", f"must use every axis, or cells share a file: {missing}")]
            )
        self.base = base

    @property
    def axes(self) -> dict[str, list[str]]:
        return self.manifest.axes

    def result_path(self, cell: Cell) -> Path:
        return self.base / self.manifest.results.format(**cell.coordinates)

    def incumbent_path(self) -> Path | None:
        return None if self.manifest.incumbent is None else self.base / self.manifest.incumbent


def read_grid(path: Path) -> Grid:
    if (unreadable := not_a_file(path)) is not None:  # a FIFO would hang the reader
        raise InputError([Problem(str(path), "", unreadable)])
    try:
        data = strict_load(path.read_text(encoding="utf-8"))  # numbers as written: `1:30` is not 90
    except OSError as exc:
        raise InputError([Problem(str(path), "", exc.strerror or str(exc))]) from None
    except yaml.YAMLError as exc:
        raise InputError([Problem(str(path), "", f"invalid YAML: {exc}")]) from None
    try:
        manifest = GridManifest.model_validate(data)
    except ValidationError as exc:
        problems = [Problem(str(path), ".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()]
        raise InputError(problems) from None
    return Grid(manifest, path.parent, path)
