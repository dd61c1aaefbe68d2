"""`assay gateway-sidecar --socket PATH --ledger-dir DIR [--gateway URL]`: the answer pod's gateway sidecar.

The only process of an answer pod that holds the real gateway token (`ASSAY_GATEWAY_TOKEN_FILE`, a Secret
mounted into its container alone): it forwards the runner's calls to the gateway with the token, counts
what the whole pod spent, keeps the budget the runner's claim gives and writes its ledger into DIR, where
the answer container cannot write (`gateway.metering.sidecar`). Runs until SIGTERM or SIGINT, then writes
the ledger a last time and exits 0; 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from assay_runner.commands.options import Subcommands
from assay_runner.errors import ExitCode, InputError


def add_parser(commands: Subcommands) -> None:
    parser = commands.add_parser(
        "gateway-sidecar", help="hold the gateway token for an answer pod, meter and record its spend"
    )
    parser.add_argument("--socket", type=Path, required=True, help="the Unix socket to listen on")
    parser.add_argument(
        "--ledger-dir", type=Path, required=True, help="where to write the ledger (not the agents' volume)"
    )
    parser.add_argument("--gateway", help="the gateway's base URL (default: $ASSAY_GATEWAY_URL)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import signal
    import sys

    from assay_runner.gateway.http import gateway_token
    from assay_runner.gateway.metering.sidecar import GatewaySidecar, serve

    gateway = args.gateway or os.environ.get("ASSAY_GATEWAY_URL") or None
    try:
        token = gateway_token("agent")
    except OSError as exc:
        raise InputError(f"the gateway token file cannot be read: {exc}") from None
    try:
        sidecar = GatewaySidecar(args.socket, args.ledger_dir, gateway, token)
    except ValueError as exc:
        raise InputError(str(exc)) from None

    async def until_stopped() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        print(
            f"assay gateway sidecar: on {args.socket}, to {gateway or '(no gateway)'}, "
            f"{'with' if token else 'without'} a token; ledger {sidecar.ledger_path}",
            file=sys.stderr,
        )
        await serve(sidecar, stop)

    asyncio.run(until_stopped())
    return ExitCode.PASS
