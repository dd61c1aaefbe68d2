"""render_report is pure: verdict, one tile per ticket, marks, escaping, no network, repetitions, size.

Results come from the example suite's recorded answers (scored as `make demo` does) or are built with the
real scorecard, so every figure on the page is one the gate actually produced.
"""

from __future__ import annotations

import html
import json
import random
import re
import time
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

import pytest

from assay_runner.cli import main
from assay_runner.contract import (
    Inputs,
    JudgeVerdict,
    MlflowRef,
    RepetitionResult,
    Result,
    TicketResult,
    Usage,
)
from assay_runner.core.scorecard import assemble
from assay_runner.views.report import render_report
from assay_runner.views.report.detail import script_json
from assay_runner.views.report.marks import Kind, classify, ticket_mark
from assay_runner.views.table import mark as table_mark
from tests.unit.builders import cfg, config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-desk"
HOSTILE = "<script>alert(1)</script> and </script><img src=x onerror=alert(2)> <!-- & \"quoted\" 'single'"

JUDGES = [
    cfg("kb_citation", 0.25, 0.9, type_="kb_citation"),
    cfg("must_mention", 0.25, 0.9, type_="must_mention"),
    cfg("policy", 0.15, 1.0, floor=1.0, type_="policy"),
    cfg("format", 0.15, 0.8, type_="format"),
    cfg("quality", 0.2, 4.0, scale=(1.0, 5.0), type_="model"),
    cfg("exit_code", 0.0, 1.0, type_="exit_code"),
]
ANSWER = (
    "**Summary**\nSync stops when the app signs you out after a password change.\n\n**Steps**\n"
    + "".join(
        f"{n}. Open Settings > Account and check step {n} of KB-1003 carefully.\n" for n in range(1, 12)
    )
    + "\n**Next**\nIf it still fails, send the sync log from Help > Send logs. See KB-1003.\n"
)


def _verdict(rng: random.Random, judge: str) -> JudgeVerdict:
    if judge == "quality":
        samples = [float(rng.choice([4, 5, 5, 5, 5])) for _ in range(3)]
        raw = sorted(samples)[1]
        return JudgeVerdict(
            score=(raw - 1) / 4, reason=f"median {raw:g}", raw=raw, samples=samples, spread=max(samples) - 3
        )
    roll = rng.random()
    if judge == "kb_citation" and roll < 0.05:
        return JudgeVerdict(score=None, reason="no article expected", applicable=False)
    if roll < 0.004:
        return JudgeVerdict(score=None, reason="", error="judge crashed: ValueError")
    score = 1.0 if roll < 0.9 else rng.choice([0.0, 0.5, 0.75])
    return JudgeVerdict(score=score, reason=f"{judge} checked {roll:.3f}")


def synthetic(
    tickets: int = 12, k: int = 1, seed: int = 7, mode: Literal["release", "online"] = "release"
) -> Result:
    """A result of `tickets` x `k` cells scored by the real scorecard, with realistic answers and keys."""
    rng = random.Random(seed)
    rows = []
    for n in range(1, tickets + 1):
        reps = [
            RepetitionResult(
                index=index,
                score=0.0,
                passed=False,
                exit_code=0,
                judges={j.name: _verdict(rng, j.name) for j in JUDGES},
                answer=f"Hello, ticket {n} repetition {index}.\n\n{ANSWER}",
                transcript="agent started\nread kb/KB-1003.md\nwrote answer.md\n",
            )
            for index in range(1, k + 1)
        ]
        key = {"kb": ["KB-1003"], "mustMention": ["Help > Send logs"], "shouldAbstain": False, "notes": "x"}
        rows.append(
            TicketResult(
                id=f"T-{n:03d}",
                split="validation" if n % 2 else "training",
                score=0.0,
                passed=False,
                question=f"Ticket {n}: my notes stopped syncing after I changed my password.\nWhat now?",
                key=key,
                repetitions=reps,
            )
        )
    conf = config(JUDGES)
    card = assemble(rows, conf, k)
    return Result(
        run_name="synthetic",
        suite="support-desk",
        mode=mode,
        inputs=Inputs(brain_digest="sha256:b", suite_digest="sha256:s", judges_digest="sha256:j"),
        usage=Usage(input_tokens=1234, output_tokens=56, cost_usd=0.01),
        config=conf,
        started_at="2026-01-02T03:04:05Z",
        finished_at="2026-01-02T03:09:07Z",
        **card.as_update(),
    )


@cache
def _demo_wire(brain: str, out: Path) -> str:
    args = ["score", str(EXAMPLE), "--answers", str(EXAMPLE / "answers" / brain), "--run-name", brain]
    args += ["--cassettes", str(EXAMPLE / "cassettes"), "--judge-model", "example-judge", "-q"]
    assert main([*args, "--out", str(out)]) in (0, 1)
    return (out / "result.json").read_text()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    root = tmp_path_factory.mktemp("demo")
    return {b: Result.model_validate_json(_demo_wire(b, root / b)) for b in ("v0", "v1")}


class Tags(HTMLParser):
    """Collects start tags with their attributes, and the text of the JSON data block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data_json = ""
        self._in_data = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_data = tag == "script" and dict(attrs).get("type") == "application/json"

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data_json += data

    def count(self, tag: str, cls: str | None = None) -> int:
        return sum(
            1 for t, a in self.tags if t == tag and (cls is None or cls in (a.get("class") or "").split())
        )


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    return tags


def test_verdicts_and_one_tile_per_ticket(demo: dict[str, Result]) -> None:
    for brain, verdict in (("v0", "Blocked"), ("v1", "Pass")):
        result = demo[brain]
        assert result.verdict == verdict
        page = render_report(result)
        assert page.startswith("<!doctype html>")
        assert f"<title>Assay report — {verdict} — support-desk — {brain}</title>" in page
        assert re.search(rf'class="verdict-word">.*?</span> {verdict}</p>', page)
        tags = parse(page)
        assert tags.count("button", "tile") == len(result.tickets)
        failing = sum(1 for t in result.tickets if not t.passed)
        assert tags.count("button", "ok") == len(result.tickets) - failing
        for rule in result.rules:
            assert html.escape(rule.detail) in page
        for reason in result.reasons:
            assert html.escape(reason) in page
        assert result.inputs.suite_digest in page and result.inputs.judges_digest in page
    assert 'lang="en"' in render_report(demo["v0"])


def test_failing_tiles_say_why_and_show_the_floor(demo: dict[str, Result]) -> None:
    page = render_report(demo["v0"])
    assert "✘ below floor" in page
    assert "/ floor 0.70" in page
    assert 'class="tile ko"' in page


def test_marks_match_the_terminal_table() -> None:
    cases = [
        None,
        JudgeVerdict(score=1.0),
        JudgeVerdict(score=1.0 - 1e-12),
        JudgeVerdict(score=0.5),
        JudgeVerdict(score=0.0),
        JudgeVerdict(score=None, applicable=False),
        JudgeVerdict(score=0.7, applicable=False),
        JudgeVerdict(score=None),
        JudgeVerdict(score=0.4, error="boom"),
    ]
    for verdict in cases:
        assert classify(verdict).text == table_mark(verdict).plain


def test_ticket_marks_per_judge(demo: dict[str, Result]) -> None:
    result = demo["v0"]
    tags = parse(render_report(result))
    marks = [a for t, a in tags.tags if t == "span" and (a.get("class") or "").startswith("m ")]
    judges = list(result.judges)
    tile_marks = marks[5 : 5 + len(result.tickets) * len(judges)]  # after the legend's five
    expected = [ticket_mark(t, j) for t in result.tickets for j in judges]
    assert [m["class"] for m in tile_marks] == [f"m {e.kind.value}" for e in expected]
    assert {e.kind for e in expected} >= {Kind.FULL, Kind.PARTIAL, Kind.FAILED}
    first = result.tickets[0]
    assert tile_marks[0]["title"] == f"{judges[0]}: {ticket_mark(first, judges[0]).label}"


def test_error_and_not_applicable_marks() -> None:
    result = synthetic(tickets=200)
    kinds = {ticket_mark(t, j).kind for t in result.tickets for j in result.judges}
    assert Kind.ERROR in kinds and Kind.NOT_APPLICABLE in kinds
    page = render_report(result)
    assert "! not judged" in page
    assert 'class="m error"' in page and 'class="m na"' in page


def test_untrusted_text_is_escaped_everywhere(demo: dict[str, Result]) -> None:
    result = demo["v0"]
    ticket = result.tickets[0]
    rep = ticket.repetitions[0]
    judges = {**rep.judges, "policy": rep.judges["policy"].model_copy(update={"reason": HOSTILE})}
    rep = rep.model_copy(update={"answer": HOSTILE, "transcript": HOSTILE, "judges": judges})
    hostile_ticket = ticket.model_copy(
        update={"id": "<b>T</b>", "question": HOSTILE, "key": {"notes": HOSTILE}, "repetitions": [rep]}
    )
    bad = result.model_copy(
        update={
            "tickets": [hostile_ticket, *result.tickets[1:]],
            "run_name": HOSTILE,
            "reasons": [HOSTILE],
            "mlflow": MlflowRef(tracking_uri="javascript:alert(1)", run_id=HOSTILE),
        }
    )
    page = render_report(bad)
    tags = parse(page)
    assert sum(1 for t, _ in tags.tags if t == "script") == 2  # the data block and our own script
    assert not any(t == "img" for t, _ in tags.tags)
    assert "<script>alert(1)" not in page and "<img" not in page and "<b>T</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # rendered server-side as text
    assert 'href="javascript' not in page
    # The data block holds the answer as JSON with no markup at all; parsed back, it is the answer.
    data = json.loads(tags.data_json)
    assert data["tickets"][0]["reps"][0]["a"] == HOSTILE
    assert data["tickets"][0]["q"] == HOSTILE
    assert "<" not in tags.data_json and ">" not in tags.data_json
    assert "</script" not in script_json({"a": "</script><!--"})


def test_no_network_resources(demo: dict[str, Result]) -> None:
    mlflow = MlflowRef(
        tracking_uri="https://mlflow.example.com", experiment_id="3", run_id="abc123", logged=True
    )
    page = render_report(demo["v1"].model_copy(update={"mlflow": mlflow}))
    tags = parse(page)
    for tag, attrs in tags.tags:
        assert "src" not in attrs, tag
        if tag == "link":
            raise AssertionError(f"external stylesheet or font: {attrs}")
        href = attrs.get("href")
        if href and not href.startswith("#"):
            assert tag == "a" and href == "https://mlflow.example.com/#/experiments/3/runs/abc123"
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page
    external = [a.get("href") for t, a in tags.tags if t == "a" and (a.get("href") or "").startswith("http")]
    assert len(external) == 1


def test_mlflow_run_without_http_uri_is_text(demo: dict[str, Result]) -> None:
    mlflow = MlflowRef(tracking_uri="sqlite:///mlflow.db", experiment_id="1", run_id="r-42", logged=True)
    page = render_report(demo["v1"].model_copy(update={"mlflow": mlflow}))
    assert "run r-42" in page and "sqlite:///mlflow.db" in page
    assert not any(
        (a.get("href") or "").startswith(("sqlite", "http")) for _, a in parse(page).tags if a.get("href")
    )


def test_model_judge_bar_on_its_raw_scale(demo: dict[str, Result]) -> None:
    result = demo["v0"]
    quality = result.judges["quality"]
    assert quality.raw_mean is not None
    page = render_report(result)
    row = page[page.index('<th scope="row">quality') :].split("</tr>", 1)[0]
    assert f"{quality.raw_mean:.3f}" in row and "on 1–5" in row
    assert f"left:{(quality.threshold - 1) / 4 * 100:.1f}%" in row


def test_online_mode_says_it_is_not_a_release_verdict() -> None:
    online = render_report(synthetic(tickets=1, mode="online"))
    assert "Online judging — not a release verdict" in online
    assert "Online judging" not in render_report(synthetic(tickets=1))


def test_repetition_grid_only_when_k_above_one(demo: dict[str, Result]) -> None:
    assert 'class="grid"' not in render_report(demo["v0"])
    result = synthetic(tickets=6, k=3)
    tags = parse(render_report(result))
    assert tags.count("table", "grid") == 1
    assert tags.count("td", "g") == 6 * 3
    page = render_report(result)
    figures = result.repetitions
    for name, value in (
        ("Pass rate", figures.pass_rate),
        ("pass@3", figures.pass_at_k),
        ("pass^3", figures.pass_hat_k),
    ):
        assert f'<p class="fig-name">{name}</p><p class="fig-value">{value:.2f}</p>' in page


def test_missing_repetition_and_empty_results_still_render() -> None:
    result = synthetic(tickets=3, k=2)
    short = result.tickets[0].model_copy(update={"repetitions": result.tickets[0].repetitions[:1]})
    card = assemble([short, *result.tickets[1:]], result.config, 2)
    page = render_report(result.model_copy(update=card.as_update()))
    assert "! repetitions missing" in page and "missing</span>" in page
    missing = RepetitionResult(index=1, score=0.0, passed=False, error="answer.md not found")
    broken = result.tickets[1].model_copy(
        update={"repetitions": [missing], "key": {"kb": [], "extra": {"nested": [1, 2]}}}
    )
    card = assemble([broken], result.config, 1)
    page = render_report(result.model_copy(update=card.as_update()))
    assert page.count('class="m error"') == len(result.judges) + 1  # and the legend's
    data = json.loads(parse(page).data_json)
    assert data["tickets"][0]["reps"][0]["err"] == "answer.md not found"
    assert data["tickets"][0]["key"] == [["extra", '{"nested": [1, 2]}']]
    empty = assemble([], result.config, 1)
    assert "Blocked" in render_report(result.model_copy(update=empty.as_update()))


def test_large_result_renders(capsys: pytest.CaptureFixture[str]) -> None:
    result = synthetic(tickets=300, k=5)
    started = time.perf_counter()
    page = render_report(result)
    seconds = time.perf_counter() - started
    tags = parse(page)
    assert tags.count("button", "tile") == 300
    assert tags.count("td", "g") == 1500
    with capsys.disabled():
        print(
            f"\nreport 300 tickets x 5 repetitions: {len(page.encode()) / 1e6:.2f} MB, "
            f"{seconds * 1000:.0f} ms, {len(tags.tags)} elements"
        )


def test_cli_report_writes_next_to_the_result_or_to_output(
    tmp_path: Path, demo: dict[str, Result], capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "run" / "result.json"
    source.parent.mkdir()
    source.write_text(json.dumps(demo["v0"].to_wire()))
    assert main(["report", str(source)]) == 0  # a Blocked result still renders: exit 0 once written
    assert "Blocked" in (tmp_path / "run" / "report.html").read_text()
    target = tmp_path / "pages" / "v0.html"
    assert main(["report", str(source), "-o", str(target)]) == 0
    assert target.read_text() == render_report(demo["v0"])


def test_cli_report_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text("{")
    assert main(["report", str(tmp_path / "bad.json")]) == 2
    (tmp_path / "wrong.json").write_text('{"verdict": "Maybe"}')
    assert main(["report", str(tmp_path / "wrong.json")]) == 2
    assert "bad input" in capsys.readouterr().err
    assert not (tmp_path / "report.html").exists()
