"""How much of a memory its batch already holds, by the ROLE of the text that holds it.

The value gates judge a memory against its batch (issue 11): a memory that
repeats what a tool message showed or what the assistant wrote into a file
restates the repository (G003); one that narrates edits the batch shows is a
change log (G001); but what a USER said is the user's own position, which
seed 000 keeps even when the assistant then wrote it into a file.

Evidence sets are built once per batch from :attr:`RuleContext.facts`
(``ctx.memo``); a memory costs one term analysis of its content.
"""

from __future__ import annotations

import re
from typing import Any

from memvet.batchfacts import file_text, paths
from memvet.rules import _text
from memvet.rules._scripts import words_and_cjk

_STOP = frozenset(w.encode() for w in _text.STOPWORDS)

Evidence = tuple[frozenset[str], frozenset[str]]
_NONE: Evidence = (frozenset(), frozenset())


def written_evidence(ctx: Any) -> Evidence:
    """Terms and characters of everything tool messages showed or the assistant wrote into files."""
    def compute() -> Evidence:
        text = ctx.facts.written_text
        return _text.terms_and_chars(text) if text else _NONE
    return ctx.memo("memvet.sources:written", compute)


def file_support(ctx: Any, content: str) -> float:
    """Share of the content (0..1) that FILE text of the batch holds: what tools read, wrote or
    committed, and the assistant's file blocks -- not the output of commands (an investigation's
    result, which seed 000 keeps when it would need a new investigation)."""
    def compute() -> Evidence:
        text = file_text(ctx.facts, ctx.batch)
        return _text.terms_and_chars(text) if text else _NONE
    return _share(content, ctx.memo("memvet.sources:files", compute))


def user_evidence(ctx: Any, session: str | None) -> Evidence:
    """Terms and characters of what the users of ``session`` (every session when None) said."""
    return _users_evidence(ctx, session, "memvet.sources:user")


def _users_evidence(ctx: Any, session: str | None, tag: str, acts_pass: Any = None,
                    text_of: Any = None) -> Evidence:
    """Terms and characters of the user messages of ``session`` (every session when None) whose
    batch-fact acts ``acts_pass`` lets through (all when None), each read as ``text_of(content)``;
    once per batch under ``tag``."""
    def compute() -> Evidence:
        facts = ctx.facts if acts_pass is not None else None  # the batch facts only when asked for
        text = "\n".join(m.content if text_of is None else text_of(m.content) for m in ctx.batch.messages
                         if m.role == "user" and (session is None or m.sessionKey == session)
                         and (facts is None or acts_pass(facts.of(m).acts)))
        return _text.terms_and_chars(text) if text.strip() else _NONE
    return ctx.memo((tag, session), compute)


def _share(content: str, evidence: Evidence) -> float:
    """Share of the content (0..1) that the evidence holds; 0 without evidence or without a term."""
    if not evidence[0]:
        return 0.0
    return _text.support(content, *evidence) or 0.0


#: Characters that say nothing about overlap (ASCII, which the word runs cover, and punctuation).
_NOT_CJK = frozenset(map(chr, range(128))) | frozenset("，。、；：？！（）《》“”‘’「」【】…—·　")


_LETTERS_ONLY = bytes(c if 97 <= c <= 122 else 32 for c in range(256))  # a-z kept, the rest a space


def _letter_runs(lowered: str) -> list[bytes]:
    """The maximal runs of ASCII letters of a lower-cased text ("replace" turns every other
    character into "?", which becomes a space)."""
    return lowered.encode("ascii", "replace").translate(_LETTERS_ONLY).split()


def _written_keys(ctx: Any) -> tuple[frozenset[bytes], frozenset[str]]:
    def compute() -> tuple[frozenset[bytes], frozenset[str]]:
        # Lower-cased like the folded memory text (they differ only on rare Unicode letters).
        lowered = ctx.facts.written_text.lower()
        words = _letter_runs(lowered)
        return frozenset(words), frozenset(lowered) - _NOT_CJK
    return ctx.memo("memvet.sources:written-keys", compute)


def may_restate(ctx: Any, folded: str, share: float) -> bool:
    """A cheap bound before :func:`written_support`: could that much of the text be in the batch's writes?

    Set intersections (in C) of the word runs and non-ASCII characters of the
    folded text with the same of the written text, built once per batch.
    With ``share`` below the real threshold it lets through every memory the
    full measure flags, in practice (word runs here, term stems there).
    """
    words, chars = _written_keys(ctx)
    if not words and not chars:
        return False
    mine = frozenset(_letter_runs(folded))
    if folded.isascii():
        return bool(mine) and len(mine & words) >= share * len(mine)
    own = frozenset(folded) - _NOT_CJK
    total = len(mine) + len(own)
    return bool(total) and len(mine & words) + len(own & chars) >= share * total


def written_support(ctx: Any, content: str) -> float:
    """Share of the content (0..1) that the batch's tool output and file writes already hold."""
    return _share(content, written_evidence(ctx))


def user_support(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Share of the content (0..1) that a user of the memory's session said in this batch."""
    return _share(content, user_evidence(ctx, ctx.resolve_sources(memory)[1]))


#: Lines a user pasted rather than wrote: fenced blocks, indented lines, lines that end like code
#: (``;`` ``{`` ``}``), property or log lines ("border: 16px solid;", "Traceback ...").
_PASTED_LINE = re.compile(r"(?m)^(?:[ \t]+\S.*|.*[;{}]\s*|\s*<[^>]+>.*|.*\b(?:Traceback|Error|at [\w.$]+\().*)$")


def told_by_users(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Like :func:`user_support`, but without the user messages that only ask: a question names
    what it asks about ("how does the bot send images?") and says nothing of it."""
    return _share(content, _users_evidence(ctx, ctx.resolve_sources(memory)[1], "memvet.sources:user-told",
                                           lambda acts: "asks" not in acts or "states" in acts))


def user_prose(text: str) -> str:
    """What a user WROTE in a message: its text without the code, markup and logs it pasted."""
    if "```" in text or "~~~" in text:
        text = _text.FENCED_BLOCK.sub("\n", text)
    return _PASTED_LINE.sub("", text)


def user_prose_support(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Like :func:`user_support`, but only against what users STATED (a position, a rule: not a
    request or a question) in their own words (not the code they pasted): a change log that repeats
    a pasted stylesheet, or that carries out "can you make the shadow stand out more", is not the
    user's position told back."""
    return _share(content, _users_evidence(ctx, ctx.resolve_sources(memory)[1], "memvet.sources:user-prose",
                                           lambda acts: "states" in acts and "asks" not in acts, user_prose))


def stated_support(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Share of the content (0..1) that the memory's source user messages STATE (a position, a rule; not a question)."""
    facts, texts = ctx.facts, []
    for m in ctx.sources(memory):
        if m.role == "user":
            acts = facts.of(m).acts
            if "states" in acts and "asks" not in acts:
                texts.append(m.content or "")
    if not texts:
        return 0.0
    return _text.support(content, *_text.terms_and_chars("\n".join(texts))) or 0.0


#: A run of at least this many characters shared with an error line is the error's own text.
_ERROR_QUOTE_CHARS = 16
_SPACES = re.compile(r"\s+")


def quotes_source_error(ctx: Any, memory: dict[str, Any], content: str) -> bool:
    """The memory quotes an error line that a cited tool message printed ("… 会报 LLM Provider NOT
    provided"): a symptom a later session can recognise, not a retelling of what the agent ran."""
    facts = ctx.facts
    errors = [e for m in ctx.sources(memory) if m.role == "tool" for e in facts.of(m).errors]
    if not errors:
        return False
    text = _SPACES.sub(" ", content)  # as the batch facts wrote the error lines
    for line in errors:
        # Any window of the error line's words, _ERROR_QUOTE_CHARS long, found in the memory.
        words = line.split(" ")
        for i in range(len(words)):
            span = ""
            for w in words[i:]:
                span = f"{span} {w}" if span else w
                if len(span) >= _ERROR_QUOTE_CHARS:
                    if span in text:
                        return True
                    break
    return False


def shows_edits(ctx: Any, memory: dict[str, Any]) -> bool:
    """A source of the memory writes, edits or commits (tool) or reports work done / writes files (assistant)."""
    facts = ctx.facts
    for m in ctx.sources(memory):
        if m.role == "user":
            continue
        f = facts.of(m)
        if "writes" in f.acts or f.commits or (f.role == "assistant" and "reports_done" in f.acts):
            return True
    return False


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def agent_numbers(ctx: Any) -> frozenset[str]:
    """Every number an assistant or tool message of the batch printed."""
    def compute() -> frozenset[str]:
        return frozenset(_NUMBER.findall("\n".join(m.content for m in ctx.batch.messages if m.role != "user")))
    return ctx.memo("memvet.sources:agent-numbers", compute)


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def cites_agent(ctx: Any, memory: dict[str, Any]) -> bool:
    """Some source of the memory is an assistant or tool message (or its sources are unknown)."""
    sources = ctx.sources(memory)
    return not sources or any(m.role != "user" for m in sources)


def only_agent_sources(ctx: Any, memory: dict[str, Any]) -> bool:
    """Every source of the memory is an assistant or tool message (no person said it)."""
    sources = ctx.sources(memory)
    return bool(sources) and all(m.role in ("assistant", "tool") for m in sources)


def _base(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()


def shows_instructions(ctx: Any, message: Any, files: frozenset[str], recitals: tuple[str, ...]) -> bool:
    """An assistant or tool ``message`` shows the agent's standing instructions: it names a file the
    agent loads every session (``files``, base names, lower-cased: CONVENTIONS.md, AGENTS.md, ...)
    as a tool does when it reads or edits one, or as a file block's head line does, or names one or
    recites the instructions it was given (``recitals``) where it says what it is about."""
    if message.role == "user":
        return False

    def compute() -> bool:
        lowered = _lowered(ctx, message)
        if not any(name in lowered for name in files) and not any(r in lowered for r in recitals):
            return False  # the common case, at memchr speed
        if message.role == "tool":
            return any(name in lowered for name in files)
        # Named or recited where the message says what it is about (its opening or a heading),
        # not in passing ("... the coding standards from your instructions" deep in a list);
        # or heading a file block (a line that is only the file's path).
        lines = lowered.splitlines()
        lead = "\n".join([lowered[:_LEAD], *(line for line in lines if line.lstrip().startswith("#"))])
        if any(name in lead for name in files) or any(r in lead for r in recitals):
            return True
        return any(" " not in (line := raw.strip()) and _base(line) in files for raw in lines if raw.strip())
    return ctx.memo(("memvet.sources:instructions", message.key, files, recitals), compute)


#: How far into a message its opening runs (what it says it is about).
_LEAD = 300


def instruction_support(ctx: Any, memory: dict[str, Any], content: str,
                        files: frozenset[str], recitals: tuple[str, ...]) -> float:
    """Share of the content (0..1) that the memory's agent sources showing standing instructions
    (:func:`shows_instructions`) hold: 0.0 when no source shows them."""
    texts = [m.content or "" for m in ctx.sources(memory) if shows_instructions(ctx, m, files, recitals)]
    if not texts:
        return 0.0
    return _text.support(content, *_text.terms_and_chars("\n".join(texts))) or 0.0


def _agent_text(ctx: Any) -> str:
    """Everything the assistant and the tools of the batch said, lower-cased (memoised)."""
    return ctx.memo("memvet.sources:agent-text",
                    lambda: "\n".join(m.content for m in ctx.batch.messages if m.role != "user").lower())


def listed_paths(ctx: Any, content: str, found: list[str], *, words_per_path: int, chars_per_path: int) -> int:
    """How many paths the content lists when it is a listing of files the batch's agent messages
    name (a deliverables list: "代码在 a/x.py、a/y.py，文档 docs/z.md"), else 0.

    ``found``: the content's paths (:func:`paths`). A listing: little prose beside them (at most
    ``words_per_path`` words or ``chars_per_path`` Chinese characters per path), and two
    thirds of them named by an assistant or tool message of the batch (``ls`` / ``find`` output,
    a report of files created): ``ls`` gives it back.
    """
    rest = content
    for path in sorted(found, key=len, reverse=True):
        rest = rest.replace(path, " ")
    words, chars = words_and_cjk(rest)
    if words > words_per_path * len(found) or chars > chars_per_path * len(found):
        return 0
    agent = _agent_text(ctx)
    shown = sum(1 for path in found if (base := _base(path)) and base in agent)
    return len(found) if 3 * shown >= 2 * len(found) else 0


def told_support(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Share of the content (0..1) that the memory's source user messages say without asking:
    a statement or a plain instruction ("put each sentence on its own line"), not a question."""
    facts = ctx.facts
    texts = [m.content for m in ctx.sources(memory) if m.role == "user" and "asks" not in facts.of(m).acts]
    if not texts:
        return 0.0
    return _text.support(content, *_text.terms_and_chars("\n".join(texts))) or 0.0


def _lowered(ctx: Any, message: Any) -> str:
    """A message's text lower-cased, once per batch."""
    return ctx.memo(("memvet.sources:lowered", message.key), lambda: (message.content or "").lower())


def report_support(ctx: Any, memory: dict[str, Any], content: str, found: list[str]) -> float:
    """Share of the content (0..1) that the memory's assistant sources hold when they report writing a
    file the content names (the message reports work done or writes):
    a retelling of the file, even when the export lost the edit itself. 0.0 when none does.
    ``found``: the content's paths (:func:`paths`)."""
    named = {base for p in found if (base := _base(p))}
    if not named:
        return 0.0
    facts, texts = ctx.facts, []
    for m in ctx.sources(memory):
        if m.role != "assistant":
            continue
        lowered = _lowered(ctx, m)
        if not any(b in lowered for b in named):
            continue
        acts = facts.of(m).acts
        if "reports_done" in acts or "writes" in acts:
            texts.append(m.content or "")
    if not texts:
        return 0.0
    return _text.support(content, *_text.terms_and_chars("\n".join(texts))) or 0.0
