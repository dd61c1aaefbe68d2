"""Which cells a run has, and which of them one answer pod answers.

The cells are every ticket x repetition, repetition-major: every ticket's first repetition before any
second one, so a run cut short still covers every ticket. With the answers in shards (an Indexed Job of
answer pods, `RunConfig.shard`), cell j of that order belongs to shard j % count: each shard gets every
ticket's first repetitions early, and the shards are within one cell of each other's size.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from assay_runner.contract import SHARD_INDEX_ENV, ShardConfig
from assay_runner.errors import InputError
from assay_runner.suite.models import Ticket


def cells_of(tickets: Sequence[Ticket], repetitions: int) -> list[tuple[Ticket, int]]:
    return [(t, r) for r in range(1, repetitions + 1) for t in tickets]


def shard_index(shard: ShardConfig) -> int:
    """This answer pod's shard: the config's, else the Indexed Job's completion index."""
    if shard.index is not None:
        return shard.index
    value = os.environ.get(SHARD_INDEX_ENV)
    if value is None or not value.isdigit() or int(value) >= shard.count:
        raise InputError(
            f"shard.index is not given and ${SHARD_INDEX_ENV} is {value!r}: an answer pod of {shard.count} "
            "shards needs its index (0 to count - 1)"
        )
    return int(value)


def shard_of(order: Sequence[tuple[Ticket, int]], index: int, count: int) -> list[tuple[Ticket, int]]:
    return [cell for position, cell in enumerate(order) if position % count == index]
