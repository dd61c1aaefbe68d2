"""The text judges' cost against the answer's length: each must be linear, and a 1 MB answer cheap.

For every text judge (policy, must_mention, kb_citation, format, abstention) and every answer shape (a
normal support answer repeated, varied prose in which no sentence repeats, and the shapes that used to
be super-linear: many periods in one paragraph, nested markdown links, unclosed HTML comments, one
endless clause, long runs of negations, one clause with a match per word far from its negation, fifty
refusal phrases all negated), times one judge call on answers of 1 KB, 4 KB, 16 KB, ... and --max-mb
itself (default 10 MB; about five minutes in all) and prints the slope of log(time) against log(length):
about 1 is linear, 2 quadratic. The time for all text judges on one 1 MB answer of each shape, against a
floor measured in the same run, comes first.

Memory comes first: the peak RSS of judging one answer with every text judge, each size in a fresh
process (so nothing freed by an earlier answer flatters a later one), against the answer's size: the
figure per MB of answer and its slope (1 = linear); then what an answer over the limit gets instead
(`io.answers.Limits`: a cell error, the file never read).

    .venv/bin/python bench/judges_cost.py              # memory, then 1 KB .. 10 MB
    .venv/bin/python bench/judges_cost.py --max-mb 1   # quicker
    .venv/bin/python bench/judges_cost.py --memory-only
    .venv/bin/python bench/judges_cost.py --side-files 1 50 500   # side files only
    .venv/bin/python bench/judges_cost.py --per-kb     # the policy judge's time per KB: how it grows

Per KB (`--per-kb`, and first in a full run): the policy judge's time per KB of answer at 16, 64 and 256
KB for every shape (best of 3), and each figure's ratio to the 16 KB one: about 1 where the cost is
linear, 4 and 16 where it is quadratic (issue 42: the "negations" shape took 0.9 s at 16 KB and 14 s at
64 KB).

Side files (`--side-files N ...`): the peak RSS of the `assay` process judging one cell that holds N side
files of 1 MiB less a byte each (just under `limits.maxSideFileBytes`) with a code judge that reads every
one, through `assay score` in a fresh process per count: random bytes (not UTF-8, so each file becomes a
million replacement characters) and plain text. Printed: the process's peak, its growth over the same cell
with no side file, and the code worker's own peak (bounded apart, by the judge's `memoryMb`).
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from assay_runner.collector import paused as gc_paused
from assay_runner.judges.abstention import DEFAULT_REFUSALS
from assay_runner.judges.base import Case
from assay_runner.suite.models import (
    AbstentionJudge,
    AnswerKey,
    FormatJudge,
    KbCitationJudge,
    MustMentionJudge,
    PolicyJudge,
    Ticket,
)
from assay_runner.text.view import answer_view

NORMAL = (
    "## Summary\nThe sync stops because the cache is stale (see [KB-1003](https://kb/KB-1003.html)).\n\n"
    "## Steps\n1. Open **Settings > Sync**, e.g. on the desktop app.\n2. Do not reinstall the app; "
    "clear the cache instead, then sign in again. If that does not help, contact us.\n\n"
    "## Next\nWe cannot promise a fix by Friday, but it's usually quick. <!-- note -->\n\n"
)
REFUSALS = " ".join(f"It is not true that {phrase} applies." for phrase in DEFAULT_REFUSALS) + "\n\n"


def prose(n: int) -> str:
    """Varied support text in which no sentence repeats (each names its own error number), so nothing
    read once serves another sentence: a forbidden word in some sentences, negations, refusals, links."""
    rng = random.Random(16)
    subjects = ("You", "The app", "Your admin", "Support", "The sync service", "We", "It")
    verbs = (
        *("can clear", "should open", "may need to restart", "will refresh", "could reinstall"),
        *("must not disable", "does not reinstall", "should not reset", "checks", "never touches"),
    )
    objects = (
        *("the cache", "the firewall", "**Settings > Sync**", "the desktop client", "your profile"),
        *("the token", "[KB-1003](https://kb/KB-1003.html)", "the `sync.db` file", "the proxy"),
    )
    tails = (
        *("before Friday", "if the error persists", "after signing in", "on the web app", "by Monday"),
        *("which is out of scope", "without reinstalling", "and then sign in", "", "", ""),
    )
    blocks = ("## Step {k}\n\n{p}\n\n", "- {p}\n", "{p}\n\n", "{k}. {p}\n", "> {p}\n\n")
    parts, size, k = [], 0, 0
    while size < n:
        sentences = []
        for _ in range(rng.randint(1, 5)):
            words = [rng.choice(subjects), rng.choice(verbs), rng.choice(objects), rng.choice(tails)]
            sentences.append(" ".join(w for w in words if w) + f" (error {rng.randint(1000, 999999)}).")
        k += 1
        parts.append(rng.choice(blocks).format(k=k, p=" ".join(sentences)))
        size += len(parts[-1])
    return "".join(parts)[:n]


def why_not_gap(n: int) -> str:
    """A clause of matches that are not negated, far from its opening: each match weighed its whole head
    (`text.advice.weigh`) until the clause's words were indexed once (issue 42)."""
    return "I don't see why " + "x " * (n // 4) + "you shouldn't " + "reinstall " * (n // 20)


SHAPES: dict[str, Callable[[int], str]] = {
    "normal": lambda n: (NORMAL * (n // len(NORMAL) + 1))[:n],
    "prose": prose,
    "periods": lambda n: ("a. " * (n // 3 + 1))[:n],
    "nested-links": lambda n: "[" * (n // 5) + "x" + "](y)" * (n // 5),
    "comment-openers": lambda n: ("<!--" * (n // 4 + 1))[:n],
    "one-clause": lambda n: ("reinstall the app now " * (n // 22 + 1))[:n],
    "negations": lambda n: ("do not reinstall or " * (n // 20 + 1))[:n],
    "strike-openers": lambda n: ("~~a " * (n // 4 + 1))[:n],
    # One clause, a match per word, each asking about the words between its negation and itself (these
    # three were quadratic until the clause's answers were cached).
    "restarted": lambda n: "It won't open " + "reinstall " * (n // 10),
    "far-negation": lambda n: "Do not " + "the " * (n // 8) + "reinstall " * (n // 20),
    "without-list": lambda n: "Clear it without " + "reinstalling or " * (n // 16),
    "why-not-gap": why_not_gap,
    "kb-sections": lambda n: "See KB-1003" + ".1" * (n // 2),  # one id with a million sections
    "refusals": lambda n: (REFUSALS * (n // len(REFUSALS) + 1))[:n],  # every refusal phrase, negated
    "quote-nesting": lambda n: "> " * (n // 2),  # block quotes nested n/2 deep: the parser's own cost
}
TICKET = Ticket(
    id="T-1",
    split="validation",
    question="Sync?",
    key=AnswerKey(kb=["KB-1003"], must_mention=["clear the cache", "Settings > Sync"], forbidden=["reset"]),
)


def text_judges() -> dict[str, Callable[[Case], object]]:
    from assay_runner.judges.abstention import Abstention
    from assay_runner.judges.format import Format
    from assay_runner.judges.kb_citation import KbCitation
    from assay_runner.judges.must_mention import MustMention
    from assay_runner.judges.policy import Policy

    judges = {
        "policy": Policy(
            PolicyJudge(
                name="policy",
                type="policy",
                weight=1,
                threshold=1,
                forbidden=["reinstall", "disable the firewall", {"pattern": r"\bby (monday|friday)\b"}],
            )
        ).judge,
        "must_mention": MustMention(
            MustMentionJudge(name="m", type="must_mention", weight=1, threshold=1)
        ).judge,
        "kb_citation": KbCitation(
            KbCitationJudge(name="k", type="kb_citation", weight=1, threshold=1), ["KB-1003", "KB-1004"]
        ).judge,
        "format": Format(FormatJudge(name="f", type="format", weight=1, threshold=1)).judge,
        "abstention": Abstention(AbstentionJudge(name="a", type="abstention", weight=1, threshold=1)).judge,
    }
    return judges  # type: ignore[return-value]


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def slope(points: list[tuple[int, float]]) -> float:
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(t, 1e-6)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-mb", type=float, default=10.0)
    parser.add_argument("--memory-only", action="store_true")
    parser.add_argument("--per-kb", action="store_true", help="only the policy judge's time per KB")
    parser.add_argument("--peak-of", nargs=2, metavar=("SHAPE", "BYTES"), help=argparse.SUPPRESS)
    parser.add_argument("--side-files", nargs="+", type=int, metavar="N", help="only the side-file table")
    parser.add_argument(
        "--score-peak", nargs=3, metavar=("SUITE", "ANSWERS", "LIMITS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.peak_of:  # a child process of `memory`: one answer judged, its peak RSS growth printed
        print(peak_growth(args.peak_of[0], int(args.peak_of[1])))
        return
    if args.score_peak:  # a child process of `side_files`: `assay score` in-process, its peaks printed
        print(score_peak(*args.score_peak))
        return
    if args.side_files:
        side_files(args.side_files)
        return
    per_kb(text_judges()["policy"])
    if args.per_kb:
        return
    memory()
    if args.memory_only:
        return
    largest = int(args.max_mb * 1024 * 1024)
    sizes = [1024 * 4**i for i in range(12) if 1024 * 4**i < largest] + [largest]
    judges = text_judges()
    # The 1 MB table first: measured after the 10 MB answers, the same work ran some 30% slower here
    # (their heap and page faults linger), which would measure the order of this script, not the judges.
    one_megabyte(judges)
    slopes(judges, sizes)


MEMORY_SIZES_MB = (1, 2, 4, 8)


def peak_growth(shape: str, size: int) -> int:
    """Bytes of peak RSS that judging one answer of `size` adds, in this (fresh) process."""
    judges = text_judges()
    answer = SHAPES[shape](size)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with gc_paused():  # as the runner calls a cell's judges
        for judge in judges.values():
            judge(Case(TICKET, 1, answer))
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024


def memory() -> None:
    print("memory: peak RSS of all text judges on one answer, each size in a fresh process:")
    print(f"  {'shape':<10} " + " ".join(f"{mb:>4} MB" for mb in MEMORY_SIZES_MB) + "   per MB  slope")
    for shape in ("normal", "prose"):
        points: list[tuple[int, float]] = []
        for mb in MEMORY_SIZES_MB:
            size = mb * 1024 * 1024
            child = [sys.executable, __file__, "--peak-of", shape, str(size)]
            points.append(
                (size, int(subprocess.run(child, capture_output=True, text=True, check=True).stdout))
            )
        per_mb = max(grown for _, grown in points) / (MEMORY_SIZES_MB[-1] * 1024 * 1024)
        cells = " ".join(f"{grown / 2**20:5.0f}M" for _, grown in points)
        print(f"  {shape:<10} {cells}   {per_mb:5.1f}x  {slope(points):5.2f}")
    print("  (per MB: the largest answer's peak growth over its size; slope of log(peak) on log(size))")
    over_the_limit()


SIDE_FILE_SUITE = """\
name: side-files
judges:
  - {name: policy, type: policy, weight: 1, threshold: 1, forbidden: [reinstall]}
  - name: files
    type: code
    weight: 0
    threshold: 0
    timeoutSeconds: 600  # five hundred files of a million characters each, on a loaded machine
    code: |
      total = sum(len(text) for text in outputs["files"].values())
      return (1.0, f"{len(outputs['files'])} files, {total} characters")
tickets:
  - {id: T-1, split: validation, question: "Sync?"}
"""


RAISED = ["--max-side-files-bytes", str(2**34), "--max-side-files", str(1_000_000)]
"""The per-cell limits raised so that every side file is read (the table's `raised` rows)."""


def score_peak(suite: str, answers: str, limits: str) -> str:
    """`assay score` on one cell, in this process: the process's and its children's peak RSS in bytes, and
    what the code judge said (so a refused cell is not mistaken for a cheap one)."""
    import contextlib
    import io
    import json

    from assay_runner.cli import main as assay

    with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()):
        raised = RAISED if limits == "raised" else []
        code = assay(["score", suite, "--answers", answers, "--out", out, "-q", *raised])
        cell = json.loads((Path(out) / "result.json").read_text())["tickets"][0]["repetitions"][0]
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    said = cell.get("error") or cell["judges"]["files"].get("reason") or cell["judges"]["files"].get("error")
    return json.dumps({"exit": code, "self": own, "children": children, "said": said})


def side_files(counts: list[int]) -> None:
    import json

    from assay_runner.io.answers import DEFAULT_LIMITS

    size = DEFAULT_LIMITS.max_side_file_bytes - 1
    print(f"side files: one cell, N files of {size:,} bytes, a code judge reading every one (`assay score`):")
    print(f"  {'content':<8} {'limits':<8} {'N':>5} {'peak':>9} {'growth':>9} {'worker':>9}  the judge said")
    for content, limits in (("binary", "default"), ("binary", "raised"), ("text", "raised")):
        baseline = None
        for count in [0, *counts]:
            with tempfile.TemporaryDirectory() as name:
                root = Path(name)
                (root / "suite" / "kb").mkdir(parents=True)
                (root / "suite" / "suite.yaml").write_text(SIDE_FILE_SUITE)
                cell = root / "answers" / "T-1"
                cell.mkdir(parents=True)
                (cell / "answer.md").write_text("Clear the cache, then sign in again.")
                rng = random.Random(count)
                line = (NORMAL * (size // len(NORMAL) + 1))[:size].encode()
                for index in range(count):
                    data = rng.randbytes(size) if content == "binary" else line
                    (cell / f"out-{index:04d}.log").write_bytes(data)
                cell_args = [str(root / "suite"), str(root / "answers"), limits]
                child = [sys.executable, __file__, "--score-peak", *cell_args]
                done = subprocess.run(child, capture_output=True, text=True, check=False)
            if done.returncode != 0:  # an older runner without the flags that raise the limits
                print(f"  {content:<8} {limits:<8} {count:>5} could not run: {done.stderr.strip()[-100:]}")
                break
            peak = json.loads(done.stdout.strip().splitlines()[-1])
            baseline = peak["self"] if baseline is None else baseline
            if count == 0:
                continue
            growth = peak["self"] - baseline
            print(
                f"  {content:<8} {limits:<8} {count:>5} {peak['self'] / 2**20:8.0f}M {growth / 2**20:8.0f}M "
                f"{peak['children'] / 2**20:8.0f}M  {str(peak['said']).split('answers/')[-1][:100]}"
            )
    print("  (peak: the assay process's peak RSS; growth: over the same cell with no side file; worker: the")
    print("  largest child's peak, the code judge's worker, held to its judge's memoryMb; limits: the")
    print("  defaults, or maxSideFilesBytes and maxSideFiles raised so that every file is read)")


def over_the_limit() -> None:
    from assay_runner.io.answers import DEFAULT_LIMITS, read_cell

    with tempfile.TemporaryDirectory() as name:
        cell = Path(name) / "T-1"
        cell.mkdir()
        with (cell / "answer.md").open("wb") as handle:
            handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB that reading would allocate
        started = time.perf_counter()
        recorded = read_cell(Path(name), "T-1", 1, 1)
        took = time.perf_counter() - started
    error = recorded.record.error if recorded.record else None
    limit = DEFAULT_LIMITS.max_answer_bytes
    print(f"an answer over the limit ({limit / 2**20:g} MiB) is not read: {error!r} ({took * 1000:.1f} ms)")


def slopes(judges: dict[str, Callable[[Case], object]], sizes: list[int]) -> None:
    print(f"sizes: {', '.join(f'{s // 1024} KB' for s in sizes)}")
    print(f"{'shape':<16} {'judge':<13} {'slope':>6} {'largest':>10}")
    worst = 0.0
    for shape, make in SHAPES.items():
        for name, judge in judges.items():
            points = []
            for size in sizes:
                answer = make(size)
                answer_view.cache_clear()
                points.append((len(answer), timed(lambda: judge(Case(TICKET, 1, answer)))))  # noqa: B023
            value = slope([p for p in points if p[0] >= 16 * 1024] or points)
            worst = max(worst, value)
            print(f"{shape:<16} {name:<13} {value:6.2f} {points[-1][1]:9.3f}s")
    print(f"worst slope: {worst:.2f} (1 = linear)")


PER_KB_SIZES = (16, 64, 256)


def per_kb(judge: Callable[[Case], object]) -> None:
    """The policy judge's time per KB at 16, 64 and 256 KB, and its ratio to the 16 KB figure."""
    print("the policy judge's time per KB (best of 3), and its ratio to the 16 KB figure (1 = linear):")
    print(f"  {'shape':<16}" + "".join(f" {f'{kb} KB':>10}" for kb in PER_KB_SIZES) + "  ratios")
    for shape, make in SHAPES.items():
        figures = []
        for kb in PER_KB_SIZES:
            answer = make(kb * 1024)

            def once() -> None:
                answer_view.cache_clear()
                judge(Case(TICKET, 1, answer))  # noqa: B023

            figures.append(min(timed(once) for _ in range(3)) / kb)
        ratios = " ".join(f"{f / figures[0]:.2f}" for f in figures[1:])
        print(f"  {shape:<16}" + "".join(f" {f * 1000:8.2f}ms" for f in figures) + f"  {ratios}")


def one_megabyte(judges: dict[str, Callable[[Case], object]]) -> None:
    print("all text judges on one 1 MB answer, best of 3 (the answer's reading built once, shared):")
    print(f"  {'shape':<16} {'time':>8} {'floor':>8} {'ratio':>6}")
    for shape, make in SHAPES.items():
        answer = make(1024 * 1024)

        def everything() -> None:
            answer_view.cache_clear()
            with gc_paused():  # as the runner calls a cell's judges (judges.judging)
                for judge in judges.values():
                    judge(Case(TICKET, 1, answer))  # noqa: B023

        total = min(timed(everything) for _ in range(3))
        bound = min(timed(lambda: floor(answer)) for _ in range(3))  # noqa: B023
        print(f"  {shape:<16} {total:7.3f}s {bound:7.3f}s {total / bound:5.1f}x")
    print("floor: parsing the markdown and finding its words once (pyromark events + one regex pass),")
    print("the least any reader of an answer's words does; ratio = time / floor, measured in this run.")


def floor(answer: str) -> None:
    import pyromark

    from assay_runner.text.tokens import _TOKEN

    for _ in pyromark.events(answer):
        pass
    _TOKEN.findall(answer)


if __name__ == "__main__":
    main()
