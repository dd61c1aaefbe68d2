"""The suite format: judges, gate defaults, pass criterion and tickets with their answer keys.

Every model forbids unknown keys, so a typo in `suite.yaml` is an error rather than a silently ignored
setting. Keys are camelCase, like the Evaluation resource and the result.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Annotated, ClassVar, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from assay_runner.contract import (
    CALIBRATION_FILE,
    MODEL_SCALE,
    GateSettings,
    NonBlank,
    PassCriterion,
    PriceConfig,
    ToolAction,
    WireModel,
    has_own_scale,
    judge_scale,
    threshold_problem,
)
from assay_runner.contract.text_fields import Label, PathText
from assay_runner.contract.wire import no_items
from assay_runner.suite.conversation import ConversationSpec
from assay_runner.suite.fields import Phrase
from assay_runner.vocabulary import IsolationLevel, Split

JUDGE_NAME = r"^[a-z][a-z0-9_]{0,62}$"
TICKET_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"
KB_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"

MAX_COUNT = 1_000_000
"""The largest count a suite may set (words, tool calls): an 8 MiB answer holds fewer words, and a bound
far above any real one (`maxWords: 10**30`) is a typo, refused rather than silently never reached."""
MAX_SCALE = 1000
"""A model judge's scale stays within ±this: a rubric's points, not an arbitrary number."""


class ForbiddenPattern(WireModel):
    """A forbidden item given as a mapping: a phrase or a regular expression, with options."""

    phrase: Phrase | None = None
    """A plain phrase, matched on whole words, tolerant of case and inflection."""
    pattern: str | None = None
    """A case-insensitive regular expression (RE2 syntax), matched against each clause."""
    allow_negated: bool = True
    """A clause that negates the forbidden action does not count ("do not reinstall")."""
    label: str | None = None
    """How the item is named in reasons."""

    @model_validator(mode="after")
    def _exactly_one(self) -> ForbiddenPattern:
        if (self.phrase is None) == (self.pattern is None):
            raise ValueError("give exactly one of 'phrase' or 'pattern'")
        if self.pattern is not None:
            from assay_runner.text.patterns import compile_pattern

            compile_pattern(self.pattern)  # RE2 syntax, and not matching the empty text
        return self


Forbidden = Phrase | ForbiddenPattern


class JudgeBase(WireModel):
    """What every judge kind shares. A kind is its spec class: its `type` tag, and what the rest of Assay
    needs to know about it without running it (the class variables below), live here and nowhere else."""

    deterministic: ClassVar[bool] = True
    """The same answer always gets the same verdict: `assay gate --verify` re-runs it, and `assay judges
    check` self-tests it."""
    key_required: ClassVar[bool] = True
    """It reads the ticket's answer key, so it cannot judge an ad-hoc answer (online judging)."""

    name: str = Field(pattern=JUDGE_NAME)
    """Unique name; appears in results, metrics and the gate."""
    weight: float = Field(ge=0, le=1000)
    """Relative weight in the ticket score; 0 gates without moving the score."""
    threshold: float
    """The judge's mean over applicable tickets must reach this (model judges: on their raw scale)."""
    floor: float | None = None
    """Optional per-ticket floor: any applicable ticket scoring below it blocks on its own."""
    shadow: bool = False
    """A shadow judge runs, is recorded (result, report, MLflow, status) and compared like any other, but
    never decides: it is left out of the weighted score, the judges rule, the floors and the errors that
    block (its error is recorded, not blocking: a dry run, as in Argo Rollouts)."""
    description: str = ""

    def normalise(self, raw: float) -> float:
        """Map a value on the judge's own scale to [0, 1]; identity for [0, 1] judges."""
        low, high = self.scale_bounds()
        return (raw - low) / (high - low)

    @model_validator(mode="after")
    def _bounds_on_scale(self) -> JudgeBase:
        # A model judge's scale is one of its fields: its threshold is checked once the judge is valid.
        if not has_own_scale(self.kind_tag()):
            return self  # checked field by field (`_on_unit_scale`)
        for label, value in (("threshold", self.threshold), ("floor", self.floor)):
            problem = None if value is None else threshold_problem(label, value, self.scale_bounds())
            if problem is not None:
                raise ValueError(problem)
        return self

    @classmethod
    def kind_tag(cls) -> str:
        """The kind's `type` tag. Thresholds are on [0, 1] unless the kind has a scale of its own
        (`contract.has_own_scale`: a model judge's are checked with its scale)."""
        field = cls.model_fields.get("type")
        return str(typing.get_args(field.annotation)[0]) if field is not None else "?"

    @field_validator("threshold", "floor")
    @classmethod
    def _on_unit_scale(cls, value: float | None, info: ValidationInfo) -> float | None:
        # A field check, not a check of the whole judge: reported in the same pass as any other problem of
        # the judge (a whole-model check runs only once every field is valid).
        if not has_own_scale(cls.kind_tag()) and value is not None:
            problem = threshold_problem(str(info.field_name), value, judge_scale("unit"))
            if problem is not None:
                raise ValueError(problem)
        return value

    def scale_bounds(self) -> tuple[float, float]:
        """The scale the threshold and floor are on (`contract.judge_scale`)."""
        return judge_scale(self.type_name(), getattr(self, "scale", None))

    def type_name(self) -> str:
        return str(getattr(self, "type", "?"))

    def uses_key(self) -> bool:
        return self.key_required

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        """Whether this kind can be not applicable to a cell with this key and exit code: a stored verdict
        saying so anywhere else was not made by this kind (`core.integrity`)."""
        return False


class KbCitationJudge(JudgeBase):
    """Share of the expected KB articles the answer cites; a fabricated article id scores 0."""

    type: Literal["kb_citation"]

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return not key.kb


class MustMentionJudge(JudgeBase):
    """Share of the answer key's required facts the answer mentions."""

    type: Literal["must_mention"]

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return not key.must_mention


class PolicyJudge(JudgeBase):
    """Forbidden advice, read clause by clause with negations; any violation scores 0."""

    type: Literal["policy"]
    forbidden: list[Forbidden] = Field(default_factory=no_items)
    """Suite-wide forbidden items; each ticket's key may add its own."""
    key_required: ClassVar[bool] = False  # the suite-wide list applies to any answer; tickets add to it
    uncertain: Literal["block", "model"] = "block"
    """What to do when the rule-based reading cannot tell whether a mention recommends a forbidden item
    (a quotation or report with no stance, an unanswered question): `block` (a judge error, which
    blocks), or `model` (ask the judge model for a second reading of each such sentence)."""
    model: Label | None = None
    """The model for the second reading (`uncertain: model`); the run's judge model when omitted."""
    languages: list[str] | None = Field(default=None, min_length=1)
    """The languages answers are written in (ISO 639-1: en, fr, it, ...), each sentence identified
    among them. Those the reader reads (en fr es de it pt nl pl) are read; a sentence in another one has
    its matches handed over as uncertain (blocked, or read again by the model, as `uncertain` says).
    Omitted: the eight the reader reads."""

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: list[str] | None) -> list[str] | None:
        from assay_runner.text.language import IDENTIFIED

        unknown = [code for code in value or [] if code not in IDENTIFIED]
        if unknown:
            raise ValueError(f"unknown language code(s) {unknown}: use ISO 639-1 codes such as en, fr, it")
        return value


class FormatJudge(JudgeBase):
    """Required markdown sections and a word limit; score = share of checks passed."""

    type: Literal["format"]
    sections: list[Phrase] = Field(default_factory=lambda: ["Summary", "Steps", "Next"])
    """Heading words the answer must contain as markdown headings, in any order."""
    max_words: int = Field(default=250, ge=1, le=MAX_COUNT)
    """The most words the answer may have (a plain integer: `1:30` is refused, not read as 90)."""
    key_required: ClassVar[bool] = False


class AbstentionJudge(JudgeBase):
    """Declines when the key says to abstain (citing the scope policy), answers otherwise."""

    type: Literal["abstention"]
    refusal_phrases: list[Phrase] | None = None
    """Phrases that mark a refusal; the built-in list when omitted."""


class ExitCodeJudge(JudgeBase):
    """The agent's exit code: 1.0 on 0, else 0.0. A crash is a crash."""

    type: Literal["exit_code"]
    weight: float = Field(default=0.0, ge=0, le=1000)
    threshold: float = 1.0
    key_required: ClassVar[bool] = False

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return exit_code is None


class CodeJudge(JudgeBase):
    """User Python: the body of `def judge(inputs, outputs)`, inline or from a file in the suite."""

    type: Literal["code"]
    code: str | None = None
    file: PathText | None = None
    """Path relative to the suite directory of a file defining `judge(inputs, outputs)`."""
    needs_key: bool = True
    """False when the judge can run without an answer key (online judging)."""
    timeout_seconds: float = Field(default=10.0, gt=0, le=600)
    """Per call: a slower call is killed and recorded as a judge error (blocks)."""
    memory_mb: int = Field(default=1024, ge=64, le=65536)
    """Address-space limit of the worker process the code runs in."""

    def uses_key(self) -> bool:
        return self.needs_key

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return True  # the user's code decides

    deterministic: ClassVar[bool] = False  # user code may read files or the clock

    @model_validator(mode="after")
    def _one_source(self) -> CodeJudge:
        if (self.code is None) == (self.file is None):
            raise ValueError("give exactly one of 'code' or 'file'")
        if self.code is not None:
            from assay_runner.usercode.worker import judge_source

            source, filename = judge_source(self.name, self.code, None, None)
            try:
                compile(source, filename, "exec")
            except (SyntaxError, ValueError) as exc:
                raise ValueError(f"code does not compile: {exc}") from None
        return self


class TrajectoryJudge(JudgeBase):
    """Reads what the agent did, not only what it answered: each check it is given must hold on the cell's
    trajectory (`contract.Trajectory`); score = share of its checks that hold. Not applicable to a cell
    with no trajectory (agents whose transcript tells no steps: `chat`, `command`, `replay` of answers
    recorded without one)."""

    type: Literal["trajectory"]
    cited_articles_read: bool = False
    """Every KB article the answer cites was read: its content reached the model in a tool result the
    metering proxy relayed (an excerpt of 400 characters, or all of a shorter article), whatever the command:
    an answer must not cite what the agent never opened."""
    allowed_tools: list[ToolAction] | None = None
    """Only tool calls of these kinds (`list`, `read`, `search`, `write`, `edit`, `shell`, `web`,
    `delegate`, `other`), whichever CLI made them."""
    max_tool_calls: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    """At most this many tool calls."""
    max_failed_tool_calls: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    """At most this many tool calls that failed (the tool reported an error)."""
    key_required: ClassVar[bool] = False  # the checks read the answer, the KB and the trajectory

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return True  # a cell without a trajectory

    @model_validator(mode="after")
    def _some_check(self) -> TrajectoryJudge:
        checks = (
            self.cited_articles_read,
            self.allowed_tools,
            self.max_tool_calls,
            self.max_failed_tool_calls,
        )
        if not any(check is not None and check is not False for check in checks):
            raise ValueError(
                "give at least one check: citedArticlesRead, allowedTools, maxToolCalls or maxFailedToolCalls"
            )
        return self


class ConversationJudge(JudgeBase):
    """What the conversation judges share: they read a conversational ticket's exchange, against its key's
    hidden facts; not applicable to a ticket that is no conversation. A conversational ticket whose cell has
    no exchange recorded (answered by an agent that never met its customer) is a judge error, which blocks."""

    @classmethod
    def may_not_apply(cls, key: AnswerKey, exit_code: int | None) -> bool:
        return key.conversation is None


class AskedFirstJudge(ConversationJudge):
    """Whether the agent asked for each hidden fact before it first answered (a turn asking for nothing);
    score = share of the hidden facts so asked for."""

    type: Literal["asked_first"]


class UnsaidFactsJudge(ConversationJudge):
    """Whether the agent stated a hidden fact before the customer said it (a `statedWhen` phrase in an
    agent turn before the customer's turn revealing it): an answer resting on a guess. 1.0 when it never did,
    else 0.0, naming the facts and turns."""

    type: Literal["unsaid_facts"]


class TurnsJudge(ConversationJudge):
    """How many agent turns the conversation took, against a limit: 1.0 when the agent answered within
    `maxTurns` (the ticket's turn limit when omitted), else 0.0."""

    type: Literal["turns"]
    max_turns: int | None = Field(default=None, ge=1, le=1000)
    """The most agent turns an answer may take to count; the ticket's `turnLimit` when omitted."""


class ModelJudge(JudgeBase):
    """A model grades the answer against a rubric, sampled several times; the median counts."""

    type: Literal["model"]  # a discriminator's tag stays a literal; it is contract.MODEL_JUDGE
    rubric: str = Field(min_length=1)
    scale: tuple[int, int] = MODEL_SCALE
    """Lowest and highest score the rubric allows."""
    samples: int = Field(default=3, ge=1, le=15)
    max_spread: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """When set, samples further apart than this (raw scale) make the verdict inconclusive, which blocks."""
    model: Label | None = None
    """Model name sent to the gateway; the run's judge model when omitted."""
    temperature: float = Field(default=0.7, ge=0, le=2)
    """Sampling temperature: above 0 so that samples are independent draws (each with its own seed)."""
    deterministic: ClassVar[bool] = False  # sampled
    key_required: ClassVar[bool] = False  # the rubric alone can grade an ad-hoc answer

    @field_validator("scale", mode="before")
    @classmethod
    def _pair(cls, scale: object) -> object:
        # YAML has no tuples: `[1, 5]` is the pair (suites are validated strictly, which refuses a list).
        return tuple(scale) if isinstance(scale, list) else scale

    @field_validator("scale")
    @classmethod
    def _ordered(cls, scale: tuple[int, int]) -> tuple[int, int]:
        if scale[0] >= scale[1]:
            raise ValueError(f"scale must be [low, high] with low < high, got {list(scale)}")
        if not -MAX_SCALE <= scale[0] < scale[1] <= MAX_SCALE:
            raise ValueError(f"scale must lie within [-{MAX_SCALE}, {MAX_SCALE}], got {list(scale)}")
        return scale


JudgeSpec = Annotated[
    KbCitationJudge
    | MustMentionJudge
    | PolicyJudge
    | FormatJudge
    | AbstentionJudge
    | ExitCodeJudge
    | CodeJudge
    | ModelJudge
    | TrajectoryJudge
    | AskedFirstJudge
    | UnsaidFactsJudge
    | TurnsJudge,
    Field(discriminator="type"),
]


def _kinds() -> dict[str, type[JudgeBase]]:
    members: tuple[type[JudgeBase], ...] = typing.get_args(typing.get_args(JudgeSpec)[0])
    return {kind.kind_tag(): kind for kind in members}


JUDGE_KINDS: dict[str, type[JudgeBase]] = _kinds()
"""Every judge kind by its `type` tag, derived from JudgeSpec: the one list of judge kinds."""
DETERMINISTIC_KINDS = frozenset(name for name, kind in JUDGE_KINDS.items() if kind.deterministic)


class AnswerKey(WireModel):
    kb: list[Annotated[str, Field(pattern=KB_ID)]] = Field(default_factory=no_items)
    """Articles a correct answer cites."""
    must_mention: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=no_items)
    """Facts a correct answer states."""
    forbidden: list[Forbidden] = Field(default_factory=no_items)
    """Advice this ticket's answer must not give, on top of the suite-wide list."""
    should_abstain: bool = False
    """The right answer is to decline or say the request is out of scope."""
    scope_policy: str | None = Field(default=None, pattern=KB_ID)
    """The scope article an abstention must cite."""
    notes: str = ""
    """Free notes for the model judge: what a great answer does."""
    conversation: ConversationSpec | None = None
    """The ticket is a conversation: a customer who answers back, with facts they say only when asked
    (`suite.conversation`). Key, not question: the agent never sees what the customer knows."""


class Ticket(WireModel):
    id: str = Field(pattern=TICKET_ID)
    split: Split
    question: NonBlank
    key: AnswerKey = Field(default_factory=AnswerKey)

    @model_validator(mode="after")
    def _hidden_facts_hidden(self) -> Ticket:
        conversation = self.key.conversation
        stated = conversation.stated_in(self.question) if conversation is not None else []
        if stated:
            raise ValueError(
                f"the question already states hidden fact(s) {', '.join(stated)} (a phrase of their "
                "statedWhen): a fact the agent is told is not one it must ask for"
            )
        return self


def customer_models(tickets: Iterable[Ticket], judge_model: str | None) -> dict[str, str | None]:
    """Who plays a customer on which model: `model customer of T-1` -> its model (None: none is given)."""
    return {
        f"the model customer of {ticket.id}": ticket.key.conversation.customer.model or judge_model
        for ticket in tickets
        if ticket.key.conversation is not None and ticket.key.conversation.customer.played_by == "model"
    }


class TicketsFile(WireModel):
    tickets: list[Ticket]


class KeysFile(WireModel):
    """`keys.yaml`: the answer keys of a split suite, by ticket id (see assay_runner.suite.split)."""

    keys: dict[str, AnswerKey]


class CustomersFile(WireModel):
    """`customers.yaml`: the conversational tickets' customers of a split suite, by ticket id (each one's
    `conversation`, nothing else of its key): what the answer phase plays the customer from."""

    customers: dict[str, ConversationSpec]


class CalibrationRequirement(WireModel):
    """`calibration:` in suite.yaml: which judges must have been checked against people to gate, and how
    well they must agree with them (`assay calibrate` writes the file). A listed judge without a valid
    calibration (no file, no entry, another definition, too few labels, kappa below) runs as a shadow judge,
    and the result says why."""

    judges: list[Annotated[str, Field(pattern=JUDGE_NAME)]] = Field(min_length=1)
    """The judges that need a calibration to gate."""
    file: str = CALIBRATION_FILE
    """Path, relative to the suite directory, of the calibration `assay calibrate --out` wrote."""
    min_kappa: float = Field(default=0.6, ge=-1, le=1)
    """The least Cohen's kappa (weighted kappa for scores) of the judge against the labels."""
    min_labels: int = Field(default=50, ge=1)
    """The least number of labelled answers the kappa was computed on."""


class SuiteSpec(WireModel):
    """`suite.yaml`."""

    name: str = Field(pattern=r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
    description: str = ""
    judges: list[JudgeSpec] = Field(min_length=1)
    gate: GateSettings = Field(default_factory=GateSettings)
    pass_criterion: PassCriterion = Field(default_factory=PassCriterion)
    tickets: list[Ticket] | None = None
    tickets_file: PathText | None = None
    """Path, relative to the suite directory, of a YAML file with a `tickets:` list."""
    require_distinct_judge_model: bool = False
    """A model judge on the agent's own model is an error, not only a warning in the result."""
    model_aliases: dict[Label, Label] = Field(default_factory=dict)
    """Names that are the same model (`{fast: acme-large-2026-05-01, acme-large: acme-large-2026-05-01}`), as
    the gateway routes them: a model judge on an alias of the agent's model is the agent's model. A name is
    also read without its provider prefix, a trailing date or `-latest`."""
    prices: dict[Label, PriceConfig] = Field(default_factory=dict)
    """USD per million input and output tokens, by model (`{inputPerMillion, outputPerMillion}`): usage
    becomes cost. A RunConfig's (or Evaluation's) prices override these model by model."""
    calibration: CalibrationRequirement | None = None
    """Judges that gate only once calibrated against people (`assay calibrate`)."""
    isolation: IsolationLevel = "best-effort"
    """`required`: every run of this suite refuses to start where the kernel cannot sandbox each agent
    program fully (assay_runner.sandbox); a RunConfig may require it too, never waive it."""

    @field_validator("pass_criterion", mode="before")
    @classmethod
    def _criterion_shorthand(cls, value: object) -> object:
        # `passCriterion: allJudgesTop` or `passCriterion: {minTicketScore: 0.9}` are the documented forms.
        if isinstance(value, str):
            return {"kind": value}
        if isinstance(value, dict) and set(value) == {"minTicketScore"}:
            return {"kind": "minTicketScore", "minTicketScore": value["minTicketScore"]}
        return value

    @model_validator(mode="after")
    def _coherent(self) -> SuiteSpec:
        names = [judge.name for judge in self.judges]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"judge names must be unique; repeated: {', '.join(duplicates)}")
        if not any(judge.weight > 0 for judge in self.judges):
            raise ValueError("at least one judge needs a weight above 0, or no ticket can be scored")
        if not any(judge.weight > 0 and not judge.shadow for judge in self.judges):
            raise ValueError("at least one judge with a weight above 0 must gate (not shadow)")
        if self.calibration is not None:
            unknown = sorted(set(self.calibration.judges) - set(names))
            if unknown:
                raise ValueError(f"calibration names no judge of this suite: {', '.join(unknown)}")
        if (self.tickets is None) == (self.tickets_file is None):
            raise ValueError("give exactly one of 'tickets' or 'ticketsFile'")
        criterion = self.pass_criterion
        if criterion.kind == "minTicketScore" and criterion.min_ticket_score is None:
            raise ValueError("passCriterion minTicketScore needs a value")
        return self
