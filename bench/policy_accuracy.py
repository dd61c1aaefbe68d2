"""The policy reader on its labelled corpus: accuracy, false negatives and false positives per kind and
per language.

Every file and folder of tests/data/policy_corpus/ is a part: `development` (rules may be tuned on it),
`heldout` (written before the reader was changed for issue 29, never tuned on), `languages` (the tuning
part of issue 42: Italian, Portuguese, Dutch, Polish, the shapes of advice in every language, mixed
answers, double negatives, negating headings), `tuning-forms` (the third round's tuning part: fresh
sentences of the same classes in eleven batches), `tuning-stance` (the fourth round's tuning part:
questions, reported speech, headings that carry their list's polarity and double negation in the eight
languages, kinds named `<language>-<form>`; `--forms` sums them per form), `tuning-consequence` (the
fifth round's tuning part, of the same format: double negatives and "cannot avoid" shapes, hypotheticals
and warnings that describe a consequence, reported speech), `tuning-r6` (the sixth round's tuning part, of
the same format: questions, conditionals and hypotheticals, lists, mixed-language answers and idioms of
necessity in the eight languages), `tuning-r7` (the seventh round's, of the same format: plain
recommendations, double negatives, separable and verb-final verbs, questions that instruct, reported
speech, hypotheticals and negating headers), `tuning-r8` (the eighth round's, of the same format: the
forbidden action said with a verb the keys do not hold, its object named without it, reported speech,
headers, hypotheticals and conditionals), `tuning-r9` (the ninth round's, of the same format: lines that
introduce a list and forbid, skip or set aside what it holds, and lines with those words that still
introduce advice), `tuning-r10` (the tenth's: double negatives that advise and omissions that are
harmless), `tuning-r11` (the eleventh's: reports the answer sets aside or endorses), `tuning-r12` (the
twelfth's: requests put as questions, questions about what was done), `tuning-r13` (the
thirteenth's: lines that call their whole list futile, and lines with a negation that still introduce
advice), `tuning-r14` (the fourteenth's: reports the answer disowns, records of what was done, and
records and reports that still advise), `tuning-r15` (the fifteenth's: Polish in the twelve kinds of the
held-out plan), `tuning-r16` (the sixteenth's: warnings that say what doing it damages), `tuning-r17`
(the seventeenth's: what doing it can or often does after a long subject, concessions), `tuning-r18` (the
eighteenth's: a negated possibility over a negated action), `tuning-r19` (the nineteenth's: lines that judge
their list badly), `tuning-r20` (the twentieth's: no reason not to, delays and hesitations denied,
"unless"), `tuning-r21` (the twenty-first's: German, Dutch and Polish subjects that warn), `tuning-r22` (the
twenty-second's: a negated subject judged far after the action), `heldout-languages` (a folder,
one file per answer language, written for issue 42 by someone who never saw the reader's changes, before
they were made, and never tuned on; its README says how) and `heldout-2` (a second folder of the same
format, written for issue 42 by someone who never opened the reader's code, after `heldout-languages` had
been measured three times, and never tuned on). The project's older adversarial table
(tests/data/policy_adversarial.yaml) is printed too. Each row is one markdown answer, labelled `violates`
when a careful reader sees it recommend a forbidden action. A row's language is its file's in a folder
part; in a file part, a kind named after a language (french, italian-shapes, ...) or with a `language:` is
in that language, the others are English.

The reader gives one of three outcomes per answer: a violation, fine, or `uncertain` (a rule-based
reading cannot decide: the gate blocks or asks the model judge, as the suite configures). Here an
uncertain row is counted as the suite's default treats it, a block: right on a forbidden row, a false
positive on a fine one; its count is printed apart (`unc`).

    .venv/bin/python bench/policy_accuracy.py                 # both parts, per kind
    .venv/bin/python bench/policy_accuracy.py --part development --list   # also every wrong row
    .venv/bin/python bench/policy_accuracy.py --part heldout-languages --grid     # also language x kind
    .venv/bin/python bench/policy_accuracy.py --part heldout-2 --list     # the second held-out part
    .venv/bin/python bench/policy_accuracy.py --tuning --list  # only the parts rules may be tuned on
    .venv/bin/python bench/policy_accuracy.py --part tuning-stance --forms  # also per form, all languages
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from assay_runner.text.language import LANGUAGES
from assay_runner.text.policy_reader import ForbiddenRule, read_policy

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPUS = DATA / "policy_corpus"
PARTS = tuple(
    sorted(p.stem for p in CORPUS.glob("*.yaml")) + sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
)
ADVERSARIAL = DATA / "policy_adversarial.yaml"
ADVERSARIAL_RULES = ("reinstall", "disable selinux", "disable the firewall")


@dataclass(frozen=True)
class Row:
    kind: str
    text: str
    violates: bool
    rules: tuple[ForbiddenRule, ...]
    language: str = "en"


def corpus_rows(part: str) -> list[Row]:
    """The rows of one part of the corpus, each with the forbidden items of its kind."""
    if (CORPUS / part).is_dir():
        return language_rows(CORPUS / part)
    data = yaml.safe_load((CORPUS / f"{part}.yaml").read_text("utf-8"))
    default = tuple(ForbiddenRule.from_spec(item) for item in data.get("forbidden", []))
    rows: list[Row] = []
    for kind, body in data["kinds"].items():
        items, rules, language = body, default, language_of(kind)
        if isinstance(body, dict):
            items = body["rows"]
            rules = tuple(ForbiddenRule.from_spec(item) for item in body.get("forbidden", [])) or default
            language = body.get("language", language)
        rows.extend(
            Row(kind, item["text"], item["violates"], rules, item.get("language", language)) for item in items
        )
    return rows


def language_rows(folder: Path) -> list[Row]:
    """A folder part: one file per language, a case's own `forbidden` replacing the file's."""
    rows: list[Row] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text("utf-8"))
        default = tuple(ForbiddenRule.from_spec(item) for item in data["forbidden"])
        for case in data["cases"]:
            own = case.get("forbidden")
            rules = default if own is None else tuple(ForbiddenRule.from_spec(item) for item in own)
            rows.append(Row(case["kind"], case["text"], case["violates"], rules, data["language"]))
    return rows


def language_of(kind: str) -> str:
    """ "italian", "italian-shapes", "it-negation": the language a kind's name starts with; else English."""
    head = kind.replace("_", "-").split("-")[0].casefold()
    return _NAMED.get(head, head if head in LANGUAGES else "en")


# Kinds named after a language hold rows in it; every other kind is English unless it says otherwise.
_NAMED = {
    "french": "fr",
    "german": "de",
    "spanish": "es",
    "italian": "it",
    "portuguese": "pt",
    "dutch": "nl",
    "polish": "pl",
}


def adversarial_rows() -> list[Row]:
    data = yaml.safe_load(ADVERSARIAL.read_text("utf-8"))
    rules = tuple(ForbiddenRule(phrase=p) for p in ADVERSARIAL_RULES)
    return [Row(k, r["text"], r["violates"], rules) for k, items in data["cases"].items() for r in items]


def outcome(row: Row) -> str:
    """ "violation", "uncertain" or "fine"."""
    reading = read_policy(row.text, row.rules)
    if reading.violations:
        return "violation"
    return "uncertain" if reading.uncertain else "fine"


@dataclass
class Tally:
    rows: int = 0
    right: int = 0
    false_negatives: int = 0
    false_positives: int = 0
    uncertain: int = 0
    forbidden: int = 0
    wrong: list[tuple[str, Row]] = field(default_factory=list)

    def add(self, row: Row, got: str) -> None:
        self.rows += 1
        self.forbidden += row.violates
        self.uncertain += got == "uncertain"
        blocks = got != "fine"  # an uncertain reading blocks by default
        if blocks == row.violates:
            self.right += 1
        elif row.violates:
            self.false_negatives += 1
            self.wrong.append(("FN", row))
        else:
            self.false_positives += 1
            self.wrong.append(("FP", row))

    @property
    def accuracy(self) -> float:
        return self.right / self.rows if self.rows else 0.0


@dataclass
class Measure:
    total: Tally = field(default_factory=Tally)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    by_language: dict[str, Tally] = field(default_factory=dict)
    by_cell: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """Per (language, kind)."""


def measure(rows: list[Row]) -> Measure:
    result = Measure()
    for row in rows:
        got = outcome(row)
        result.total.add(row, got)
        result.by_kind.setdefault(row.kind, Tally()).add(row, got)
        result.by_language.setdefault(row.language, Tally()).add(row, got)
        result.by_cell.setdefault((row.language, row.kind), Tally()).add(row, got)
    return result


def print_table(heading: str, tallies: dict[str, Tally]) -> None:
    print(f"  {heading:<22} {'right':>9} {'acc':>7} {'FN':>3} {'FP':>3} {'unc':>4}")
    for name, tally in tallies.items():
        print(
            f"  {name:<22} {tally.right:>4}/{tally.rows:<4} {tally.accuracy:7.1%} "
            f"{tally.false_negatives:>3} {tally.false_positives:>3} {tally.uncertain:>4}"
        )


def print_grid(result: Measure) -> None:
    """Accuracy per language (rows) and kind (columns), right/rows in each cell."""
    languages, kinds = list(result.by_language), list(result.by_kind)
    print("  " + " " * 4 + "".join(f"{kind[:11]:>12}" for kind in kinds))
    for language in languages:
        cells = [result.by_cell.get((language, kind)) for kind in kinds]
        shown = [f"{t.right}/{t.rows}" if t else "-" for t in cells]
        print(f"  {language:<4}" + "".join(f"{cell:>12}" for cell in shown))


def by_form(result: Measure) -> dict[str, Tally]:
    """Kinds named "<language>-<form>" ("fr-questions", "pl-headers-2") summed per form."""
    forms: dict[str, Tally] = {}
    for (language, kind), tally in result.by_cell.items():
        form = kind.removeprefix(f"{language}-")
        total = forms.setdefault(form, Tally())
        for name in ("rows", "right", "false_negatives", "false_positives", "uncertain", "forbidden"):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
    return forms


def report(name: str, rows: list[Row], listing: bool, grid: bool = False, forms: bool = False) -> Tally:
    result = measure(rows)
    total, by_kind = result.total, result.by_kind
    print(f"\n{name}: {total.rows} rows, {total.forbidden} forbidden")
    print_table("kind", by_kind)
    if forms:
        print_table("form", by_form(result))
    print_table("language", dict(sorted(result.by_language.items())))
    if grid:
        print_grid(result)
    lowest = min(by_kind.items(), key=lambda item: item[1].accuracy)
    weakest = min(result.by_language.items(), key=lambda item: item[1].accuracy)
    fn_share = total.false_negatives / total.forbidden if total.forbidden else 0.0
    print(
        f"  overall {total.right}/{total.rows} = {total.accuracy:.1%}; lowest kind {lowest[0]} "
        f"{lowest[1].accuracy:.1%}; lowest language {weakest[0]} {weakest[1].accuracy:.1%}; "
        f"FN {total.false_negatives} = {fn_share:.1%} of forbidden rows; "
        f"FP {total.false_positives}; uncertain {total.uncertain}"
    )
    if listing:
        for label, row in total.wrong:
            print(f"    [{row.language} {row.kind}] {label}: {row.text!r}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=(*PARTS, "adversarial"), action="append")
    parser.add_argument(
        "--tuning",
        action="store_true",
        help="every part rules may be tuned on (none named heldout*), with the adversarial table",
    )
    parser.add_argument("--list", action="store_true", help="print every wrong row")
    parser.add_argument("--grid", action="store_true", help="print accuracy per language and kind")
    parser.add_argument(
        "--forms", action="store_true", help="also per form: kinds named <language>-<form> summed"
    )
    args = parser.parse_args()
    everything = [part for part in PARTS if not (args.tuning and part.startswith("heldout"))]
    for part in args.part or [*everything, "adversarial"]:
        rows = adversarial_rows() if part == "adversarial" else corpus_rows(part)
        report(part, rows, args.list, args.grid, args.forms)


if __name__ == "__main__":
    main()
