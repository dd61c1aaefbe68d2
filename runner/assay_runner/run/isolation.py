"""The run's sandbox for its agent programs (assay_runner.sandbox): what no cell may reach, and whether the
kernel gives what the suite or the RunConfig requires.

`isolation: required` (suite.yaml or the RunConfig; either one suffices) refuses a run, before its first
cell, on a kernel whose Landlock cannot confine files, TCP, signals and abstract sockets: exit 2. So does an
answer phase that holds its conversational tickets' customers (`customers`: the hidden facts an agent must
ask for): only the sandbox keeps its agents from reading them. Agents that run no program (chat, replay)
need no sandbox and are never refused for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from assay_runner.agents.command import TOKEN_FILE_ENV  # not the presets: their parsers are no run's need
from assay_runner.contract import GATEWAY_LEDGER_ENV, GATEWAY_SOCKET_ENV
from assay_runner.errors import InputError
from assay_runner.io.evidence_keys import store_dir
from assay_runner.run.preparation import Prepared
from assay_runner.sandbox import landlock
from assay_runner.sandbox.launcher import LauncherError, find
from assay_runner.sandbox.policy import Sandbox, shortfall
from assay_runner.vocabulary import PROGRAM_KINDS

RUNNER_FILES: set[str] = set()
"""Files the runner took its orders from (`--config`): no agent reads them (`protect`)."""


def protect(path: str | Path) -> None:
    """A file of the runner's own (its RunConfig) that no agent's grant may reach."""
    RUNNER_FILES.add(str(Path(path).absolute()))


def required(prepared: Prepared) -> bool:
    return "required" in (prepared.config.isolation, prepared.suite.spec.isolation) or holds_customers(
        prepared
    )


def holds_customers(prepared: Prepared) -> bool:
    """The phase plays its customers from the customers file: their hidden facts are beside the agents."""
    return prepared.config.customers is not None and prepared.suite.has_conversations


CUSTOMERS_NEED_SANDBOX = (
    "this answer phase holds its conversational tickets' customers ({path}: the facts the agent must ask "
    "for), and only the kernel's sandbox keeps an agent program from reading them: {problem}"
)


def protected_paths(prepared: Prepared) -> list[str]:
    """Where the suite, its keys, the run's outputs and the runner's records are, its config, the
    evidence key (the named file, on the cluster under /etc, which the toolchain's grant would cover; and
    the per-user key store) and the gateway's token, socket and ledger: no grant covers them."""
    config = prepared.config
    token = os.environ.get(TOKEN_FILE_ENV)
    customers = config.customers
    runner = [
        customers,
        # a ConfigMap volume's file is a link into its folder: the folder is the customers' alone
        os.path.dirname(customers) if customers and os.path.islink(customers) else None,
        os.path.dirname(token) if token else None,  # a Secret volume: the file is a link into its folder
        os.environ.get(GATEWAY_SOCKET_ENV),
        os.environ.get(GATEWAY_LEDGER_ENV),
        *sorted(RUNNER_FILES),
    ]
    named = [
        config.suite,
        config.keys,
        config.output.dir,
        config.output.summary_path,
        config.answers_dir,
        config.cassettes.dir if config.cassettes is not None else None,
        config.mlflow.tracking_uri,
        str(prepared.suite.root),
        config.kb,
        config.evidence.key_file,
        str(store_dir()),
        *runner,
    ]
    return [str(Path(path).absolute()) for path in named if path and "://" not in path]


def run_sandbox(prepared: Prepared) -> Sandbox | None:
    """The sandbox every agent program of this run starts in (None: the agent runs no program). Raises
    InputError when the run requires more than the kernel has."""
    if prepared.config.agent.kind not in PROGRAM_KINDS:
        return None
    abi = landlock.abi()
    if required(prepared) and (problem := shortfall(abi)) is not None:
        if holds_customers(prepared):
            raise InputError(CUSTOMERS_NEED_SANDBOX.format(path=prepared.config.customers, problem=problem))
        raise InputError(problem)
    if abi >= 1:
        try:
            find()  # a launcher named for a test or benchmark must be usable; the default may be absent
        except LauncherError as exc:
            raise InputError(str(exc)) from None
    return Sandbox(abi, protected_paths(prepared))
