"""YAML reading that remembers where each value came from, so errors can name the line.

PyYAML silently keeps the last of two duplicate keys; a suite with a duplicated key almost always hides
a mistake, so it is reported as an error instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import yaml
from pydantic import ValidationError

from assay_runner.contract.yaml_scalars import StrictLoader
from assay_runner.errors import InputError, Problem, not_a_file

Location = tuple[str | int, ...]


def _walk(
    node: yaml.Node, path: Location, out: dict[Location, int], dupes: list[tuple[Location, int]]
) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                dupes.append(((*path, key), key_node.start_mark.line + 1))
            seen.add(key)
            out[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), out, dupes)
            out[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), out, dupes)


def _refuse_aliases(root: yaml.Node, display: str) -> None:
    """A node reached twice is an alias (`*name`). Suites do not need them, and a few nested aliases
    expand to billions of values (a "billion laughs" bomb) for the walk and the validation after it."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            line = node.start_mark.line + 1
            raise InputError([Problem(display, "", "YAML aliases (*name) are not allowed in a suite", line)])
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


class YamlDocument:
    """A parsed YAML file: its data, and the line of every key and item."""

    def __init__(self, path: Path, display: str) -> None:
        self.path = path
        self.display = display
        unreadable = not_a_file(path)
        if unreadable is not None:
            raise InputError([Problem(display, "", unreadable)])
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError([Problem(display, "", "file not found")]) from None
        except UnicodeDecodeError as exc:
            raise InputError([Problem(display, "", f"not UTF-8 text: {exc}")]) from None
        except OSError as exc:
            raise InputError([Problem(display, "", f"cannot read: {exc.strerror or exc}")]) from None
        # One parse gives both the nodes (for lines and duplicates) and the data; libyaml's parser when
        # present (several times faster than the pure-Python one, with the same marks and errors), numbers
        # only as written plainly (`contract.yaml_scalars`: `1:30` is not 90).
        loader = StrictLoader(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _refuse_aliases(node, display)
            self.data: object = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            raise InputError([Problem(display, "", f"invalid YAML: {problem}", line)]) from None
        except RecursionError:
            raise InputError([Problem(display, "", "invalid YAML: nested too deeply")]) from None
        finally:
            loader.dispose()
        self.lines: dict[Location, int] = {}
        duplicates: list[tuple[Location, int]] = []
        if node is not None:
            try:
                _walk(node, (), self.lines, duplicates)
            except RecursionError:
                raise InputError([Problem(display, "", "invalid YAML: nested too deeply")]) from None
        if duplicates:
            raise InputError(
                [
                    Problem(display, dotted(loc), "duplicate key (the first value would be lost)", line)
                    for loc, line in duplicates
                ]
            )

    def line_of(self, location: Location) -> int | None:
        # Pydantic may report a location one level deeper than any YAML node (a missing key): walk up.
        for depth in range(len(location), -1, -1):
            line = self.lines.get(location[:depth])
            if line is not None:
                return line
        return None

    def problems(
        self, error: ValidationError, prefix: Location = (), transparent: frozenset[str] = frozenset()
    ) -> Iterator[Problem]:
        """Turn pydantic's errors into Problems; `transparent` names union tags that are not YAML keys."""
        for item in error.errors(include_url=False):
            location = _yaml_location(prefix + tuple(item["loc"]), transparent)
            message = item["msg"].removeprefix("Value error, ")
            if item["type"] == "extra_forbidden":
                message = "unknown key (check its spelling; unknown keys are never ignored)"
            elif "input" in item and item["type"] not in ("missing",) and _short(item["input"]):
                message = f"{message} (got {item['input']!r})"
            yield Problem(self.display, dotted(location), message, self.line_of(location))


def _short(value: object) -> bool:
    return isinstance(value, str | int | float | bool) and len(repr(value)) <= 60


def _yaml_location(location: tuple[object, ...], transparent: frozenset[str]) -> Location:
    # Discriminated unions add the tag ("kb_citation") and validators add function names to the path;
    # neither exists in the file.
    # A tag follows the list index it was chosen for: only there is a name like `model` a tag and not a
    # key (a model judge's `model` field is `judges[2].model`).
    cleaned: list[str | int] = []
    after_index = False
    for part in location:
        tag = isinstance(part, str) and after_index and part in transparent
        keep = isinstance(part, int) or (
            isinstance(part, str) and not tag and not part.startswith("function-") and "[" not in part
        )
        if keep:
            cleaned.append(part)  # type: ignore[arg-type]
        after_index = isinstance(part, int)
    return tuple(cleaned)


def dotted(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text
