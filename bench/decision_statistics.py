"""What the paired statistics add to a Campaign's decision: the time of `decide` over a grid of candidates,
with the per-ticket figures (bootstrap, permutation and McNemar per candidate) and without them (the
release key alone). The operator makes this decision in its reconcile thread once every cell finished.

    .venv/bin/python bench/decision_statistics.py [--tickets 30] [--cells 64 256]

Prints, per grid size, the milliseconds of each and their ratio. Scores are irregular (three repetitions of
weighted judges), so the permutation test samples rather than counts — its slower path.
"""

from __future__ import annotations

import argparse
import random
import time

from assay_runner.core.decision import PromotionRules, decide
from assay_runner.core.standing import Standing
from assay_runner.core.statistics import Paired


def standing(name: str, rng: random.Random, tickets: int, with_tickets: bool) -> Standing:
    scores = {f"T{i:03d}": round(sum(rng.random() for _ in range(3)) / 3, 4) for i in range(tickets)}
    resolved = {t: s > 0.7 for t, s in scores.items()}
    mean = sum(scores.values()) / tickets
    return Standing(
        name=name,
        verdict="Pass",
        mean=mean,
        lowest_ticket=min(scores.values()),
        judges_passing=5,
        complete=True,
        coverage=1.0,
        pass_rate=mean,
        pass_at_k=mean,
        pass_hat_k=sum(resolved.values()) / tickets,
        fully_resolved=sum(resolved.values()),
        tickets=tickets,
        k=3,
        suite_digest="sha256:s",
        judge_means={"quality": mean, "policy": mean},
        paired=Paired(scores, resolved) if with_tickets else None,
    )


def timed(cells: int, tickets: int, with_tickets: bool, rounds: int = 3) -> float:
    best = float("inf")
    for round_ in range(rounds):
        rng = random.Random(round_)
        candidates = [standing(f"c{i}", rng, tickets, with_tickets) for i in range(cells)]
        incumbent = standing("live", rng, tickets, with_tickets)
        started = time.perf_counter()
        decide(candidates, incumbent, rules=PromotionRules(min_confidence=0.95, max_judge_drop=0.05))
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=30)
    parser.add_argument("--cells", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    print(f"decide() over a grid, {args.tickets} tickets, best of 3 (milliseconds)")
    print(f"{'cells':>6} {'key only':>10} {'with statistics':>16} {'ratio':>7} {'per cell':>9}")
    for cells in args.cells:
        plain = timed(cells, args.tickets, with_tickets=False)
        full = timed(cells, args.tickets, with_tickets=True)
        print(f"{cells:>6} {plain:>10.1f} {full:>16.1f} {full / plain:>6.0f}x {full / cells:>8.1f}")


if __name__ == "__main__":
    main()
