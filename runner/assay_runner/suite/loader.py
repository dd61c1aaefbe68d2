"""Loading a suite directory: `suite.yaml`, its tickets and its `kb/` articles, checked as a whole.

All problems found are reported together (file, field, line), so one run of `assay validate` shows
everything to fix; nothing is scored from a suite that does not validate.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pydantic import ValidationError

from assay_runner.contract import not_utf8
from assay_runner.errors import InputError, Problem, not_a_file
from assay_runner.suite.models import (
    JUDGE_KINDS,
    AnswerKey,
    CustomersFile,
    KeysFile,
    SuiteSpec,
    Ticket,
    TicketsFile,
)
from assay_runner.suite.yamlsource import YamlDocument

SUITE_FILE = "suite.yaml"
KB_DIR = "kb"


# Names pydantic puts in error locations that are not keys of the YAML file.
TRANSPARENT = frozenset(JUDGE_KINDS) | {"str", "ForbiddenPattern"}


@dataclass(frozen=True)
class Suite:
    """A validated suite, ready to judge answers against."""

    spec: SuiteSpec
    root: Path
    tickets: list[Ticket]
    kb: dict[str, str] = field(default_factory=dict)
    """Article id -> markdown text."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Every file the suite is made of (relative path -> bytes), for its digest."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def has_keys(self) -> bool:
        """Whether any ticket carries an answer key (a public part carries none)."""
        return any(ticket.key != AnswerKey() for ticket in self.tickets)

    @property
    def has_answer_keys(self) -> bool:
        """Whether any ticket carries more of a key than its customer (`with_customers` adds only that)."""
        return any(
            ticket.key.model_copy(update={"conversation": None}) != AnswerKey() for ticket in self.tickets
        )

    @property
    def has_conversations(self) -> bool:
        return any(ticket.key.conversation is not None for ticket in self.tickets)

    def without_keys(self) -> Suite:
        """The suite as the answer phase may hold it: questions, KB and judges, no answer key."""
        tickets = [ticket.model_copy(update={"key": AnswerKey()}) for ticket in self.tickets]
        return Suite(spec=self.spec, root=self.root, tickets=tickets, kb=self.kb, files=self.files)

    def ticket(self, ticket_id: str) -> Ticket:
        for ticket in self.tickets:
            if ticket.id == ticket_id:
                return ticket
        raise KeyError(ticket_id)

    def select(self, which: str | list[str]) -> list[Ticket]:
        """Tickets by split (`training`, `validation`, `all`) or by a list of ids (unknown ids are errors)."""
        if isinstance(which, str):
            if which == "all":
                return list(self.tickets)
            if which in ("training", "validation"):
                return [t for t in self.tickets if t.split == which]
            raise InputError(f"unknown ticket selection {which!r}: use training, validation, all or ids")
        known = {t.id for t in self.tickets}
        unknown = [tid for tid in which if tid not in known]
        if unknown:
            raise InputError(f"suite {self.name!r} has no ticket(s) {', '.join(unknown)}")
        wanted = set(which)
        return [t for t in self.tickets if t.id in wanted]


def load_suite(path: str | Path, kb_dir: str | Path | None = None, keys: str | Path | None = None) -> Suite:
    """`kb_dir` overrides `<suite>/kb` (on the cluster the articles come from their own ConfigMap); `keys`
    names the answer-key file of a split suite (`path` then holds only the public part).

    Every problem is reported in one pass: a suite.yaml that does not validate is still read for what can
    be checked without it (its tickets file, its judge code files, its articles), so one run of `assay
    validate` lists everything to fix. Validation is strict: no value is coerced ("0.9" is not a number,
    1 is not true)."""
    root = Path(path)
    if not root.is_dir():
        raise InputError([Problem(str(root), "", "suite directory not found")])
    suite_doc = YamlDocument(root / SUITE_FILE, str(root / SUITE_FILE))
    if not isinstance(suite_doc.data, dict):
        raise InputError([Problem(suite_doc.display, "", "must be a mapping with name, judges and tickets")])
    raw: dict[str, object] = suite_doc.data
    problems: list[Problem] = []
    spec: SuiteSpec | None = None
    try:
        spec = SuiteSpec.model_validate(raw, strict=True)
    except ValidationError as exc:
        problems.extend(suite_doc.problems(exc, transparent=TRANSPARENT))
        problems.extend(_raw_coherence(raw, suite_doc))

    files: dict[str, bytes] = {SUITE_FILE: (root / SUITE_FILE).read_bytes()}
    listed, tickets_doc = _load_tickets(root, spec, raw, suite_doc, problems, files)
    tickets = [ticket for ticket in listed if ticket is not None]
    if keys is not None and tickets_doc is not None:
        tickets = _merge_keys(Path(keys), tickets, problems)
    kb = _load_kb(Path(kb_dir) if kb_dir is not None else root / KB_DIR, problems, files)
    if tickets_doc is not None:
        problems.extend(_cross_check(listed, kb, tickets_doc, root))
    problems.extend(_check_code_files(raw, root, suite_doc, files))
    if spec is not None and spec.calibration is not None:
        problems.extend(_read_calibration(spec.calibration.file, root, suite_doc, files))
    if problems or spec is None:
        raise InputError(problems)
    return Suite(spec=spec, root=root, tickets=tickets, kb=kb, files=files)


def _raw_coherence(raw: dict[str, object], doc: YamlDocument) -> list[Problem]:
    """What `SuiteSpec`'s own check says of a whole suite, read from the raw file when some other field
    does not validate (pydantic runs that check only on a valid model): so it is not reported a run
    later."""
    problems: list[Problem] = []
    judges = raw.get("judges")
    if isinstance(judges, list):
        names = [str(j["name"]) for j in judges if isinstance(j, dict) and isinstance(j.get("name"), str)]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            message = f"judge names must be unique; repeated: {', '.join(repeated)}"
            problems.append(Problem(doc.display, "judges", message, doc.line_of(("judges",))))
    if ("tickets" in raw) == ("ticketsFile" in raw):
        problems.append(Problem(doc.display, "", "give exactly one of 'tickets' or 'ticketsFile'"))
    return problems


def _load_tickets(
    root: Path,
    spec: SuiteSpec | None,
    raw: dict[str, object],
    suite_doc: YamlDocument,
    problems: list[Problem],
    files: dict[str, bytes],
) -> tuple[list[Ticket | None], YamlDocument | None]:
    """The tickets, from suite.yaml or its tickets file, and the document they are in; a ticket that does
    not validate is None (its problems are already among the suite's)."""
    if spec is not None and spec.tickets is not None:
        return [*spec.tickets], suite_doc
    if spec is None:
        inline = raw.get("tickets")
        if isinstance(inline, list):  # their problems are among the suite's; read them for the cross-check
            return _valid_tickets(inline), suite_doc
    tickets_file = spec.tickets_file if spec is not None else raw.get("ticketsFile")
    if not isinstance(tickets_file, str) or not _usable(tickets_file):
        return [], None
    tickets_path = root / tickets_file
    resolved = tickets_path.resolve()
    where = Problem(suite_doc.display, "ticketsFile", "", suite_doc.line_of(("ticketsFile",)))
    if root.resolve() not in resolved.parents:
        problems.append(replace(where, message=f"{tickets_file!r} must name a file inside the suite"))
        return [], None
    if not resolved.exists():
        problems.append(Problem(str(tickets_path), "", "file not found"))
        return [], None
    if not resolved.is_file():
        problems.append(replace(where, message=f"{tickets_file!r} is not a file in the suite"))
        return [], None
    try:
        doc = YamlDocument(tickets_path, str(tickets_path))
    except InputError as exc:
        problems.extend(exc.problems)
        return [], None
    files[tickets_file] = tickets_path.read_bytes()
    try:
        return [*TicketsFile.model_validate(doc.data, strict=True).tickets], doc
    except ValidationError as exc:
        problems.extend(doc.problems(exc, transparent=TRANSPARENT))
        listed = doc.data.get("tickets") if isinstance(doc.data, dict) else None
        return (_valid_tickets(listed), doc) if isinstance(listed, list) else ([], None)


def _valid_tickets(items: list[object]) -> list[Ticket | None]:
    """Each ticket that validates on its own, None in place of one that does not: a list with one bad
    ticket is still cross-checked (duplicate ids, missing articles) in the same pass as its errors."""
    valid: list[Ticket | None] = []
    for item in items:
        try:
            valid.append(Ticket.model_validate(item, strict=True))
        except ValidationError:
            valid.append(None)
    return valid


def _usable(path: str) -> bool:
    """Whether a path read from a suite that did not validate can be looked at (its own problem, a NUL or
    a lone surrogate, is reported by the model's check)."""
    return "\x00" not in path and not any(0xD800 <= ord(c) <= 0xDFFF for c in path)


def _merge_keys(path: Path, tickets: list[Ticket], problems: list[Problem]) -> list[Ticket]:
    """Every ticket gets its key from the key file: one entry per ticket, no more, none in the public part
    (a key in both places would leave it unclear which one judged)."""
    if not path.is_file():
        problems.append(Problem(str(path), "", "answer-key file not found"))
        return tickets
    try:
        doc = YamlDocument(path, str(path))
    except InputError as exc:
        problems.extend(exc.problems)
        return tickets
    try:
        keys = KeysFile.model_validate(doc.data, strict=True).keys
    except ValidationError as exc:
        problems.extend(doc.problems(exc, transparent=TRANSPARENT))
        return tickets
    ids = [ticket.id for ticket in tickets]
    for unknown in sorted(set(keys) - set(ids)):
        problems.append(Problem(doc.display, f"keys.{unknown}", "no ticket with this id in the suite"))
    merged: list[Ticket] = []
    for ticket in tickets:
        if ticket.key != AnswerKey():
            problems.append(
                Problem(doc.display, f"keys.{ticket.id}", "this ticket also has a key in the public part")
            )
        if ticket.id not in keys:
            problems.append(Problem(doc.display, "keys", f"no answer key for ticket {ticket.id!r}"))
            merged.append(ticket)
            continue
        merged.append(ticket.model_copy(update={"key": keys[ticket.id]}))
    return merged


def with_customers(suite: Suite, path: Path) -> Suite:
    """The public part of a split suite with its customers (`customers.yaml`, `assay split --customer`): each
    conversational ticket's key gets its `conversation`, and nothing else. The answer phase plays the
    customers from it; a missing file is a suite with no conversation (the split writes none then)."""
    if not path.exists():
        return suite
    if not path.is_file():
        raise InputError([Problem(str(path), "", "is not a file (the suite's customers, customers.yaml)")])
    doc = YamlDocument(path, str(path))
    try:
        customers = CustomersFile.model_validate(doc.data, strict=True).customers
    except ValidationError as exc:
        raise InputError(list(doc.problems(exc, transparent=TRANSPARENT))) from None
    ids = {ticket.id for ticket in suite.tickets}
    problems = [
        Problem(doc.display, f"customers.{unknown}", "no ticket with this id in the suite")
        for unknown in sorted(set(customers) - ids)
    ]
    tickets: list[Ticket] = []
    for ticket in suite.tickets:
        if ticket.id in customers:
            if ticket.key.conversation is not None:
                problems.append(
                    Problem(doc.display, f"customers.{ticket.id}", "this ticket has its customer")
                )
            stated = customers[ticket.id].stated_in(ticket.question)
            if stated:  # as in a whole suite (`Ticket`): a fact the agent is told is not one it must ask for
                problems.append(
                    Problem(
                        doc.display,
                        f"customers.{ticket.id}",
                        f"the question already states {', '.join(stated)}",
                    )
                )
            key = ticket.key.model_copy(update={"conversation": customers[ticket.id]})
            tickets.append(ticket.model_copy(update={"key": key}))
            continue
        tickets.append(ticket)
    if problems:
        raise InputError(problems)
    return replace(suite, tickets=tickets)


def _load_kb(kb_dir: Path, problems: list[Problem], files: dict[str, bytes]) -> dict[str, str]:
    if not kb_dir.is_dir():
        return {}
    kb: dict[str, str] = {}
    for article in sorted(kb_dir.glob("*.md")):
        name = not_utf8(article.name)
        if name is not None:
            message = "file name is not UTF-8 (shown with its bytes escaped); rename the article"
            problems.append(Problem(str(kb_dir / name), "", message))
            continue
        unreadable = not_a_file(article)
        if unreadable is not None:
            problems.append(Problem(str(article), "", f"{unreadable} (an article is a markdown file)"))
            continue
        try:
            kb[article.stem] = article.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(str(article), "", f"not UTF-8 text: {exc}"))
            continue
        files[f"{KB_DIR}/{article.name}"] = article.read_bytes()
    return kb


def _duplicate_ids(doc: YamlDocument) -> list[Problem]:
    """Ids given twice, read from the file's own list: a ticket whose other fields do not validate still
    has its id counted, so a duplicate is reported with them, not a run later."""
    listed = doc.data.get("tickets") if isinstance(doc.data, dict) else None
    seen: set[str] = set()
    problems: list[Problem] = []
    for index, item in enumerate(listed if isinstance(listed, list) else []):
        ticket_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(ticket_id, str):
            continue
        if ticket_id in seen:
            where = ("tickets", index, "id")
            message = f"duplicate ticket id {ticket_id!r}"
            problems.append(Problem(doc.display, f"tickets[{index}].id", message, doc.line_of(where)))
        seen.add(ticket_id)
    return problems


def _cross_check(
    tickets: list[Ticket | None], kb: dict[str, str], doc: YamlDocument, root: Path
) -> list[Problem]:
    """What one model cannot see alone: ids unique, key articles exist in kb/ (for each ticket that
    validates; None stands for one that does not)."""
    problems: list[Problem] = []
    base: tuple[str | int, ...] = ("tickets",)
    if not tickets:
        problems.append(Problem(doc.display, "tickets", "the suite has no tickets", doc.line_of(base)))
    problems.extend(_duplicate_ids(doc))
    for index, ticket in enumerate(tickets):
        if ticket is None:
            continue
        where = (*base, index)
        for article in ticket.key.kb:
            if article not in kb:
                problems.append(
                    Problem(
                        doc.display,
                        f"tickets[{index}].key.kb",
                        f"article {article!r} not found in {root / KB_DIR}",
                        doc.line_of((*where, "key", "kb")),
                    )
                )
        for fact_index, fact in enumerate(ticket.key.must_mention):
            if not has_words(fact):
                problems.append(
                    Problem(
                        doc.display,
                        f"tickets[{index}].key.mustMention[{fact_index}]",
                        f"fact {fact!r} has no words to look for",
                        doc.line_of((*where, "key", "mustMention")),
                    )
                )
        policy = ticket.key.scope_policy
        if policy is not None and policy not in kb:
            problems.append(
                Problem(
                    doc.display,
                    f"tickets[{index}].key.scopePolicy",
                    f"article {policy!r} not found in {root / KB_DIR}",
                    doc.line_of((*where, "key", "scopePolicy")),
                )
            )
        if policy is not None and not ticket.key.should_abstain:
            problems.append(
                Problem(
                    doc.display,
                    f"tickets[{index}].key.scopePolicy",
                    "scopePolicy only applies when shouldAbstain is true",
                    doc.line_of((*where, "key", "scopePolicy")),
                )
            )
    return problems


def has_words(phrase: str) -> bool:
    # The words before normalisation: normalising would load the markup engine before the first agent
    # starts. A phrase that is only markup ("<b></b>") passes here and is a judge error when judged.
    # Imported here: a suite with no fact to check (a code judge's, say) loads no text machinery at all
    # before its first agent.
    from assay_runner.text.match import tokenize

    return bool(tokenize(phrase))


def _read_calibration(source: str, root: Path, doc: YamlDocument, files: dict[str, bytes]) -> list[Problem]:
    """The calibration file, when there is one: a missing file is not an error (its judges then run as
    shadow judges, saying why), a path out of the suite is."""
    path = (root / source).resolve()
    if root.resolve() not in path.parents:
        where = doc.line_of(("calibration", "file"))
        return [Problem(doc.display, "calibration.file", "must stay inside the suite directory", where)]
    if path.is_file():
        files[source] = path.read_bytes()
    return []


def _check_code_files(
    raw: dict[str, object], root: Path, doc: YamlDocument, files: dict[str, bytes]
) -> list[Problem]:
    """The code judges' files, read from the raw judges (so they are checked even when another field of
    suite.yaml does not validate)."""
    problems: list[Problem] = []
    judges = raw.get("judges")
    for index, judge in enumerate(judges if isinstance(judges, list) else []):
        source = judge.get("file") if isinstance(judge, dict) and judge.get("type") == "code" else None
        if not isinstance(source, str) or not _usable(source):
            continue
        path = (root / source).resolve()
        if root.resolve() not in path.parents:
            problems.append(
                Problem(
                    doc.display,
                    f"judges[{index}].file",
                    "must stay inside the suite directory",
                    doc.line_of(("judges", index, "file")),
                )
            )
        elif not path.is_file():
            problems.append(
                Problem(
                    doc.display,
                    f"judges[{index}].file",
                    f"file not found: {path}",
                    doc.line_of(("judges", index, "file")),
                )
            )
        else:
            files[source] = path.read_bytes()
            try:
                compile(files[source].decode("utf-8"), str(path), "exec")
            except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
                problems.append(
                    Problem(
                        doc.display,
                        f"judges[{index}].file",
                        f"{source} does not compile: {exc}",
                        doc.line_of(("judges", index, "file")),
                    )
                )
    return problems
