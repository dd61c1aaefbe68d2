"""`assay ... | head -1`: a reader that stops reading ends the command quietly (no traceback), with the
code a shell gives a command killed by SIGPIPE. The pipe is closed before the command writes, so the
test does not depend on who is faster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"


@pytest.mark.parametrize(
    "args",
    [
        ["validate", str(EXAMPLE)],  # print()
        ["judges", "check", str(EXAMPLE)],  # a rich table (rich answers a broken pipe with SystemExit)
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(args: list[str]) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from assay_runner.cli import console; console()", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert done.stderr == ""
