"""Counting the work a call does, for tests that a judge stays linear without timing it (timings are noisy).

`lines_run(call, modules)` runs `call()` under `sys.settrace` and counts the lines executed in the given
modules (a generator expression or comprehension counts once per step). `CharactersScanned.patching`
counts the characters the modules' compiled patterns are handed to search, which runs in C where no line
is counted.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from types import FrameType, ModuleType
from typing import Any

import pytest


def lines_run(call: Callable[[], object], modules: Iterable[ModuleType]) -> int:
    files = {module.__file__ for module in modules}
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        nonlocal count
        if frame.f_code.co_filename not in files:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count


_SCANS = frozenset({"search", "match", "fullmatch", "findall", "finditer"})


class CharactersScanned:
    """The characters handed to the patterns of some modules (a span `pos:endpos` counts its length)."""

    def __init__(self) -> None:
        self.count = 0
        self.patterns = 0

    @classmethod
    def patching(cls, monkeypatch: pytest.MonkeyPatch, modules: Iterable[ModuleType]) -> CharactersScanned:
        """Every module-level compiled pattern of `modules` (and every one an object there holds as its
        `pattern`) replaced, for the test, by one that counts what it scans."""
        scanned = cls()
        for module in modules:
            for name, value in list(vars(module).items()):
                if isinstance(value, re.Pattern):
                    monkeypatch.setattr(module, name, _Counting(value, scanned))
                    scanned.patterns += 1
                elif isinstance(getattr(value, "pattern", None), re.Pattern):
                    monkeypatch.setattr(value, "pattern", _Counting(value.pattern, scanned))
                    scanned.patterns += 1
        return scanned


class _Counting:
    def __init__(self, pattern: re.Pattern[str], scanned: CharactersScanned) -> None:
        self._pattern, self._scanned = pattern, scanned

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._pattern, name)
        if name not in _SCANS:
            return method

        def counted(string: str, pos: int = 0, endpos: int | None = None) -> Any:
            end = len(string) if endpos is None else min(endpos, len(string))
            self._scanned.count += max(0, end - pos)
            return method(string, pos, len(string) if endpos is None else endpos)

        return counted
