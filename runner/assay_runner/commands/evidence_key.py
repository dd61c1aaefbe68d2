"""`assay evidence-key FILE`: the run's evidence key, made at FILE unless it is there already.

On the cluster, an init container of each answer pod runs it on the generation's claim, where the answer
container mounts the key read-only and the judge reads it (docs/trust-model.md); several pods at once end
with one key. Locally `assay run` and `assay answer` make one in the key store by themselves; this makes
one to name with `--evidence-key FILE` (a key file must exist when named: a phase never makes it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser("evidence-key", help="make a run's evidence key file (unless it exists)")
    parser.add_argument("file", type=Path, help="where the key goes (32 random bytes, mode 0600)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.io.evidence_keys import make_key_file

    key, made = make_key_file(args.file)
    print(f"{'made' if made else 'kept'} evidence key {key.key_id} at {args.file}", file=sys.stderr)
    return ExitCode.PASS
