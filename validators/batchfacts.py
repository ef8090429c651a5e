"""Batch facts: what each message of a batch DOES, computed once per batch.

Value judgments (G, W, L007) ask questions about a memory's sources rather
than its words: did a user accept the proposal the memory states, did a tool
message show the text the memory repeats, did the assistant write it into a
file, is the number a reading copied from tool output? This module answers
the per-message half of those questions once per ``validate()`` call
(``RuleContext.facts``, memoised on the batch), so that no rule scans the
message list per memory.

Per message (:class:`MessageFacts`):

* user: ``accepts`` (确定 / 好 / ok / go ahead / do 1), ``rejects`` (不对 /
  revert / "you got it wrong"), ``asks``, ``states`` (a position, preference
  or rule: 我希望 / 以后都 / "I prefer" / "let's keep"), ``temporary``
  (先…再说 / 演示完再说 / "for the demo" / "until Monday");
* assistant: ``proposes`` (options, 你倾向哪个 / "I'd suggest" / "shall I")
  and ``reports_done`` ("I've updated", 已完成);
* tool (and the file blocks of an assistant message): ``files_read``,
  ``files_written``, ``written`` (the text written into files), ``commands``,
  ``numbers`` (counts, ports, durations, sizes), ``commits``, ``tests``,
  ``errors`` (the lines of tool output that report an error).

Every word list is an option (:class:`FactsOptions`, config table
``[tool.memvet.facts]``), with Chinese and English defaults. The detection is
deliberately generic -- message roles, fences, paths, tool headers of the
common exports (SpecStory ``Tool use:``, aider status lines, plain shell
output) -- never strings of particular sessions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict

from .context import Batch, Message
from .rules._coverage import unread_script
from .rules._hant import both_scripts, to_simplified
from .rules._scripts import CJK_CHARS
from .rules._text import FENCED_BLOCK


class FactsOptions(BaseModel):
    """The word lists the batch facts use (``[tool.memvet.facts]``); unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: A user message that opens with (or only says) one of these accepts what was proposed.
    accept: list[str] = [
        "确定", "确认", "好", "好的", "好啊", "可以", "行", "就这样", "就这么办", "同意", "没问题", "按你说的", "按你的",
        "照你说的", "就用", "就按", "选", "用方案", "嗯", "对", "对的", "是的", "继续", "开始吧", "做吧",
        # the user reports that the proposed fix worked: the proposal is taken
        "可以了", "好了", "成功了", "解决了", "it worked", "that worked", "it works", "that fixed it", "works now",
        "ok", "okay", "yes", "yep", "yeah", "sure", "go ahead", "go for it", "sounds good", "agreed", "agree",
        "lgtm", "looks good", "do it", "let's do", "let's go", "please do", "perfect", "great", "that works",
        "fine", "correct", "right", "proceed", "continue", "do 1", "do 2", "do 3", "option 1", "option 2",
        # Japanese, Polish
        "はい", "お願いします", "それで", "いいです", "いいね", "オッケー", "了解", "進めて", "そうして",
        "tak", "dobrze", "zgoda", "świetnie", "kontynuuj", "zrób to", "działa",
        "được", "đồng ý", "tiếp tục", "làm đi",  # Vietnamese
        "да", "ок", "хорошо", "давай", "согласен", "продолжай", "отлично",  # Russian
        "sí", "vale", "de acuerdo", "perfecto", "adelante", "hazlo", "correcto", "funciona", "funcionó",  # Spanish
        "sim,", "beleza", "perfeito", "concordo", "faça isso", "pode fazer", "certo", "funcionou",  # Portuguese
        "ja,", "passt", "einverstanden", "mach das", "perfekt", "genau", "funktioniert",  # German
        "oui", "d'accord", "parfait", "vas-y", "ça marche", "c'est bon", "exactement",  # French
    ]
    #: A user message with one of these rejects or corrects the assistant.
    reject: list[str] = [
        "不对", "不是这样", "错了", "搞错", "弄错", "不要这样", "不行", "不用", "别这样", "撤销", "回滚", "改回去", "不同意",
        "you got it wrong", "that's wrong", "that is wrong", "not what i", "wrong", "revert", "undo that",
        "don't do that", "do not do that", "no,", "nope", "i disagree", "that's not", "incorrect",
        "está mal", "incorrecto", "eso no", "no es así", "revierte", "deshaz", "te equivocaste",  # Spanish
        "não,", "está errado", "errado", "incorreto", "não é isso", "desfaz", "volta como estava",  # Portuguese
        "nein,", "falsch", "nicht so", "rückgängig",  # German
        "non,", "c'est faux", "pas comme ça", "annule",  # French
        "違う", "ちがう", "そうじゃない", "やめて", "ダメ", "だめ", "元に戻して",  # Japanese
        "いや、", "いいえ", "しなくていい", "しなくてもいい", "しなくても良い", "いらない", "要らない",  # ... and its 不用
        "nie,", "źle", "błędnie", "nie tak", "cofnij",  # Polish
        "không đúng", "sai rồi", "không phải",  # Vietnamese
        "нет,", "не так", "неправильно", "откати", "верни как было",  # Russian
    ]
    #: A user message with one of these states a position, a preference or a rule.
    state: list[str] = [
        "我希望", "我想要", "我喜欢", "我习惯", "我倾向", "我觉得", "我认为", "我主张", "我们用", "我们统一", "以后", "今后",
        "一律", "统一", "必须", "不要", "别用", "禁止", "优先", "保持", "应该", "规则", "约定", "请始终", "始终",
        "i want", "i'd like", "i would like", "i prefer", "i like", "i always", "i never", "we use", "we always",
        "let's keep", "let's use", "keep the", "always", "never", "must", "should", "prefer", "rule", "convention",
        "from now on", "going forward", "don't", "do not", "i think", "i believe",
        "してほしい", "常に", "必ず", "今後", "禁止", "しないで", "べき",  # Japanese
        "chcę", "wolę", "zawsze", "nigdy", "zapamiętaj", "należy", "używaj", "nie używaj",  # Polish
        "tôi muốn", "luôn", "không bao giờ", "phải", "không được", "đừng",  # Vietnamese
        "я хочу", "всегда", "никогда", "должен", "нельзя",  # Russian
        "нужно", "надо", "требуется", "обязательно", "следует",  # Russian: a request (нужно holds не нужно)
        "quiero", "prefiero", "siempre", "nunca", "debe", "debería", "hay que", "tiene que", "no uses",  # Spanish
        "de ahora en adelante", "a partir de ahora",
        "quero", "prefiro", "sempre", "nunca", "deve", "deveria", "tem que", "precisa", "não use",  # Portuguese
        "a partir de agora", "daqui pra frente",
        "ich möchte", "ich will", "bevorzuge", "immer", "niemals", "muss", "müssen", "sollte", "ab jetzt",  # German
        "je veux", "je préfère", "toujours", "jamais", "il faut", "doit", "devrait", "à partir de maintenant",  # French
    ]
    #: A user message with one of these marks a change as temporary.
    temporary: list[str] = [
        "先这样", "先这么", "暂时", "再说", "演示完", "发完再", "之后再", "回头再", "上线后再", "明天回滚",
        "再改回", "先关", "先停", "先去掉", "先跳过", "先不", "暂不",
        "for now", "for the demo", "for the time being", "for the moment", "temporarily", "until monday",
        "until tomorrow", "until the release", "until the demo", "until further notice", "just for today",
        "for this release", "for today",
        # a request declined for this time, not for good ("这次先不写测试", "not now"); not 现在不需要,
        # which as often says "no longer needed"
        "现在先不", "目前先不", "这次不用", "这次不需要", "这次先不", "本次不需要",
        "not now", "not right now", "not at the moment", "not for this release",
        "とりあえず", "一旦", "暫定", "今だけ", "一時的",  # Japanese
        "na razie", "tymczasowo", "na teraz",  # Polish
        "tạm thời", "trước mắt",  # Vietnamese
        "временно", "пока что", "на время",  # Russian
        "por ahora", "temporalmente", "de momento", "por el momento", "hasta mañana",  # Spanish
        "por enquanto", "temporariamente", "por agora", "até amanhã",  # Portuguese
        "vorerst", "vorläufig", "fürs erste", "vorübergehend",  # German
        "pour l'instant", "pour le moment", "temporairement", "provisoirement",  # French
    ]
    #: An assistant message with one of these proposes and waits for the user.
    propose: list[str] = [
        "建议", "推荐", "可以考虑", "不妨", "你倾向", "您倾向", "你看哪个", "你选", "您选", "要不要", "是否需要", "需要我",
        "要我", "方案一", "方案二", "选项", "你觉得", "您觉得", "你决定", "请确认", "是否同意",
        "i'd suggest", "i suggest", "i recommend", "i'd recommend", "i propose", "my suggestion", "you could",
        "you might", "would you like", "do you want me", "shall i", "should i", "which do you prefer",
        "which one do you", "let me know", "option a", "option b", "option 1", "option 2", "proposed changes",
        "here are my proposed", "consider", "if you want, i can", "if you'd like, i can", "want me to",
        "提案", "おすすめ", "推奨", "いかがでしょうか", "しますか", "どちらが", "よろしいですか",  # Japanese
        "proponuję", "sugeruję", "czy chcesz", "czy mam", "polecam", "rekomenduję",  # Polish
        "đề xuất", "gợi ý", "bạn có muốn",  # Vietnamese
        "предлагаю", "рекомендую", "если хотите", "хотите, чтобы",  # Russian
        "sugiero", "recomiendo", "propongo", "podríamos", "quieres que", "si quieres, puedo",  # Spanish
        "sugiro", "recomendo", "proponho", "poderíamos", "quer que eu", "se quiser, posso",  # Portuguese
        "ich schlage vor", "ich empfehle", "wir könnten", "soll ich", "möchtest du",  # German
        "je suggère", "je propose", "je recommande", "nous pourrions", "voulez-vous", "souhaitez-vous",  # French
    ]
    #: An assistant message with one of these reports work it has done.
    done: list[str] = [
        "已完成", "完成了", "已经", "已创建", "创建了", "已修改", "修改了", "已更新", "更新了", "已删除", "删除了", "已提交",
        "提交了", "已添加", "添加了", "已修复", "修复了", "已重命名", "搞定",
        "完成修改", "完成更新", "已将", "已把", "已移除", "已去掉", "已改为", "已实现", "已调整", "已替换",
        "已执行", "已运行", "执行完毕", "运行完毕", "已推送", "推送成功", "已安装", "安装完成",
        "i've", "i have created", "i have updated", "i have added", "i have fixed", "done", "created",
        "updated", "added", "fixed", "committed", "renamed", "moved", "removed", "deleted", "implemented",
        "successfully", "now let's", "let me",
        "i have applied", "i have corrected", "i have implemented", "i have made", "i have removed",
        "i have replaced", "i have modified", "i have changed", "i have refactored", "i have moved",
        "i have renamed", "i have deleted", "i have rewritten", "i have written", "i have restored",
        "applied the fix", "applied the change", "applied the edit",
        # Cursor's agent tells each step as it takes it ("Creating a reverse geocoding validation script …",
        # then the file): its edits are not in the export, this is what is left of them (session 26)
        "creating", "updating", "adding", "implementing", "fixing", "removing", "renaming", "refactoring",
        "rewriting", "正在创建", "正在修改", "正在更新", "正在添加",
        "готово", "сделано", "создал", "обновил", "добавил", "исправил", "изменил", "удалил", "реализовано",  # Russian
        "he creado", "he actualizado", "he añadido", "he agregado", "he corregido", "he modificado",  # Spanish
        "he eliminado", "listo",
        "criei", "atualizei", "adicionei", "corrigi", "modifiquei", "removi", "implementei",  # Portuguese
        "ich habe", "erledigt", "erstellt", "aktualisiert", "hinzugefügt", "behoben",  # German
        "j'ai", "terminé", "créé", "mis à jour", "ajouté", "corrigé", "supprimé",  # French
    ]
    #: Words of a tool header or status line that mean a file was written or edited.
    write_verbs: list[str] = [
        "edit file", "applied edit", "write file", "create file", "created file", "search_replace", "write_file",
        "edit_file", "create_file", "str_replace", "apply_patch", "delete_file", "deleted", "wrote", "writing",
        "committing", "modified", "renamed", "moved", "已写入", "已修改", "写入", "编辑文件", "创建文件", "删除文件",
    ]
    #: Words of a tool header that mean a file was read or searched.
    read_verbs: list[str] = [
        "read file", "read_file", "grep", "search", "list_dir", "list dir", "codebase_search", "file_search",
        "add file to the chat", "view", "cat", "读取", "查看", "搜索",
    ]
    # Tool names (identifiers, not words of a language): the tool an export's header names
    # ("Tool use: **Edit**", Claude Code, Codex, Copilot and Cursor agents) tells what the call did
    # when its lines carry no verb ("The file … has been updated successfully.").
    #: Tools that write or edit files.
    write_tools: list[str] = [
        "Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "copilot_applyPatch", "create_file",
        "replace_string_in_file", "multi_replace_string_in_file", "insert_edit_into_file", "edit_file",
        "edit_file_v2", "search_replace", "write_file", "write_to_file", "str_replace_editor",
        "str_replace_based_edit_tool", "replace_in_file", "edit_notebook",
    ]
    #: Tools that read files.
    read_tools: list[str] = ["Read", "read_file", "read_file_v2", "view_file", "open_file", "read_notebook"]
    #: Tools that run a shell command (the command is the header's code span, a ``command:`` input
    #: or the first shell block).
    run_tools: list[str] = [
        "Bash", "PowerShell", "shell", "shell_command", "exec_command", "run_in_terminal", "run_terminal_cmd",
        "run_terminal_command", "run_terminal_command_v2", "execute_command", "run_command",
    ]


# --- word lists ----------------------------------------------------------------------

_CJK = re.compile(f"[{CJK_CHARS}]")


class _WordList:
    """One word list, matched in LOWER-CASED text: CJK entries as substrings, Latin ones as whole words.

    A plain trie of literals (no ``re.IGNORECASE``, no look-behind at its
    start) keeps the regex engine's literal prefilter, so a long message is
    scanned at memchr speed; word boundaries are checked afterwards.
    """

    __slots__ = ("pattern", "bounded", "entries")

    def __init__(self, words: tuple[str, ...]):
        entries = sorted({_lower(w.strip()) for w in words if w.strip()}, key=lambda w: (-len(w), w))
        self.entries = tuple(entries)
        self.bounded = frozenset(w for w in entries if not _CJK.search(w))
        self.pattern = re.compile("|".join(map(re.escape, entries))) if entries else None

    def _bounded_at(self, text: str, m: re.Match[str]) -> bool:
        word = m.group(0)
        if word not in self.bounded:
            return True
        a, b = m.start(), m.end()
        before = a > 0 and word[:1].isalnum() and (text[a - 1].isalnum() or text[a - 1] == "_")
        after = b < len(text) and word[-1:].isalnum() and (text[b].isalnum() or text[b] == "_")
        return not (before or after)

    def search(self, lowered: str, pos: int = 0) -> re.Match[str] | None:
        if self.pattern is None:
            return None
        # `in` runs at memchr speed; the regex (which finds where, and checks
        # boundaries) only when some entry occurs at all.
        for entry in self.entries:
            if entry in lowered:
                break
        else:
            return None
        while True:
            m = self.pattern.search(lowered, pos)
            if m is None or self._bounded_at(lowered, m):
                return m
            pos = m.start() + 1

    def match(self, lowered: str) -> re.Match[str] | None:
        """An entry at the very start of ``lowered`` (the longest), on a word boundary."""
        if self.pattern is None:
            return None
        m = self.pattern.match(lowered)
        return m if m is not None and self._bounded_at(lowered, m) else None


def _lower(text: str) -> str:
    """``text`` lower-cased, its traditional Chinese characters read as simplified (确定 for 確定): the
    word lists are written in simplified characters, and a user may write either."""
    return to_simplified(text.lower())


@lru_cache(maxsize=64)
def _words(words: tuple[str, ...]) -> _WordList:
    return _WordList(words)


def _has(words: list[str], lowered: str) -> bool:
    return _words(tuple(words)).search(lowered) is not None


def _opens_with(words: list[str], lowered: str) -> bool:
    """The text's first clause starts with an entry, or the whole text is one short reply."""
    found = _words(tuple(words))
    head = lowered.strip().lstrip("@#>-*•\"'“「 ")
    if found.match(head) is not None:
        return True
    # "那就按方案二吧" / "ok then, go": a short reply with the word somewhere in it.
    short = len(head) <= 24 if _CJK.search(head) else len(head.split()) <= 6
    if short:
        return found.search(head) is not None
    # "script command 可以先测测\n然后…": a Chinese first line that takes up the proposal by name
    # and says yes to it near its start; the rest of the message goes on to the next steps.
    first = head.split("\n", 1)[0]
    hit = found.search(first[:24]) if _CJK.search(first[:24]) else None
    return hit is not None and _CJK.match(hit.group(0)) is not None and "不" not in first[:hit.start()][-2:]


# --- tool and file facts ------------------------------------------------------------

#: Candidate tokens for paths: runs without whitespace, quotes, brackets or CJK punctuation
#: (a negated class: linear, nothing to backtrack).
_TOKEN = re.compile(r"[^\s`'\"()<>\[\]{},;|，。：；、（）“”‘’]+")
_EXT = re.compile(r"[\w-]+(?:\.[\w-]+)*\.(?:md|rst|txt|ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|json|jsonc|"
                  r"ya?ml|toml|ini|cfg|conf|env|sql|sh|lock|xml|html|css|scss|vue|proto|c|h|cpp|hpp)")
_PATH_CHARS = re.compile(r"(?:[A-Za-z]:[/\\]|~?/)?(?:[\w.-]+[/\\])+[\w.-]*\w")


def _paths(text: str) -> list[str]:
    """File paths in ``text``: a/b/c.ext, C:\\a\\b, /abs/path, or a bare name with a known extension.

    Token by token (each token is matched whole, anchored), so the cost is
    linear in the text.
    """
    found = []
    for m in _TOKEN.finditer(text):
        token = m.group(0).rstrip(".:!?*")
        if token.startswith("file://"):
            token = token[len("file://"):]
        if ("/" in token or "\\" in token) and "://" not in token:
            if _PATH_CHARS.fullmatch(token):
                found.append(token)
        elif "." in token and _EXT.fullmatch(token):
            found.append(token)
    return found


def paths(text: str) -> list[str]:
    """File paths in ``text`` (see :func:`_paths`), in order, each once."""
    return list(dict.fromkeys(_paths(text)))


_FILE_URL = re.compile(r"file://(/[^)\s>\]]+)")
# "commit 9bb94e7", "[main 18f53ef] msg" (git commit's output), "347fb68..f05bae9  main -> main" (git push's).
_COMMIT = re.compile(r"(?i)\bcommit(?:ted)?\s+(?:as\s+)?`?([0-9a-f]{7,40})\b|\[[\w/.-]+ ([0-9a-f]{7,40})\]"
                     r"|\b[0-9a-f]{7,40}\.\.\.?([0-9a-f]{7,40})\s+\S+\s+-(?:>|&gt;)")
#: The header of an agent's tool call as exports write it: "Tool use: **Edit**".
_TOOL_HEADER = re.compile(r"\s*Tool use: \*\*([\w.-]+)\*\*")
#: The command of a run tool: the header line's code span ("**shell_command** `ls`"), a "command:"
#: input ("- command: `git push`"), or a code span / shell block right below the header.
_TOOL_COMMAND = re.compile(r"(?m)\A[^\n]*?`([^`\n]+)`|^\s*-?\s*command:\s*`([^`\n]+)`"
                           r"|^`([^`\n]+)`\s*$|^```(?:bash|sh|shell|powershell|pwsh|console|zsh|cmd)?\n((?s:.*?))(?:\n```|\Z)")
#: Separators of a shell command line: each part is one command ("cd x && git commit -m …").
#: ((?<!\s): a search from inside a long run of spaces would rescan the rest of it: quadratic.)
_COMMAND_PARTS = re.compile(r"(?<!\s)\s*(?:&&|\|\||;)\s*")
# Shell prompts, SpecStory "Run command:", aider's "Running git commit -m ..." status line. The
# indent before a prompt stays on its line: from every line start of a run of blank lines, a
# "^\s*" would rescan the rest of the run (quadratic).
_COMMAND = re.compile(r"(?im)(?:run command:|^[^\S\n]*\$\s+|^[^\S\n]*>\s*\$?\s*(?=\w+\s)|^running\s+(?=\S+\s))(.+)$")
#: A command that changes the repository or its files: running it is a write.
_WRITING_COMMAND = re.compile(r"^(?:sudo\s+)?(?:git\s+(?:commit|push|mv|rm|merge|rebase|revert|tag|apply|am|"
                              r"cherry-pick|reset)|mv|rm|cp|mkdir|touch|sed\s+-i|npm\s+(?:install|uninstall|version)|"
                              r"pip\s+(?:install|uninstall)|yarn\s+(?:add|remove)|pnpm\s+(?:add|remove))\b")
#: A tool message that is only a diff block with added or removed lines: the edit an export
#: (SpecStory for Cursor) shows as the result of an edit tool. With a command run (``git diff``)
#: the same block is a reading.
_EDIT_DIFF = re.compile(r"\s*```diff[^\n]*\n(?:.*\n)*?[+-][ \t]", re.ASCII)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
#: A line of output that reports an error or a failure (the error's own words, not a summary).
_ERROR_LINE = re.compile(both_scripts(r"(?im)^.*(?:\b\w*(?:error|exception)\b|\btraceback\b|\bfatal\b|\bfailed\b|"
                         r"\bnot found\b|\bnot provided\b|\bdenied\b|\brefused\b|\bexceeds?\b|报错|错误|失败|异常).*$"))
_SPACES = re.compile(r"\s+")
_TEST_RESULT = re.compile(
    both_scripts(r"(?i)\b\d+\s+(?:passed|failed|passing|failing|tests?|skipped|errors?)\b|\btests?:\s*\d+|(?:通过|失败)\s*\d+|"
    # (?<!\d): a search from inside a run of digits would rescan the rest of the run (quadratic)
    r"(?<!\d)\d+\s*(?:个)?(?:测试)?(?:通过|失败)"))
#: A fence info string that names the file the block is for: "css:app/static/style.css"
#: (Cursor / Copilot chat), "python path=src/x.py", "src/x.py" alone.
_INFO_PATH = re.compile(r"^\s*(?:[\w+#.-]+[: ](?:\s*(?:path|file)=)?|(?:path|file)=)?\s*(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class MessageFacts:
    """What one message says and does (empty tuples when it does not)."""

    key: tuple[str, str]
    index: int
    role: str
    acts: frozenset[str] = frozenset()
    files_read: tuple[str, ...] = ()
    files_written: tuple[str, ...] = ()
    #: The text written into files (fenced blocks of file writes, edit diffs).
    written: str = ""
    commands: tuple[str, ...] = ()
    numbers: frozenset[str] = frozenset()
    commits: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    #: Lines of tool output that report an error ("litellm.BadRequestError: LLM Provider NOT provided"),
    #: each with its runs of white space made one space.
    errors: tuple[str, ...] = ()

    def does(self, act: str) -> bool:
        return act in self.acts


class BatchFacts:
    """Facts of the new messages of a batch, each computed on first use (then kept).

    Most answers never ask about most messages: a rule asks about a memory's
    sources, or the user's answer after one proposal, so the word lists run
    only over those. ``written_text`` needs no word list at all.
    """

    def __init__(self, batch: Batch, options: FactsOptions):
        self._batch = batch
        self._options = options
        self._index = {m.key: n for n, m in enumerate(batch.messages)}
        self._facts: dict[int, MessageFacts] = {}
        self._written: str | None = None

    def of(self, message: Message) -> MessageFacts:
        return self._at(self._index[message.key])

    def _at(self, index: int) -> MessageFacts:
        found = self._facts.get(index)
        if found is None:
            found = self._facts[index] = message_facts(self._batch.messages[index], index, self._options)
        return found

    @property
    def messages(self) -> list[MessageFacts]:
        """The facts of every new message, in batch order (computes them all)."""
        return [self._at(n) for n in range(len(self._batch.messages))]

    def after(self, message: Message) -> Iterable[MessageFacts]:
        """The facts of the messages that follow ``message`` in its session."""
        session = message.sessionKey
        messages = self._batch.messages
        return (self._at(n) for n in range(self._index[message.key] + 1, len(messages))
                if messages[n].sessionKey == session)

    def user_answer_after(self, message: Message) -> MessageFacts | None:
        """The first user message after ``message`` in its session (the answer to it), or None."""
        session = message.sessionKey
        messages = self._batch.messages
        for n in range(self._index[message.key] + 1, len(messages)):
            m = messages[n]
            if m.sessionKey == session and m.role == "user":
                return self._at(n)
        return None

    def users_marking(self, act: str) -> frozenset[tuple[str, str]]:
        """Keys of the user messages that do ``act`` ("temporary", "accepts", …), memoised per act.

        One scan of all user messages joined rules the act out for most
        batches before any message is analysed.
        """
        cache = self.__dict__.setdefault("_users", {})
        found = cache.get(act)
        if found is None:
            words = {"accepts": self._options.accept, "rejects": self._options.reject, "states": self._options.state,
                     "temporary": self._options.temporary}.get(act)
            users = [n for n, m in enumerate(self._batch.messages) if m.role == "user"]
            joined = _lower("\n".join(self._batch.messages[n].content for n in users))
            if words is not None and not _has(words, joined):
                found = frozenset()
            elif act == "temporary":  # its own word list only: no need for every act of each message
                found = frozenset(self._batch.messages[n].key for n in users
                                  if _has(words, _lower(self._batch.messages[n].content)))
            else:
                found = frozenset(self._batch.messages[n].key for n in users if act in self._at(n).acts)
            cache[act] = found
        return found

    @property
    def written_text(self) -> str:
        """What tool messages showed and the assistant wrote into files in this batch, joined."""
        if self._written is None:
            parts = []
            for m in self._batch.messages:
                if m.role == "tool" and m.content:
                    parts.append(m.content)
                elif m.role == "assistant" and ("```" in m.content or "~~~" in m.content):
                    parts.append(_file_blocks(m.content)[1])
            self._written = "\n".join(p for p in parts if p)
        return self._written


def file_text(facts: BatchFacts, batch: Batch) -> str:
    """The part of ``written_text`` that is a file's text: tool messages that read, write or commit
    files, and the assistant's file blocks (not the output of commands that touch no file)."""
    parts = []
    for m in batch.messages:
        if m.role in ("tool", "assistant"):
            f = facts.of(m)
            # (an edit shown only as its diff, or by a write tool that names no file, is file text too)
            if (f.role == "assistant" or f.files_read or f.files_written or f.commits
                    or ("writes" in f.acts and not f.commands)):
                parts.append(f.written)
    return "\n".join(p for p in parts if p)


def compute(batch: Batch, options: FactsOptions | None = None) -> BatchFacts:
    """The facts of ``batch`` (``RuleContext.facts`` keeps one per batch; each message on first use)."""
    return BatchFacts(batch, options or FactsOptions())


def _file_blocks(text: str) -> tuple[tuple[str, ...], str]:
    """``(files written, text written)`` of an assistant message's file blocks (none: ``((), "")``)."""
    blocks = [b.group(3) for b in FENCED_BLOCK.finditer(text)]
    files = _block_files(text) if blocks else ()
    return (files, "\n".join(blocks)) if files else ((), "")


def message_facts(m: Message, index: int, o: FactsOptions) -> MessageFacts:
    text = m.content or ""
    if m.role == "user":
        return MessageFacts(m.key, index, "user", _user_acts(text, o))
    if m.role == "assistant":
        acts = set()
        prose = _lower(FENCED_BLOCK.sub(" ", text) if "```" in text or "~~~" in text else text)
        if _has(o.propose, prose) or prose.rstrip().endswith(("?", "？")):
            acts.add("proposes")
        if _has(o.done, prose):
            acts.add("reports_done")
        written_files, written = _file_blocks(text) if ("```" in text or "~~~" in text) else ((), "")
        if written_files:
            acts.add("writes")
        return MessageFacts(m.key, index, "assistant", frozenset(acts), files_written=written_files,
                            written=written, numbers=frozenset(_NUMBER.findall(written)))
    if m.role == "tool":
        return _tool_facts(m, index, text, o)
    return MessageFacts(m.key, index, m.role)


def _user_acts(text: str, o: FactsOptions) -> frozenset[str]:
    acts = set()
    stripped = _lower(text.strip())
    if _opens_with(o.accept, stripped) and not _opens_with(o.reject, stripped):
        acts.add("accepts")
    if _has(o.reject, stripped):
        acts.add("rejects")
    # A question mark in a script no word list reads (Thai, Korean, Arabic ...) may end a request
    # ("... ทำได้ไหม?", can you do it?) as often as a question: without words to tell them apart,
    # the message is not taken to only ask.
    if ("?" in stripped or "？" in stripped or re.search(r"吗[。！!\s]*$|么[。\s]*$", stripped)) \
            and unread_script(text) is None:
        acts.add("asks")
    if _has(o.state, stripped):
        acts.add("states")
    if _marks_temporary(o.temporary, stripped):
        acts.add("temporary")
    return frozenset(acts)


_RULE_STEP = re.compile(both_scripts(r"(?:必须|务必|须|应该|应当|应|需要)\s*$"))


def is_rule_step(text: str, marker: str, start: int) -> bool:
    """The temporary ``marker`` found at ``start`` of ``text`` is a step of a rule: a 先-marker right
    after a modal ("改配置之前必须先不动代码"), not a change made for now ("先不改，明天再说"). The batch
    facts read user messages with it, and W005 a memory's own words."""
    return marker.startswith("先") and _RULE_STEP.search(text, max(0, start - 4), start) is not None


def _marks_temporary(words: list[str], lowered: str) -> bool:
    """An entry of ``words`` occurs that is not the step of a rule."""
    found = _words(tuple(words))
    hit = found.search(lowered)
    while hit is not None:
        if not is_rule_step(lowered, hit.group(0), hit.start()):
            return True
        hit = found.search(lowered, hit.end())
    return False


def _bare_path(line: str) -> re.Match[str] | None:
    """``line`` is a path and nothing else (a/b/c.ext, or a bare name with a known extension)."""
    return _PATH_CHARS.fullmatch(line) or _EXT.fullmatch(line)


def _block_files(text: str) -> tuple[str, ...]:
    """Files an assistant message writes: the path that heads each fenced block.

    SpecStory puts ``### [name](file:///…/path)`` above the block; aider puts
    the path alone on the block's first line (SEARCH/REPLACE); many assistants
    write "Create `path`:" on the line before it. A block without such a head
    is an example or a command, not a file write.
    """
    found: list[str] = []
    for b in FENCED_BLOCK.finditer(text):
        info = _INFO_PATH.match(b.group(2))
        named = info.group(1) if info else ""
        if named and ((("/" in named or "\\" in named) and _PATH_CHARS.fullmatch(named)) or _EXT.fullmatch(named)):
            found.append(named)  # the fence itself names the file
            continue
        head = _bare_path(b.group(3).split("\n", 1)[0].strip())
        if head is None:
            lines = [ln for ln in text[max(0, b.start() - 600):b.start()].splitlines() if ln.strip()]
            above = _bare_path(lines[-1].strip().strip("`")) if lines else None
            if above is not None:
                # aider writes the path alone on the line above a SEARCH/REPLACE block
                found.append(above.group(0))
                continue
            # A heading or link line, or a short lead-in ("Create `x.ts`:"), among the
            # last lines before the block; not a sentence that merely names a file.
            for line in reversed(lines[-3:]):
                paths = _FILE_URL.findall(line) or _paths(line)
                if paths and (line.lstrip().startswith("#") or "file://" in line
                              or (len(line) <= 200 and line.rstrip().endswith(":"))):
                    found.append(paths[-1])
                    break
            continue
        found.append(head.group(0))
    return tuple(dict.fromkeys(found))


#: A tool's status line that names the file it wrote or read.
_STATUS_LINE = re.compile(r"(?i)\bfile\b.*\b(?:updated|created|written|saved|deleted)\b|^\s*-?\s*filepath:")


def _named_paths(text: str) -> list[str]:
    """Paths a tool call's lines name outside its blocks of file text, and in its status lines
    ("The file … has been updated successfully.", "File created successfully at: …")."""
    found: list[str] = []
    outside = FENCED_BLOCK.sub(lambda b: "\n".join(ln for ln in b.group(3).splitlines() if _STATUS_LINE.search(ln)), text)
    for line in outside.splitlines()[:40]:
        found.extend(_paths(line))
    return found


def _tool_commands(text: str) -> list[str]:
    """The command lines of a run tool's call (a shell block's non-empty lines, or the code span)."""
    hit = _TOOL_COMMAND.search(text)
    if hit is None:
        return []
    span = next(g for g in hit.groups() if g is not None)
    return [ln.strip() for ln in span.splitlines() if ln.strip()]


def _writes_files(command: str) -> bool:
    """Some part of a command line changes the repository or its files ("cd x && git push")."""
    return any(_WRITING_COMMAND.match(part) for part in _COMMAND_PARTS.split(command))


def _tool_facts(m: Message, index: int, text: str, o: FactsOptions) -> MessageFacts:
    lines = text.splitlines()
    written, read = [], []
    write_words, read_words = _words(tuple(o.write_verbs)), _words(tuple(o.read_verbs))
    for line in lines:
        paths = _paths(line)
        if not paths:
            continue
        lowered = line.lower()
        if write_words.search(lowered) is not None:
            written.extend(paths)
        elif read_words.search(lowered) is not None:
            read.extend(paths)
    commits = [g1 or g2 or g3 for g1, g2, g3 in _COMMIT.findall(text)]
    commands = [c.strip() for c in _COMMAND.findall(text)]
    tool = _TOOL_HEADER.match(text)
    name = tool.group(1) if tool is not None else None
    # A write tool wrote, even when the export does not say where.
    tool_writes = name in o.write_tools
    if tool_writes:
        written = written or _named_paths(text)
    elif name in o.read_tools:
        read = read or _named_paths(text)
    elif name in o.run_tools:
        commands = commands or _tool_commands(text)
    commits = tuple(dict.fromkeys(commits))
    commands = tuple(commands)
    tests = tuple(t.group(0) for t in _TEST_RESULT.finditer(text))
    errors = tuple(_SPACES.sub(" ", line.strip()[:300]) for line in _ERROR_LINE.findall(text))
    acts = set()
    if (written or tool_writes or commits or any(_writes_files(c) for c in commands)
            or (not commands and _EDIT_DIFF.match(text))):
        acts.add("writes")
    if read:
        acts.add("reads")
    if commands:
        acts.add("runs")
    return MessageFacts(m.key, index, "tool", frozenset(acts),
                        files_read=tuple(dict.fromkeys(read)), files_written=tuple(dict.fromkeys(written)),
                        written=text, commands=commands, numbers=frozenset(_NUMBER.findall(text)),
                        commits=commits, tests=tests, errors=errors)
