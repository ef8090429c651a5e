"""Does a demonstrative find its antecedent inside the memory itself? (L002)

"该文件" is a pointer into the conversation only when the memory names no
file: after "`scripts/gen.py` 由 CI 生成，该文件不要手改" it is anaphora inside
the text, which a reader weeks later resolves as well as the writer did.
Three ways a memory resolves its own demonstrative, looked for *before* it:

* another form of the noun: a shorter or translated form of the same word
  (每一步 … 该步骤, "steps" … 这些步骤), from the ``noun_forms`` option;
* a name of the noun's kind: a path or file name before 该文件 / "this
  file", a version number before 这些版本, an error name or code before
  该错误, a flag, key or identifier before "these options", a number before
  "these values"; and for every
  noun, code in backticks, a quoted term or an identifier;
* for nouns that sum up a clause -- an action (操作, 步骤, 改动, "this
  step") or a state of affairs (问题, 情况, 方案, "this approach") -- when
  the demonstrative opens a clause and a clause comes before it ("agent
  打算改做模拟可视化时该操作被取消", "本地缺少矢量地图，该问题导致 GT 无法生成",
  "Run one test first. This approach isolates setup errors"); in object
  position ("用户认可该方案") it sums up nothing the memory says.

The noun classes are options of L002; the name shapes are patterns.

What no pattern settles is left uncertain rather than called: a
demonstrative after an earlier clause of the memory (which may hold its
antecedent in plain words), or after a quantifier of its own sentence
("每个 query / mutation 的注释都附上该操作的链接": it ranges over what the
quantifier introduced) -- :func:`first_clause_start`.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

_FILE_NAME = re.compile(
    r"[\w.-]*[/\\][\w./\\-]+|\b[\w-]+\.(?:py|js|mjs|cjs|ts|tsx|jsx|json|jsonc|md|rst|yaml|yml|toml|txt|sh|go|rs|"
    r"java|c|h|cc|cpp|hpp|css|scss|html|sql|cfg|ini|lock|xml|csv|ipynb|rb|php|kt|swift|proto|env|conf|log)\b",
    re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?![\w.]*\w)|\b[A-Za-z][\w.+-]*\s?@?\d+(?:\.\d+)*\b")
_ERROR_NAME = re.compile(r"\b\w*(?:Error|Exception|Warning|Failure|Fault)\b|\bE[A-Z]*\d{2,}\b|\b[A-Z]{2,}\d{2,}\b"
                         r"|(?<!\d)[45]\d\d(?!\d)|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bE[A-Z]{3,}\b"
                         r"|(?i:\b(?:exit|status|code|signal)\s*(?:code\s*)?\d+)")
_OPTION_NAME = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*|\b\w+=\S+|\b[a-z][a-z0-9]*_[a-z0-9_]+\b"
                          r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
#: A value: a number (with a unit), or what names an option.
_VALUE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?|" + _OPTION_NAME.pattern)
#: For every noun: inline code, a quoted term, an identifier (snake_case, camelCase, dotted).
_ANY_NAME = re.compile(r"`[^`\n]+`|“[^”\n]+”|「[^」\n]+」|『[^』\n]+』|《[^》\n]+》|\"[^\"\n]+\""
                       r"|\b[A-Za-z]\w*_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Za-z_]\w*\.\w+(?:\.\w+)*\(?")
_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s)")
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Where a clause ends: what may hold an antecedent comes before it.
_CLAUSE_BREAK = re.compile(r"[。！？!?；;，,：:\n]|\.(?=\s)")
_LEADING_LABEL = re.compile(r"[^。！？!?；;，,：:\n]{1,24}[：:]")


def _kind_pattern(noun: str, kinds: Mapping[str, Iterable[str]]) -> re.Pattern[str] | None:
    shapes = {"file": _FILE_NAME, "version": _VERSION, "error": _ERROR_NAME, "option": _OPTION_NAME,
              "value": _VALUE}
    for kind, nouns in kinds.items():
        if noun in {n.strip().lower() for n in nouns}:
            return shapes.get(kind)
    return None


def resolved_before(text: str, start: int, noun: str, *, forms: Mapping[str, Iterable[str]],
                    kinds: Mapping[str, Iterable[str]], action_nouns: Iterable[str]) -> bool:
    """Is the demonstrative at ``start`` (followed by ``noun``) resolved by what ``text`` says before it?"""
    before = text[:start]
    if not before.strip():
        return False
    key = noun.lower()
    lowered = before.lower()
    for form in forms.get(noun, forms.get(key, ())):
        form = form.strip().lower()
        if form and _has_form(lowered, form):
            return True
    shape = _kind_pattern(key, kinds)
    if shape is not None and shape.search(before):
        return True
    if _ANY_NAME.search(before):
        return True
    if key in {n.strip().lower() for n in action_nouns}:
        return _opens_clause_after_one(before)
    return False


def sentence_start(text: str, pos: int) -> int:
    """Where the sentence that holds ``pos`` starts (after the last sentence end before it)."""
    return max((m.end() for m in _SENTENCE_END.finditer(text, 0, pos)), default=0)


def first_clause_start(text: str, start: int) -> int | None:
    """Where the memory's first clause starts, when the demonstrative at ``start`` stands in it
    (a leading label such as 用户偏好： or "Pitfall:" is not a clause); None when an earlier clause
    comes before it, which may name the object in words no pattern knows ("agent 改写 X 的测试后，
    该改动…"). L002 then also asks whether a quantifier of the clause binds it."""
    at = 0
    label = _LEADING_LABEL.match(text)
    if label and label.end() <= start:
        at = label.end()
    return None if _CLAUSE_BREAK.search(text, at, start) is not None else at


def _has_form(lowered: str, form: str) -> bool:
    if form.isascii() and form[:1].isalpha():
        return re.search(rf"\b{re.escape(form)}", lowered) is not None
    return form in lowered


#: What ends the clause before a demonstrative that opens the next one: punctuation, or a
#: Chinese subordinator (…时 / …后 / …前 + 该操作).
_CLAUSE_BOUNDARY = "，,；;。.!?！？：:、" + "时后前"


def _opens_clause_after_one(before: str) -> bool:
    """The demonstrative opens a clause, and a clause (4 CJK characters or 3 words) comes before it.

    "本地缺少矢量地图，该问题导致…", "Run one test first. This approach isolates
    setup errors": the noun sums up that clause. In object position ("用户认可
    该方案") it sums up nothing the memory says.
    """
    tail = before.rstrip()
    if not tail or tail[-1] not in _CLAUSE_BOUNDARY:
        return False
    earlier = tail[:-1]
    return len(_CJK.findall(earlier)) >= 4 or len(re.findall(r"[A-Za-z]+", earlier)) >= 3
