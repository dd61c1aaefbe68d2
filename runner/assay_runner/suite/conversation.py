"""A conversational ticket: a customer who answers back, and what the customer knows but does not say.

Part of the answer key (`AnswerKey.conversation`), never of the public part: the hidden facts are what the
agent must ask for, so an agent that could read them could "ask" for show. The split puts the whole of it in
`keys.yaml` like the rest of the key (`contract.suite_parts`).

```yaml
key:
  conversation:
    customer: {persona: "a home user, not technical", tone: "short and a little impatient"}
    hidden:
      - name: router
        says: "It is a Zyxel VMG8825."
        askedWhen: ["router model", "which router", "what router"]
        statedWhen: ["VMG8825", "Zyxel"]
    unprompted: fixDidNotWork        # or repeatProblem, or {reply: "..."}
    turnLimit: 4
```
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from assay_runner.contract import NonBlank, WireModel
from assay_runner.contract.text_fields import Label
from assay_runner.suite.fields import Phrase

MAX_TURNS = 50
"""The most turns a conversation may be given: each is a whole agent run."""


def mentioned(text: str, phrases: list[str]) -> str | None:
    """The first of `phrases` that `text` has, as whole words in any case (spaces matching any run of
    whitespace); None when it has none. The one reading of "asked for" and "stated" (customer and judges)."""
    for phrase in phrases:
        words = r"\s+".join(re.escape(word) for word in phrase.split())
        if re.search(rf"(?<!\w){words}(?!\w)", text, re.IGNORECASE):
            return phrase
    return None


class Customer(WireModel):
    """Who asks: how the customer is played, and by what."""

    persona: NonBlank
    """Who the customer is ("a home user, not technical")."""
    tone: NonBlank = "plain and polite"
    """How the customer writes."""
    played_by: Literal["scripted", "model"] = "scripted"
    """`scripted`: replies made by rules from this spec (offline, deterministic); `model`: a model phrases
    each reply through the judge's gateway (metered apart from the agent, recorded in cassettes)."""
    model: Label | None = None
    """The model that plays the customer (`playedBy: model`); the run's judge model when omitted. It must not
    be the agent's model (checked like a model judge's independence)."""


class HiddenFact(WireModel):
    """A fact the customer knows and reveals only when the agent asks for it."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-zA-Z0-9_]{0,62}$")]
    """How results and reasons name the fact."""
    says: NonBlank
    """The customer's words when asked (the scripted customer says exactly this)."""
    asked_when: list[Phrase] = Field(min_length=1)
    """What counts as asking for it: an agent turn that has any of these phrases (whole words, any case)."""
    stated_when: list[Phrase] = Field(min_length=1)
    """What shows the fact was said: a customer turn with any of these phrases revealed it; an agent turn
    with one before that stated something the customer had not said. `says` must have one."""

    @model_validator(mode="after")
    def _says_it(self) -> HiddenFact:
        if mentioned(self.says, self.stated_when) is None:
            raise ValueError(
                f"says {self.says!r} has none of its statedWhen phrases: a customer saying it would not be "
                "seen to reveal it"
            )
        return self


class UnpromptedReply(WireModel):
    reply: NonBlank
    """What the customer says, word for word, when the agent answers without asking."""


Unprompted = Literal["repeatProblem", "fixDidNotWork"] | UnpromptedReply


class ConversationSpec(WireModel):
    """`key.conversation`: the ticket is a conversation, not one question and one answer."""

    customer: Customer
    hidden: list[HiddenFact] = Field(min_length=1)
    """What the customer knows and says only when asked; the ticket can be solved only by asking."""
    unprompted: Unprompted = "repeatProblem"
    """What the customer does when the agent answers while a hidden fact is still unsaid: repeats the
    problem, says the fix did not work, or gives this reply."""
    turn_limit: int = Field(default=4, ge=2, le=MAX_TURNS)
    """The most agent turns (at least 2: one to ask, one to answer): a conversation still going after this
    many blocks, naming the limit."""

    @model_validator(mode="after")
    def _distinct_names(self) -> ConversationSpec:
        names = [fact.name for fact in self.hidden]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"hidden fact names must be unique; repeated: {', '.join(repeated)}")
        return self

    def stated_in(self, text: str) -> list[str]:
        """The hidden facts `text` (the ticket's question) already states: such a fact is not hidden."""
        return [fact.name for fact in self.hidden if mentioned(text, fact.stated_when)]
