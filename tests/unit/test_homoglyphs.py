"""The generated homoglyph table matches its generator, and look-alike letters are read as what they show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from assay_runner.text.match import mentions, normalize
from assay_runner.text.policy_reader import ForbiddenRule, find_violations

ROOT = Path(__file__).resolve().parents[2]


def test_generated_table_has_not_drifted() -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_homoglyphs.py"), "--check"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr


def test_cyrillic_and_greek_letters_inside_a_word_are_read_as_latin() -> None:
    assert normalize("re\u0456nst\u0430ll") == "reinstall"  # Cyrillic i and a
    assert find_violations("Please re\u0456nst\u0430ll the app.", [ForbiddenRule(phrase="reinstall")])
    assert mentions("Open Settings > Ехроrt", "Settings > Export")  # Cyrillic E, x, p, o


def test_fullwidth_and_no_break_forms_fold_to_plain_text() -> None:
    assert normalize("\uff2b\uff22-\uff11\uff10\uff10\uff13") == "KB-1003"
    assert normalize("KB\u20111003") == "KB-1003"
