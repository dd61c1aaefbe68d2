"""A small Containerfile reader: enough of the format to check Assay's images and to key their builds.

It understands comments, line continuations, `ARG` defaults (substituted into `FROM` and into later
instructions of the same stage as `$NAME` / `${NAME}`), stages (`FROM image AS name`), the exec (JSON) and
shell forms of `ENTRYPOINT`/`CMD`, `COPY [--from=stage] [--chown=..] src... dest` in both forms, and
.containerignore patterns with Docker's semantics (a pattern excludes a path when it matches the path or one
of its parent directories; the last matching pattern wins; `!` re-includes; `**` spans directories).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case
    value: str  # the rest of the (joined) line
    line: int  # 1-based line where the instruction starts

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form ENTRYPOINT/CMD/RUN/COPY, or None for the shell form."""
        text = self.value.strip()
        if not text.startswith("["):
            return None
        parsed = json.loads(text)
        if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
            raise ValueError(f"line {self.line}: {self.keyword} is not a JSON array of strings")
        return parsed


@dataclass
class Stage:
    index: int
    base: str  # the FROM image with ARG defaults substituted
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)
    args: dict[str, str] = field(default_factory=dict)  # ARGs visible in this stage, with defaults

    def of(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def user(self) -> str | None:
        users = self.of("USER")
        return users[-1].value.strip() if users else None

    def entrypoint(self) -> list[str]:
        found = self.of("ENTRYPOINT")
        if not found:
            return []
        form = found[-1].exec_form()
        return form if form is not None else shlex.split(found[-1].value)

    def env(self) -> dict[str, str]:
        values: dict[str, str] = {}
        for instruction in self.of("ENV"):
            for token in shlex.split(instruction.value):
                name, sep, value = token.partition("=")
                if sep:
                    values[name] = value
        return values


@dataclass(frozen=True)
class Copy:
    sources: tuple[str, ...]
    destination: str
    from_stage: str | None
    line: int


@dataclass
class Containerfile:
    path: Path
    global_args: dict[str, str]
    stages: list[Stage]

    @property
    def final(self) -> Stage:
        return self.stages[-1]

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    def copies(self, stage: Stage) -> list[Copy]:
        return [parse_copy(i) for i in stage.of("COPY") + stage.of("ADD")]

    def context_copies(self) -> list[Copy]:
        """Every COPY (any stage) that reads from the build context rather than from another stage."""
        return [c for s in self.stages for c in self.copies(s) if c.from_stage is None]


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, joined text) per instruction: comments dropped, `\\` continuations joined."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # a comment inside a continued instruction is dropped, as Docker does
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].rstrip())
            continue
        pending.append(stripped)
        out.append((start, " ".join(part for part in pending if part)))
        pending = []
    if pending:
        raise ValueError(f"line {start}: the file ends inside a continued instruction")
    return out


_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def substitute(text: str, values: dict[str, str]) -> str:
    return _VARIABLE.sub(lambda m: values.get(m.group(1) or m.group(2), m.group(0)), text)


def _arg(value: str) -> tuple[str, str]:
    name, _, default = value.strip().partition("=")
    return name, default.strip().strip('"')


def parse(path: Path) -> Containerfile:
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line, text in logical_lines(path.read_text()):
        keyword, _, value = text.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = substitute(value, global_args).split()
            words = [w for w in words if not w.startswith("--platform")]
            name = words[2] if len(words) == 3 and words[1].lower() == "as" else None
            if len(words) not in (1, 3) or (len(words) == 3 and name is None):
                raise ValueError(f"{path}:{line}: cannot read FROM {value!r}")
            stages.append(Stage(len(stages), words[0], name))
        elif not stages:
            if keyword != "ARG":
                raise ValueError(f"{path}:{line}: {keyword} before the first FROM")
            name, default = _arg(value)
            global_args[name] = default
        else:
            stage = stages[-1]
            if keyword == "ARG":
                name, default = _arg(value)
                # `ARG NAME` in a stage re-imports the global default.
                stage.args[name] = default or global_args.get(name, "")
            stage.instructions.append(Instruction(keyword, substitute(value, stage.args), line))
    if not stages:
        raise ValueError(f"{path}: no FROM")
    return Containerfile(path, global_args, stages)


def parse_copy(instruction: Instruction) -> Copy:
    rest = instruction.value.strip()
    from_stage = None
    while rest.startswith("--"):
        flag, _, rest = rest.partition(" ")
        rest = rest.lstrip()
        if flag.startswith("--from="):
            from_stage = flag.removeprefix("--from=")
    words = Instruction(instruction.keyword, rest, instruction.line).exec_form() or shlex.split(rest)
    if len(words) < 2:
        raise ValueError(f"line {instruction.line}: COPY needs a source and a destination")
    return Copy(tuple(words[:-1]), words[-1], from_stage, instruction.line)


# --- .containerignore -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IgnoreRule:
    pattern: re.Pattern[str]
    exclude: bool  # False for a `!` exception


def _translate(pattern: str) -> re.Pattern[str]:
    """Go's filepath.Match plus `**` (any number of directories), anchored at the context root."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.index("]", i)
            out.append(pattern[i : end + 1])
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def read_ignore(path: Path) -> list[IgnoreRule]:
    rules: list[IgnoreRule] = []
    if not path.exists():
        return rules
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exclude = not line.startswith("!")
        pattern = line.lstrip("!").strip().strip("/")
        pattern = re.sub(r"/+", "/", pattern).removeprefix("./")
        rules.append(IgnoreRule(_translate(pattern), exclude))
    return rules


def ignored(relative: str, rules: list[IgnoreRule]) -> bool:
    """Whether a context path (relative, `/`-separated) is left out of the build context."""
    parts = relative.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for rule in rules:
        if any(rule.pattern.match(candidate) for candidate in candidates):
            excluded = rule.exclude
    return excluded


def context_files(root: Path, source: str, rules: list[IgnoreRule]) -> list[str]:
    """The files a `COPY source ...` sends: a file, or a directory's files, minus the ignored ones."""
    target = root / source
    if target.is_file():
        paths = [target]
    elif target.is_dir():
        paths = sorted(p for p in target.rglob("*") if p.is_file())
    else:
        return []
    relative = [p.relative_to(root).as_posix() for p in paths]
    return [r for r in relative if not ignored(r, rules)]
