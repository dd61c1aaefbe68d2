"""A small suite, a brain and the fake agent, shared by the run tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

AGENT = Path(__file__).resolve().parents[1] / "support" / "agents" / "fake_agent.py"

SUITE = """\
name: mini
judges:
  - {name: kb, type: kb_citation, weight: 0.4, threshold: 0.9}
  - {name: facts, type: must_mention, weight: 0.4, threshold: 0.9}
  - {name: format, type: format, weight: 0.2, threshold: 0.8}
  - {name: exit_code, type: exit_code, weight: 0, threshold: 1.0}
gate: {minScore: 0.9, ticketFloor: 0.7}
tickets:
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    (root / "kb").mkdir(parents=True)
    (root / "kb" / "KB-1.md").write_text("# KB-1: Export\nOpen Settings > Export.\n")
    tickets = "".join(
        f"  - {{id: T-{i}, split: {'validation' if i % 2 else 'training'}, question: 'Export {i}?', "
        f"key: {{kb: [KB-1], mustMention: ['Settings > Export']}}}}\n"
        for i in range(1, 7)
    )
    (root / "suite.yaml").write_text(SUITE + tickets)
    return root


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    root = tmp_path / "brain"
    root.mkdir()
    (root / "AGENTS.md").write_text("Answer from the KB.\ncite: KB-1\n")
    (root / "style.md").write_text("Be brief.\n")
    return root


def agent_command(mode: str, seconds: float | None = None) -> str:
    return f"{sys.executable} {AGENT} {mode}" + (f" {seconds}" if seconds is not None else "")
