"""`assay validate SUITE`: check a suite without running anything."""

from __future__ import annotations

import argparse

from assay_runner.commands.options import Subcommands, add_registry_ca
from assay_runner.errors import ExitCode


def add_parser(commands: Subcommands) -> None:
    validate = commands.add_parser("validate", help="check a suite without running anything")
    validate.add_argument(
        "suite", help="suite directory (with suite.yaml), or oci://REGISTRY/REPO@sha256:..."
    )
    validate.add_argument("--keys", help="answer-key file, when SUITE is only the public part (assay split)")
    add_registry_ca(validate)
    validate.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from assay_runner.io.suite_artifact import resolve_suite
    from assay_runner.suite import load_suite

    folder, artifact = resolve_suite(args.suite, args.registry_ca)
    suite = load_suite(folder, keys=args.keys)
    splits = {s: sum(1 for t in suite.tickets if t.split == s) for s in ("training", "validation")}
    judges = ", ".join(f"{j.name} ({j.type_name()}, w={j.weight:g})" for j in suite.spec.judges)
    print(
        f"suite {suite.name!r} is valid: {len(suite.tickets)} tickets "
        f"({splits['training']} training, {splits['validation']} validation), {len(suite.kb)} KB articles"
    )
    print(f"judges: {judges}")
    if artifact is not None:
        from assay_runner.core.digests import suite_digest

        print(f"artifact {artifact}, suite digest {suite_digest(suite)}")
    from assay_runner.suite.calibration import shadow_reasons

    for name, why in shadow_reasons(suite.spec, suite.files).items():
        print(f"shadow judge {name} (recorded, not gating): {why}")
    if not suite.has_keys:
        print("no ticket has an answer key: this is a suite's public part (give --keys to check the keys)")
    return ExitCode.PASS
