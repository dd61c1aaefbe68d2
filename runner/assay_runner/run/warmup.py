"""The rest of a run, prepared while its first agents run (started by the cell pool, run.scheduler, once
every slot has started its first agent).

These would otherwise cost the run time at the worst moments, when finished agents are waiting for their
slots to start the next ones:
- the checking thread (starting a thread blocks its caller about a millisecond here) and the workspaces'
  reference fingerprint, which the first check would compute: jobs the caller hands in for its pool;
- the end of the run: the verdict, result.json, the summary and the report need the result models'
  validators (deferred at import, see `contract.WireModel`) and the report's modules, a few tens of
  milliseconds between the last agent's exit and the verdict. They are built and imported now.
The loop is idle while agents run. The work is done one small step per turn of the loop, so an agent's exit
or a workspace coming ready waits for at most one step (a few milliseconds). The models are built on the
loop, not in a thread: pydantic builds a model's validator on its first use, and a thread building one
while the loop validates the first cell with it would race.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from functools import partial

# Leaves first, so that each import is a small step (importing a package imports its submodules at once).
FINISH_MODULES = (
    "assay_runner.core.summary",
    "assay_runner.run.outputs",
    "assay_runner.views.report.marks",
    "assay_runner.views.report.markup",
    "assay_runner.views.report.assets",
    "assay_runner.views.report.tiles",
    "assay_runner.views.report.bars",
    "assay_runner.views.report.detail",
    "assay_runner.views.report.grid",
    "assay_runner.views.report.overview",
    "assay_runner.views.report.page",
    "assay_runner.views.report",
)


def _build_models() -> Iterator[Callable[[], object]]:
    """The wire models not built yet: the result's, and the suite's (the result serialises answer keys)."""
    from assay_runner import contract
    from assay_runner.suite import models

    for module in (contract, models):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, contract.WireModel)
                and value is not contract.WireModel
                and not value.__pydantic_complete__
            ):
                yield value.model_rebuild


def finish_steps() -> Iterator[Callable[[], object]]:
    """Each step is one model's validator or one import: at most a few milliseconds."""
    yield from _build_models()
    for name in FINISH_MODULES:
        yield partial(importlib.import_module, name)


async def prepare_rest(
    started: asyncio.Event, pool: Executor, background: Sequence[Callable[[], object]] = ()
) -> None:
    """Wait until the first agents run; hand the `background` jobs to `pool`; then do `finish_steps()` on
    the loop, yielding after each."""
    await started.wait()
    for job in background:
        pool.submit(job)
    for step in finish_steps():
        step()
        await asyncio.sleep(0)
