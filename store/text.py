"""Text helpers of the store: search segmentation and question kinds.

Chinese has no spaces, so the store indexes a bigram-segmented copy of each
memory (``默认超时`` -> ``默认 认超 超时``) with FTS5's unicode61 tokenizer:
a question matches whatever word order it uses, and ``bm25`` ranks.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*")
# Question filler that would match every memory.
_QUESTION_BIGRAMS = frozenset("这个 那个 多少 是多 什么 怎么 哪个 是不 不是 我们 你们 一下 目前 现在 是什 么样 请问 是否".split())
_QUESTION_WORDS = frozenset("what which how is are was the a an of this that our in on for to do does".split())


def segments(text: str, *, question: bool = False) -> list[str]:
    """Search tokens: CJK bigrams (a lone character stays), lowercased Latin words and numbers."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        t = m.group(0)
        if t[0] >= "\u3400":
            grams = [t] if len(t) == 1 else [t[k:k + 2] for k in range(len(t) - 1)]
            out.extend(g for g in grams if not (question and g in _QUESTION_BIGRAMS))
        else:
            t = t.lower()
            if not (question and t in _QUESTION_WORDS):
                out.append(t)
    return out


def search_text(content: str) -> str:
    """What the FTS index stores for ``content``."""
    return " ".join(segments(content))


def query_terms(query: str) -> list[str]:
    """The distinct search segments of a question (each backend builds its own query from them)."""
    return list(dict.fromkeys(segments(query, question=True)))


def fts_query(terms: list[str]) -> str | None:
    """An FTS5 query that matches any of ``terms`` (None when there is none)."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


# Which partition a question belongs to (seed 004: a project question searches
# only facts, a progress question only the task, a style question only preferences).
_TASK = re.compile(r"进度|任务|做到哪|下一步|还剩|待办|卡在|\b(?:progress|task|todo|next step|remaining|blocked)\b",
                   re.IGNORECASE)
_STYLE = re.compile(r"风格|偏好|规范|命名|习惯|格式化|代码怎么写|\b(?:style|convention|prefer\w*|naming|lint\w*|format\w*)\b",
                    re.IGNORECASE)


def classify_question(question: str) -> str:
    """``task_state``, ``code_preference`` or ``project_fact`` (the default)."""
    if _TASK.search(question):
        return "task_state"
    if _STYLE.search(question):
        return "code_preference"
    return "project_fact"
