"""M -- the work_method self-check of seed 000 (five questions).

A ``work_method`` is the most valuable kind of memory and the easiest to
fake: a description typed as a method, a one-off instruction, a narration
of this incident, an empty platitude, or a "user position" nobody took.
Each rule asks one of the five questions:

====  ===========================================  ============================
code  question                                     when it fails
====  ===========================================  ============================
M001  is it normative (should / must / 应 / 必须)?   downgraded to work_fact
M002  does it still hold without the specifics?     downgraded to work_fact
M003  does it guide future tasks, not narrate?      downgraded to work_fact
M004  does it give an entry point or criterion?     dropped
M005  is its user attribution / basis supported?    downgraded to work_fact
====  ===========================================  ============================

Engine semantics: fixes are applied at once, so after one M rule downgrades
a memory the working copy is a ``work_fact``. Several M codes can still be
true of one memory, so each rule decides method-ness from
``ctx.original["type"]`` (what the LLM emitted), asks its own question, and
emits the downgrade ops only while the working copy is still a method.

These are heuristics over word classes and structure. Where a question needs
judgment (is this basis *really* supported? is this advice *really*
operable?) the rule says so; an optional LLM judge can back it later.

Declarations: the M rules declare ``types = {"work_method"}`` and
``needs = Needs(fields=("content",))`` (M003 and M004 also name the word
lists one of which must hit). The engine dispatches memory rules on the
type the LLM EMITTED (``ctx.original``), so a method that M001 downgraded
still meets M002-M005 (tested), and it calls ``check()`` only where the
declaration can be met; ``check()`` holds only the rule's question. M005
reads each source message once per batch (``ctx.memo``), not once per
memory that cites it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from memvet.rule import Finding, Rule, RuleOptions
from memvet.needs import Needs
from memvet.rules import _latin, _normform, _text, lexicon
from memvet.rules._hant import both_scripts

METHOD, FACT = "work_method", "work_fact"
METHOD_ONLY_METADATA = ("scope", "method_type")

# --- shared word classes (Chinese + English defaults) --------------------------

#: Words that make a sentence normative (seed 000's 规范词), plus English modals
#: and imperative adverbs.
NORMATIVE = [
    "应", "应该", "应当", "要", "必须", "须", "需", "需要", "不要", "别", "禁止", "不得", "不能", "不可", "不许", "切勿",
    "务必", "一律", "只能", "只允许", "优先", "尽量", "避免", "记得", "统一", "严禁", "不应",
    "should", "must", "never", "always", "don't", "do not", "prefer", "avoid", "make sure", "ensure",
    "need to", "needs to", "have to", "has to", "is required", "are required", "shall", "only ever",
    # (not a bare "forbidden" / "not allowed": HTTP status names, "403 Forbidden")
    "forbid", "forbids", "prohibit", "prohibits", "is forbidden", "are forbidden", "is prohibited",
    "are prohibited", "is not allowed", "are not allowed",
    # German, for answers written in a German user's language (muss/darf/sollte/nie; "darf … nicht"
    # splits its negation off, so the modal alone counts)
    "muss", "müssen", "darf", "dürfen", "soll", "sollen", "sollte", "sollten", "nie",
    "niemals", "immer", "stets", "vermeiden", "bevorzugen", "keinesfalls",
    # Portuguese and Spanish (deve/precisa/nunca; debe/hay que/nunca)
    "deve", "devem", "deve-se", "não deve", "precisa", "precisam", "é preciso", "é necessário", "nunca", "sempre",
    "evite", "evitar", "prefira", "obrigatório", "proibido",
    "debe", "deben", "se debe", "hay que", "es necesario", "siempre", "prefiera", "obligatorio", "prohibido",
    # Japanese (べき/てはならない/〜こと; 禁止 and 優先 fold to the Chinese entries; a plain negative
    # such as 使わない states a rule in a method, and so does 使わず, "without using"; a sentence that
    # closes on こと is the written imperative of instructions: 選ぶこと。), Polish (należy/trzeba/nie wolno/nigdy)
    "べき", "てはならない", "てはいけない", "ではならない", "なければならない", "ねばならない", "ないこと",
    "すること", "しないこと", "ないように", "ようにする", "必ず", "常に", "絶対に", "避ける", "しない", "使わない",
    "ない。", "こと。", "使わず",
    "należy", "nie należy", "trzeba", "musi", "muszą", "nie wolno", "powinien", "powinna", "powinno", "powinny",
    "zawsze", "nigdy", "unikaj", "używaj", "nie używaj", "preferuj", "wymagane", "zabronione", "obowiązkowo",
    "ma być", "mają być",
    # Vietnamese (phải/không được/nên/cần/luôn/đừng)
    "phải", "không được", "nên", "cần", "luôn", "không bao giờ", "tránh", "bắt buộc", "cấm", "ưu tiên", "đừng",
    "hãy", "chỉ được", "không dùng", "không sử dụng",
    # Russian (должен/нужно/нельзя/всегда)
    "должен", "должна", "должно", "должны", "нужно", "надо", "необходимо", "нельзя", "не нужно", "всегда",
    "никогда", "следует", "не следует", "обязательно", "запрещено", "избегать", "не использовать",
    # Turkish words that stand alone (always, never, is required, mandatory); its "must" is a
    # suffix (see _TURKISH_MODAL)
    "her zaman", "asla", "gerekir", "zorunlu",
]

#: Compounds that contain a normative character but are not normative
#: (响应 response, 应用 application, 需求 requirement, 优先级 priority...).
NOT_NORMATIVE = [
    "响应", "应用", "对应", "相应", "适应", "反应", "回应", "供应", "效应", "应答", "应对", "理应", "呼应",
    "需求", "必需品", "优先级", "统一的", "别名", "别的", "区别", "类别", "级别", "分别", "特别", "个别",
    "识别", "告别", "差别", "性别", "有别", "主要", "重要", "只要", "要是", "想要", "要么", "必要", "概要", "摘要",
    "要素", "要点", "纪要", "不要紧", "要不然", "将要", "快要", "要求的", "需要时", "要不要",
    # Japanese: こと after a verb that names a possibility or an ability (失敗することがある, "it can
    # fail"; 使うことができる) is not the こと of an instruction
    "ことがある", "こともある", "ことができ",
]

#: English verbs that open an imperative clause (a rule without a modal),
#: wherever a clause starts (see :mod:`memvet.rules._normform`).
IMPERATIVES = [
    "use", "set", "run", "keep", "put", "pin", "add", "check", "write", "treat", "prefer", "avoid", "never",
    "always", "don't", "do not", "make sure", "ensure", "verify", "rebuild", "restart", "be", "follow", "do",
    "make", "choose", "consider", "validate", "handle", "include", "exclude", "remove", "delete", "create",
    "retry", "bump", "upgrade", "measure", "think", "look", "give", "take", "try", "stick to", "go with",
    # verbs that are rarely the first word of a descriptive sentence
    "rename", "move", "delimit", "refactor", "replace", "rewrite", "reuse", "rerun", "re-run", "reinstall",
    "revert", "rebase", "squash", "inspect", "grep", "compare", "confirm", "ask", "tell", "explain",
    "describe", "mention", "cite", "skip", "ignore", "disable", "enable", "sanitize", "sanitise", "normalize",
    "normalise", "parse", "convert", "declare", "define", "annotate", "save", "stay", "wait", "raise", "throw",
    "purge", "prune", "pick", "fetch", "uninstall", "configure", "register", "kill", "reload", "recompile",
    "isolate", "reproduce", "narrow", "widen", "bisect", "extract", "combine", "append", "prepend", "attach",
    "redirect", "summarise", "summarize", "publish", "paste", "align", "adhere", "apply", "adopt", "fall back",
    "compute", "calculate", "derive", "regenerate", "resolve",
    "escalate", "notify", "roll back", "indent", "parenthesize", "parenthesise", "separate", "provide",
    "specify", "prevent", "protect", "assert", "expect", "assume", "reject", "accept", "approve",
    "double-check", "iterate", "execute", "invoke", "launch", "allocate", "reserve", "truncate", "back up",
    "migrate", "downgrade", "regenerate", "generate", "scaffold", "bootstrap", "initialize", "initialise",
    "set up", "tear down", "clean up", "keep to", "write down", "delegate", "defer", "postpone", "preserve",
    "key on", "key by", "dedupe", "deduplicate", "quit", "implement", "qualify",
]

#: Verbs that are nouns as often ("Commit messages follow ...", "Test files
#: live in test/"): an imperative only with an object right after them.
NOUN_VERBS = [
    "test", "commit", "update", "change", "fix", "build", "release", "log", "list", "record", "tag", "push",
    "merge", "name", "import", "export", "format", "document", "comment", "review", "report", "cache", "query",
    "mock", "patch", "search", "sort", "filter", "map", "type", "call", "return", "store", "load", "lock",
    "note", "plan", "start", "stop", "group", "order", "match", "limit", "copy", "link", "track", "label",
    "trace", "profile", "process", "batch", "request", "answer", "pass", "ship", "mark", "point", "route",
    "read", "open", "close", "clean", "clear", "stage", "drop", "select", "place", "leave", "catch", "guard",
    "wrap", "pad", "scan", "spawn", "archive", "prefix", "inline", "split", "reset", "restore", "mount", "debug",
    "lint", "compile", "reply", "escape", "sync", "insert", "deploy", "upload", "download", "refresh", "encode",
    "decode", "unlock", "edit", "print", "install", "free", "dispose", "flush", "throttle", "debounce",
    "address", "direct",
]

#: Chinese verbs that open an imperative clause (no subject, no modal): "重命名文件时用 git mv".
ZH_IMPERATIVES = [
    "使用", "用", "改用", "换用", "采用", "沿用", "把", "将", "先", "运行", "执行", "跑", "保持", "保留", "删除",
    "删掉", "去掉", "移除", "遵循", "遵守", "按照", "参照", "参考", "查看", "检查", "确认", "核对", "核实",
    "加上", "添加", "设置", "设为", "写明", "写入", "放在", "放到", "提交", "重启", "重建", "对齐", "只用",
    "只在", "仅在", "注明", "标注", "列出", "逐项", "改为", "改成", "交给", "询问", "告知", "说明",
    "读取", "阅读", "查阅", "搜索", "查找", "调用", "启动", "关闭", "打开", "安装", "升级", "降级", "回滚",
    "固定", "锁定", "拆分", "重命名", "新建", "替换", "补充", "编写", "验证", "对比", "比较", "等待",
]

#: Compounds that start like one of ZH_IMPERATIVES but are nouns or adverbs.
ZH_NOT_IMPERATIVES = ["用户", "用于", "用法", "用例", "用量", "用途", "将来", "将近", "先前", "先后", "把关",
                      "运行时", "执行器", "提交记录", "说明书", "说明文档"]

#: Attribution of a position to the user: the "用户主张 + rule" form that
#: passes the normative test and that M005 checks against the sources.
USER_POSITION = [
    "用户主张", "用户习惯", "用户偏好", "用户规定", "用户要求", "用户坚持", "用户认为", "用户倾向", "用户约定",
    "用户的习惯", "用户的偏好", "用户一贯",
    "user holds", "user insists", "user prefers", "user requires", "user believes",
    "user's preference", "user's habit", "user's convention", "user's rule", "the user's position",
    "user preference", "user's practice", "user practice", "user convention", "user rule", "user habit",
    "user favours", "user favors",
    # Portuguese and Spanish
    "usuário prefere", "usuário exige", "usuário insiste", "preferência do usuário", "usuario prefiere",
    "usuario exige", "preferencia del usuario",
    # Japanese and Polish
    "ユーザーの指摘", "ユーザー指摘", "ユーザーの方針", "ユーザーの好み", "ユーザーの要望", "ユーザーの指示",
    "ユーザーの希望", "よう指示", "ように指示", "użytkownik preferuje", "użytkownik wymaga", "użytkownik chce",
    "preferencja użytkownika", "użytkownik nie chce",
    "người dùng muốn", "người dùng yêu cầu", "người dùng thích", "người dùng quy định", "người dùng không muốn",
    "пользователь хочет", "пользователь требует", "пользователь предпочитает", "пользователь просит",
    "пользователь не хочет", "пользователь ожидает",
    # a refusal is a prohibition ("User does not want hover effects" = no hover effects)
    "用户不希望", "用户不想要", "用户不喜欢", "用户反对",
    "user does not want", "user doesn't want", "user never wants", "user dislikes", "user does not like",
    "user doesn't like",
    "用户禁止", "用户不允许", "用户不让",
    "user forbids", "user prohibits", "user bans", "user does not allow", "user doesn't allow",
]

#: A wish of the user: M005 checks it like a position, but M001 takes it for
#: a rule only with a scope (a condition or a quantifier): "User wants
#: concise changes" is one request, "Before a larger feature, the user wants
#: a plan first" is a rule.
USER_WISH = [
    "用户希望", "用户想要", "用户期望", "用户喜欢",
    "user wants", "user likes", "user expects", "user would like", "user asks for",
    "user only wants", "user just wants", "用户只想", "用户只希望",
    # Spanish, Portuguese
    "el usuario quiere", "el usuario espera", "el usuario pide", "el usuario pidió", "el usuario solo quiere",
    "o usuário quer", "o usuário espera", "o usuário pede", "o usuário pediu", "o usuário só quer",
]

#: Conditions and quantifiers that give a wish a scope beyond one occasion
#: (Chinese 当…时 and "…时，/…前，/…后，" clauses are recognised by their structure).
RULE_SCOPE = [
    "每次", "每当", "每个", "每一", "每完成", "凡", "凡是", "所有", "任何", "一律", "始终", "总是", "遇到", "如果",
    "若", "一旦", "只要", "以后", "今后",
    "when", "whenever", "before", "after", "if", "once", "every", "each", "all", "any", "always", "never",
    "unless", "until", "from now on", "going forward",
    # a restriction holds whenever the thing is done: "the user wants change logs to hold only chat content"
    "only", "只", "仅",
    # a choice between two ways holds wherever the choice comes up again ("the user wants git tags as
    # rollback points instead of commit hashes")
    "instead of", "rather than", "而不是", "而非", "代替", "取代",
    # ... and so does a wish told with what it excludes ("functions defined in each config, not in the
    # shared helpers"; "one file that works, no shim")
    ", not ", ", no ",
]

#: Head nouns of a rule label ("Markdown conventions: …", "命名规范：…").
RULE_LABELS = [
    "convention", "conventions", "rule", "rules", "guideline", "guidelines", "policy", "policies", "workflow",
    "workflows", "procedure", "procedures", "checklist", "sop", "preference", "preferences", "habit", "habits",
    "practice", "practices", "principle", "principles", "standard", "standards", "style", "style guide",
    "constraint", "constraints", "requirement", "requirements",
    "规范", "约定", "规则", "惯例", "流程", "原则", "习惯", "偏好", "规定", "准则", "守则", "工作流", "约束", "要求",
    "操作规程", "步骤",
]

#: Heads accepted only in a label the user owns ("User's approach when …:", "用户的做法：").
USER_LABELS = ["approach", "method", "way", "routine", "setup", "process", "做法", "方式", "方法", "套路"]


class MethodOptions(RuleOptions):
    """Nothing shared by default; subclasses add their word lists."""


def downgrade_ops(memory: dict[str, Any]) -> list[dict[str, Any]]:
    """RFC 6902 ops that turn a work_method into a work_fact ([] if it already is not a method)."""
    if memory.get("type") != METHOD:
        return []
    ops: list[dict[str, Any]] = [{"op": "replace", "path": "/type", "value": FACT}]
    meta = memory.get("metadata")
    if isinstance(meta, dict):
        ops += [{"op": "remove", "path": f"/metadata/{key}"} for key in METHOD_ONLY_METADATA if key in meta]
    return ops


def _content(memory: dict[str, Any]) -> str:
    content = memory.get("content")
    return content if isinstance(content, str) else ""


class _MethodRule(Rule):
    """Shared plumbing: one question about the content of a memory the LLM typed as work_method."""

    target = "memory"
    #: The engine matches ``types`` against the type the LLM emitted (``ctx.original``).
    types = frozenset({METHOD})
    #: A method without content holds no rule to judge (the T rules report the missing field).
    needs = Needs(fields=("content",))
    #: A method is judged by its modals, imperatives and conditions: in a language the lists
    #: do not read, the method rules' findings only warn.
    reads_prose = True

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        # A plain function, not a generator: most methods pass.
        content = _content(memory)
        problem = self.problem(content, memory, ctx) if content.strip() else None
        if problem:
            path = "/content" if self.points_at_content else ""
            if self.uncertain(memory, ctx):
                # A judgment words cannot settle: it warns and changes nothing.
                return [Finding(problem, path=path, action="warn", confidence="low")]
            fix = downgrade_ops(memory) if self.action == "fix" else None
            return [Finding(problem, path=path, fix=fix)]
        return ()

    points_at_content = True

    def uncertain(self, memory: dict[str, Any], ctx: Any) -> bool:
        """Is the problem just found one that words cannot settle? (Called only after a problem.)"""
        return False

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:  # pragma: no cover
        raise NotImplementedError


def is_normative(text: str, norms: re.Pattern[str] | None, not_norms: re.Pattern[str] | None,
                 openers: re.Pattern[str] | None, positions: re.Pattern[str] | None) -> bool:
    """Does ``text`` read as a rule (a normative word, 当…时, an imperative or a user position)?"""
    masked = _text.mask(not_norms, text)
    if norms is not None and norms.search(masked):
        return True
    if _WHEN_THEN.search(masked):
        return True
    if openers is not None and openers.search(text):
        return True
    if _TURKISH_MODAL.search(masked) or _opens_with_infinitive(text):
        return True
    return positions is not None and positions.search(text) is not None


def _opens_with_infinitive(text: str) -> bool:
    """A clause opened by an infinitive, the imperative of written instructions in Russian, Polish,
    Spanish and Portuguese ("No crear migraciones nuevas: modificar …", "Quando …, verificar se …",
    "Если …, искать гонку …"). A Latin -ar/-er/-ir word is one only in a text whose function words
    are Spanish or Portuguese: "User", "Docker" and "Helper" end the same way."""
    if not text.isascii() and _SLAVIC_INFINITIVE.search(text) is not None:
        return True  # (Cyrillic and Polish ć are never ASCII: an ASCII text skips that search)
    if _ROMANCE_INFINITIVE.search(text) is None:
        return False
    # Short rules hold few function words ("No crear migraciones nuevas: modificar …" has one):
    # one Spanish or Portuguese word and no English one is enough here.
    counts = _latin.count(text)
    return counts.english == 0 and any(language in ("Spanish", "Portuguese") for language, _ in counts.others)


#: Turkish glues "must" onto the verb (yapılmalı, edilmeli, kullanmamalı: must be done, must be
#: set, must not use), so no word of a list can hold it; technical Turkish mixes it with English
#: words ("Lock release her zaman finally içinde yapılmalı"), too few Turkish ones for the
#: unread-language guard. The back-vowel form needs its dotless ı, so "anomali" is no modal.
#: Two word characters, not ``\w{2,}``: an unanchored repeat would rescan a long word from each of
#: its letters (quadratic); the question is only whether such a word ends the suffix.
_TURKISH_MODAL = re.compile(r"\w\w(?:malı|meli)(?:dır|dir)?\b")

#: Where a clause starts: the text or a sentence, after a colon or a semicolon, or after a leading
#: "when / if …," clause (Cuando, Quando, Si, Se, Если, Когда, Gdy, Jeśli, Jeżeli, Kiedy), then "not".
_CLAUSE_START = (r"(?:^|[.;:!?]\s+|^(?:cuando|quando|si|se|если|когда|gdy|jeśli|jeżeli|kiedy)\b"
                 r"[^.;:!?\n]{1,160}?,\s*)(?:no\s+|não\s+|nunca\s+|не\s+|nie\s+)?")
#: Russian -ть/-ться/-чь (not -сть: скорость, часть, есть) and Polish -ać/-eć/-ić/-yć/-uć/-ąć
#: (not -ść/-ęć: wartość, pamięć).
_SLAVIC_INFINITIVE = re.compile(_CLAUSE_START + r"(?:[а-яё]{2,}(?:(?<!с)ть|ться|чь)|[a-ząćęłńóśźż]{2,}[aeiyuą]ć)\b",
                                re.IGNORECASE | re.MULTILINE)
_ROMANCE_INFINITIVE = re.compile(_CLAUSE_START + r"[a-záéíóúâêôãõç]{2,}(?:ar|er|ir)(?:se)?\b",
                                 re.IGNORECASE | re.MULTILINE)
# 当…时 ("when …"): bounded, so it cannot backtrack across a long text.
_WHEN_THEN = re.compile(both_scripts(r"[当當][^，。；;,.!?\n]{1,40}?[时時]"))  # traditional 當…時 too


class MethodNotNormative(_MethodRule):
    """A work_method that only describes: no normative word, no rule.

    What it does:
        Looks for one of the forms a rule takes (word lists are options):

        * a normative word (应/必须/禁止/不要/优先/需/当…时;
          should/must/never/don't/prefer/always; in an answer written in a
          German user's language muss/darf/sollte/nie; Turkish "must",
          a suffix: yapılmalı, edilmeli); words that merely
          contain a normative character (响应, 应用, 需求) do not count;
        * the imperative mood wherever a clause starts: after a sentence
          end, a colon, a semicolon or an arrow, after a leading
          "When/Before/If …," or "To …," clause (which may hold a parenthesised aside,
          "(e.g. …)") and an adverb of order ("first run one test, then
          widen"). Verbs that are nouns as often (``noun_verbs``:
          commit, test, update) count only with an object right after them,
          so "Commit messages follow …" is a description. In Chinese a
          clause that opens with a verb (``zh_imperatives``: 使用/把/先/运行…,
          also after a leading "…时" clause) or a 先…再 procedure
          (without 了, which narrates) is an imperative; in Spanish,
          Portuguese, Russian and Polish an infinitive that opens a clause
          is the imperative of written instructions ("No crear …: modificar
          …", "Quando …, verificar …", "Если …, искать …"; a Latin -ar/-er/-ir
          word only in a text with Spanish or Portuguese function words and
          no English ones);
        * a rule label: the content opens with a short noun phrase whose
          head is a norm noun, then a colon ("Markdown conventions: …",
          "Release workflow: …", "命名规范：…", "User preference: …"); a
          label the user owns takes a few more heads ("User's approach when
          …:", "用户的做法：…"; "Constraint: …" and 约束：… too);
        * the "用户主张 / 用户习惯 / 用户偏好 + rule" form, and a refusal the
          user states (用户不希望, "User does not want hover effects"): a
          prohibition; a mere wish
          (用户希望, "the user wants") only with a condition or a quantifier
          that gives it a scope ("Before a larger feature, the user wants a
          plan first"; "User wants concise changes" is one request), or with
          the way it excludes ("instead of", 而不是, "…, not in the shared
          helpers", "…, no shim"): that choice holds wherever it comes up again.

        Without any of them the memory is downgraded to work_fact and its
        method-only metadata (``scope``, ``method_type``) is removed.

        Fix: safe (the content is kept; only its type changes).

    Why is this bad?
        The first test of a method: it says what to do next time. A
        description typed as a method is routed to the code-preference store
        and injected as a rule it never was.

    Example:
        user: 时间字段别再各写各的了，接口一律返回 UTC 的 ISO 8601 字符串
        ```json
        {"content": "接口响应中的时间字段是 UTC 的 ISO 8601 字符串，由前端应用层转换时区。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "principle"}}
        ```
        user: Why does every call see the previous call's list?
        ```json
        {"content": "Python evaluates default argument values once, so a mutable default list is shared by every call.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
        user: be concise in the changes you make
        ```json
        {"content": "User wants concise changes to CONVENTIONS.md.", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self"}}
        ```
        user: 保持和 MapTR 一样吧
        ```json
        {"content": "用户希望不确定的参数都和 MapTR 保持一致。", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self", "method_type": "principle"}}
        ```
        user: how are commits written here?
        ```json
        {"content": "Commit messages follow the Conventional Commits format in this repository.", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self"}}
        ```

    Use instead:
        user: 时间字段别再各写各的了，接口一律返回 UTC 的 ISO 8601 字符串
        ```json
        {"content": "接口中的时间字段必须返回 UTC 的 ISO 8601 字符串，由前端转换为本地时区。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "principle"}}
        ```
        user: Why does every call see the previous call's list?
        ```json
        {"content": "Never use a mutable value such as a list as a default argument; Python evaluates it once and shares it.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
        user: rename with git mv please, so the history stays
        ```json
        {"content": "User preference: rename tracked files with `git mv` rather than plain `mv` so git keeps their history.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
        user: one sentence per line, and '-' bullets with one space
        ```json
        {"content": "Markdown conventions: each sentence on its own line, bullet lists use - with one space.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
        user: 每次提交前先跑一遍 lint
        ```json
        {"content": "每次提交前，用户希望先跑一遍 lint 再提交。", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self", "method_type": "sop"}}
        ```
        user: 测试脚本和测试文档都不需要
        ```json
        {"content": "用户偏好：每一步收尾时删除测试脚本和测试文档，只保留核心代码。", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self", "method_type": "constraint"}}
        ```
        user: 重命名用 git mv，别用 mv
        ```json
        {"content": "重命名受版本控制的文件时用 git mv，保留文件历史。", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self", "method_type": "constraint"}}
        ```
        user: the gradient is a little too much and I don't need the hover effects
        ```json
        {"content": "User does not want hover effects on the cards and prefers subtle gradients.", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "principle"}}
        ```
        user: 是表格本身错了，不是解析代码的问题
        ```json
        {"content": "上传失败时（例如列数比预期多），检查上传的 Excel 模板本身是否有误。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "heuristic"}}
        ```
    """

    code = "M001"
    name = "method-not-normative"
    action = "fix"

    class Options(RuleOptions):
        normative: list[str] = NORMATIVE
        not_normative: list[str] = NOT_NORMATIVE
        imperatives: list[str] = IMPERATIVES
        noun_verbs: list[str] = NOUN_VERBS
        user_position: list[str] = USER_POSITION
        user_wish: list[str] = USER_WISH
        rule_scope: list[str] = RULE_SCOPE
        rule_labels: list[str] = RULE_LABELS
        user_labels: list[str] = USER_LABELS
        zh_imperatives: list[str] = ZH_IMPERATIVES
        zh_not_imperatives: list[str] = ZH_NOT_IMPERATIVES

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._norms = lexicon.compile_words(o.normative)
        self._not_norms = lexicon.compile_words(o.not_normative)
        self._openers = _normform.compile_imperatives(o.imperatives, o.noun_verbs)
        self._positions = lexicon.compile_words(o.user_position)
        self._wishes = lexicon.compile_words(o.user_wish)
        self._scope = lexicon.compile_words(o.rule_scope)

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:
        if self._reads_as_rule(content) or self._has_rule_form(content):
            return None
        return ("a work_method needs a normative statement (应/必须/不要/优先, should/must/never, an "
                "imperative, a rule label such as 'Conventions: …' or '用户偏好：…', or a user wish with a "
                "condition); this one only describes, so it is downgraded to work_fact")

    def _has_rule_form(self, content: str) -> bool:
        """A Chinese imperative, a rule label ("Release workflow: …", "用户偏好：…") or a user wish with a scope."""
        if _HAS_CJK.search(content) and _normform.zh_imperative(
                content, self.options.zh_imperatives, self.options.zh_not_imperatives):
            return True
        if ":" in content or "：" in content:
            if _normform.rule_label(content, self.options.rule_labels, self.options.user_labels) is not None:
                return True
        if self._wishes is not None and self._wishes.search(content) is not None:
            return _normform.has_scope(content, self._scope)
        return False

    def _reads_as_rule(self, content: str) -> bool:
        """A normative word, 当…时, an imperative or a user position (:func:`is_normative`)."""
        return is_normative(content, self._norms, self._not_norms, self._openers, self._positions)


_HAS_CJK = re.compile(r"[\u4e00-\u9fff]")


# --- M002 -------------------------------------------------------------------------

_ASIDE_EN = r"e\.g\.|for example|for instance|such as|as\s+\S{1,60}\s+did"
_ANCHOR_HINT = re.compile(r"[0-9a-fA-F]{7}|\d\d|\d\.\d")
_MONTH_HINT = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec")
_ASIDE_CLAUSE = r"[^，。；;,.!?()（）\n]{0,120}"


class MethodNotTransferable(_MethodRule):
    """A rule that only holds for one commit, date, ticket or release.

    What it does:
        Looks, outside parenthesised asides and "例如/e.g./such as"
        illustrations, for anchors that pin the rule to one occasion: a
        commit hash, a ticket key (``PAY-2291``, ``#1187``), a calendar date,
        or a release version next to a release word (``发布 v2.4.0``,
        ``4.2 版本``, ``hotfix/1.9.3``). Versions of tools and runtimes
        (``Python 3.8``) are environment, not occasion, and do not count;
        nor does a version that is the value of one later step of a
        procedure ("update the version, commit, tag v1.2.0, push"): the
        procedure is for every release; nor does an anchor in a sentence that
        tells what happened ("… was reverted to commit 8ad6abc", 已回退到提交 …)
        beside the sentence that states the rule: that is the rule's history.
        A hit downgrades the memory to work_fact.

        Fix: safe. Whether an anchor is essential or an example can need
        judgment; an LLM judge can confirm later.

    Why is this bad?
        The second test of a method: remove module, commit, date and file -- does
        the rule still hold? "Skip migration 0042 when shipping v2.4.0" guides
        no other release; stored as a lasting preference it misleads every
        later one.

    Example:
        user: PAY-2291 这个工单，先找支付组要 11 月 30 号的对账文件，拿到再动代码
        ```json
        {"content": "处理工单 PAY-2291 时，必须先向支付组获取 11 月 30 日的对账文件，再修改代码。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "sop"}}
        ```
        user: When you rebase hotfix/1.9.3, drop e7d2b90. It reverted the signature check.
        ```json
        {"content": "When rebasing hotfix/1.9.3, always drop commit e7d2b90 because it reverted the signature check.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```

    Use instead:
        user: 对账类工单都先找支付组要对应日期的对账文件，拿到再动代码
        ```json
        {"content": "处理对账类工单时，必须先向支付组获取对应日期的对账文件，再修改代码。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "self", "method_type": "sop"}}
        ```
        user: I can never remember the release steps
        ```json
        {"content": "Release workflow: update package.json version, update CHANGELOG.md, commit, tag v1.2.0, push with tags.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
        user: Start bisects from the last green release tag. Last time you picked a1f3c09 and the tests did not exist there.
        ```json
        {"content": "When bisecting, the good end should be the latest green release tag, not an arbitrary old commit (as a1f3c09 did).",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
    """

    code = "M002"
    name = "method-not-transferable"
    action = "fix"

    class Options(RuleOptions):
        release_words: list[str] = ["发布", "发版", "版本", "上线", "部署", "release", "hotfix", "tag", "version",
                                    "deploy", "ship", "rollout"]
        ticket_words: list[str] = ["工单", "需求单", "ticket", "issue", "bug", "PR", "MR", "jira", "case"]
        illustration_markers: list[str] = ["例如", "比如", "譬如", "如：", "如:", "举例", "e.g.", "for example",
                                           "for instance", "such as"]
        #: Upper-case prefixes of standards that look like ticket keys (SHA-256, UTF-8).
        not_tickets: list[str] = ["SHA", "UTF", "ISO", "RFC", "AES", "PEP", "HTTP", "TLS", "SSL", "MD", "UCS",
                                  "IEEE", "ES", "RS", "HS", "PS", "GB", "X"]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        release = lexicon.compile_words(o.release_words)
        rel = release.pattern if release else r"(?!x)x"
        version = r"v?\d+(?:\.\d+){1,3}\b"
        not_tickets = "|".join(re.escape(w) for w in o.not_tickets) or r"(?!x)x"
        self._anchors = re.compile(
            both_scripts(rf"""
              (?P<hash>(?<![\w/.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{{7,40}}\b(?![.]\w|/))
            | (?P<ticket>\b(?!(?:{not_tickets})-)[A-Z][A-Z0-9]{{1,9}}-\d{{2,}}\b|(?<![\w&])\#\d{{2,}}\b)
            | (?P<date>\b\d{{4}}-\d{{1,2}}-\d{{1,2}}\b|\d{{1,2}}\s*月\s*\d{{1,2}}\s*[日号]
                |\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{{1,2}}\b)
            | (?P<release>(?:{rel})[\s/:_-]{{0,3}}{version}|(?<![\w.]){version}\s{{0,2}}(?:{rel}))
            """),
            re.VERBOSE | re.IGNORECASE)
        tickets = lexicon.compile_words(o.ticket_words)
        self._ticket_ref = (re.compile(rf"(?:{tickets.pattern})\s*[#:：]?\s*\d{{2,}}\b", re.IGNORECASE)
                            if tickets is not None else None)
        marker = lexicon.compile_words(o.illustration_markers)
        marker_pat = marker.pattern if marker else r"(?!x)x"
        self._asides = re.compile(rf"(?:{marker_pat}|{_ASIDE_EN}){_ASIDE_CLAUSE}", re.IGNORECASE)

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:
        # Code blocks, inline code and asides hold examples, not the rule's scope.
        text = _text.mask_code(content)
        if not _may_hold_anchor(text):
            return None  # no digits that could pin anything outside code (most methods)
        text = _text.mask(self._asides, _text.mask_parentheses(text))
        m = self._anchors.search(text)
        while m is not None and ((m.lastgroup == "release" and _is_one_step_of_many(text, m.start()))
                                 or _in_history_beside_the_rule(text, m.start())):
            # "bump → changelog → tag v1.2.0 → push": the version is the value one step of a
            # procedure takes this time, not the occasion the whole procedure is for. And a
            # sentence that tells what happened ("… was reverted to commit 8ad6abc") beside the
            # rule's own sentence is the rule's history, not its scope.
            m = self._anchors.search(text, m.end())
        if m is None and self._ticket_ref is not None and (t := self._ticket_ref.search(text)):
            return (f"the rule is pinned to a ticket ({t.group(0).strip()!r}) and does not transfer to other "
                    "tasks; downgraded to work_fact (keep specifics only as examples)")
        if m is None:
            return None
        kind = m.lastgroup
        what = {"hash": "a commit", "ticket": "a ticket", "date": "a date", "release": "a release"}[kind]
        return (f"the rule is pinned to {what} ({m.group(0).strip()!r}) and does not transfer to other tasks; "
                "downgraded to work_fact (keep specifics only as examples)")


#: A sentence that narrates: a past-tense auxiliary or verb of change, or 了/过/曾/已 in Chinese.
_NARRATES = re.compile(both_scripts(r"\b(?:was|were|had|did|got|reverted|rejected|rolled back|introduced|broke|happened)\b"
                       r"|[了过曾]|已经?"), re.IGNORECASE)


def _in_history_beside_the_rule(text: str, pos: int) -> bool:
    """Is ``pos`` inside a sentence that narrates and states no rule, while another sentence of
    ``text`` does state one? ("Keep the game-style UI everywhere. A site-wide restyle was rejected
    and reverted to commit 8ad6abc.": the commit is history, the rule holds beyond it.)"""
    spans = _text.sentence_spans(text)
    own = next(((a, b) for a, b in spans if a <= pos < b), None)
    if own is None or not _NARRATES.search(text, own[0], own[1]) or _states_a_rule(text[own[0]:own[1]]):
        return False
    return any(_states_a_rule(text[a:b]) for a, b in spans if (a, b) != own)


@lru_cache(maxsize=1)
def _default_m001() -> "MethodNotNormative":
    return MethodNotNormative()


def _states_a_rule(sentence: str) -> bool:
    """M001's default test, for one sentence: a normative word, an imperative (Chinese too) or a user position."""
    m001 = _default_m001()
    return m001._reads_as_rule(sentence) or (_HAS_CJK.search(sentence) is not None and _normform.zh_imperative(
        sentence, m001.options.zh_imperatives, m001.options.zh_not_imperatives))


#: Separators of the steps of a procedure: commas, semicolons, arrows, 、 and ，.
_STEP_SEPARATOR = re.compile(r"\s*(?:->|→|⇒|[,;，；、])\s*")
_MIN_STEPS = 4


def _is_one_step_of_many(text: str, pos: int) -> bool:
    """Is ``pos`` inside a later step of a sequence of at least four short steps ("a, b, tag v1.2, c")?

    The sequence is the sentence around ``pos``; a step is short (at most
    eight words or 24 characters of CJK). The first step is left out: it is
    where a condition or the rule's subject stands ("发布 2.8.0 前, …").
    """
    start = max(text.rfind(end, 0, pos) for end in (". ", "。", "\n", ": ", "："))
    start = 0 if start < 0 else start + 1
    stop = min([i for i in (text.find(end, pos) for end in (". ", "。", "\n")) if i >= 0] or [len(text)])
    sentence = text[start:stop]
    spans, last = [], 0
    for m in _STEP_SEPARATOR.finditer(sentence):
        spans.append((last, m.start()))
        last = m.end()
    spans.append((last, len(sentence)))
    steps = [sentence[a:b] for a, b in spans if sentence[a:b].strip()]
    if len(steps) < _MIN_STEPS or any(len(step.split()) > 8 and len(step) > 24 for step in steps):
        return False
    offset = pos - start
    return any(a <= offset < b for a, b in spans[1:])


def _may_hold_anchor(text: str) -> bool:
    """False only when no anchor can be in ``text``.

    Every anchor and ticket reference holds a digit, and then one of: seven
    hex characters (hash), two digits (ticket, ISO date), digit.digit
    (version), 月 or a month name (dates). Masking only blanks text out, so
    what it leaves is in the text as well.
    """
    if _ANCHOR_HINT.search(text) is not None:
        return True
    return "月" in text or (_HAS_DIGIT.search(text) is not None and _MONTH_HINT.search(_text.fold(text)) is not None)


_HAS_DIGIT = re.compile(r"\d")


# --- M003 -------------------------------------------------------------------------


class MethodNotDirective(_MethodRule):
    """A "method" that narrates what happened this time.

    What it does:
        Fails when a sentence refers to this one occasion (本次/这次/此次,
        "this time") without a recurrence word in the same sentence
        (每次/以后/凡是, "every time", "from now on"), or reports the team's
        own past action (我们已经/已改为, "we fixed", "we changed"). The
        memory is downgraded to work_fact: the root cause it tells is still
        worth keeping as a fact. A labelled basis (依据：…, "(basis: …)")
        is left out: it may tell the incident the rule was learnt from
        ("依据：这次 agent 凭印象…") while the rule guides future tasks.

        Fix: safe.

    Why is this bad?
        The third test of a method: it guides future tasks; "本次为什么这么做"
        is a fact. A narration stored as a preference reads as an order to
        repeat one incident's steps.

    Example:
        user: Celery 任务为什么会重复执行？
        ```json
        {"content": "这次排查发现 visibility_timeout 小于任务耗时，我们已经改为 7200 秒；长任务必须设置足够大的 visibility_timeout。",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
        user: The ledger deadlock is gone?
        ```json
        {"content": "This time we fixed the ledger deadlock by taking the account lock before the ledger lock.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```

    Use instead:
        user: Celery 任务为什么会重复执行？
        ```json
        {"content": "使用 Redis broker 的 Celery 长任务必须把 visibility_timeout 设得大于任务最长耗时，否则任务会被重复投递。",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
        user: 以后每次发版，smoke 都要在本次发布的 tag 上跑
        ```json
        {"content": "每次发版后必须在本次发布对应的 tag 上运行 smoke 测试，而不是在 main 上跑。",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
        user: 你又凭印象写了，MapTR 的多边形是首尾相等的
        ```json
        {"content": "当用户质疑实现与参考实现不一致时，应先 grep 参考实现的关键判断再改代码。依据：这次 agent 凭印象写错了多边形首尾。",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global", "method_type": "reasoning_pattern"}}
        ```
        user: check the reference before you argue
        ```json
        {"content": "When the user questions fidelity to a reference implementation, grep its key checks before changing code (basis: this time the agent trusted memory and got it wrong).",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
    """

    code = "M003"
    name = "method-not-directive"
    action = "fix"

    class Options(RuleOptions):
        occasion: list[str] = ["本次", "这次", "这回", "此次", "这一次", "本轮", "上次", "上回", "this time",
                               "this round", "on this occasion", "in this incident", "last time"]
        own_past_action: list[str] = [
            "我们已经", "我们已", "我们做了", "我们改了", "我们把", "我已经", "我已", "已经改为", "已改为", "已经改成",
            "已改成", "已经调整", "排查发现", "we fixed", "we changed", "we have changed", "we've changed",
            "we switched", "we added", "we made", "we moved", "we replaced", "we resolved", "i fixed",
            "i changed", "we did", "we have fixed", "we've fixed",
        ]
        recurrence: list[str] = ["每次", "每一次", "以后", "今后", "往后", "每当", "凡是", "下次", "将来", "后续",
                                 "every time", "each time", "whenever", "from now on", "going forward",
                                 "in future", "in the future", "next time", "every release", "each release"]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._occasion = lexicon.compile_words(o.occasion)
        self._past = lexicon.compile_words(o.own_past_action)
        self._recurrence = lexicon.compile_words(o.recurrence)

    #: Both findings quote an occasion or past-action entry of the content (sentences of it,
    #: a labelled basis blanked out).
    needs = Needs(fields=("content",), words=("occasion", "own_past_action"))

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:
        # A labelled basis (依据：…, "basis: …") may tell the incident the rule was learnt
        # from ("依据：这次 agent 凭印象…"); only the rule itself must not be about one occasion.
        if _LABELLED_BASIS_HINT.search(content):
            content = _LABELLED_BASIS.sub(" ", content)
        for sentence in _text.sentences(content):
            if self._past is not None:
                m = self._past.search(sentence)
                if m:
                    return (f"it narrates what was done ({m.group(0)!r}) instead of guiding future tasks; "
                            "downgraded to work_fact")
            if self._occasion is not None:
                m = self._occasion.search(sentence)
                if m and not (self._recurrence and self._recurrence.search(sentence)):
                    return (f"it is about one occasion ({m.group(0)!r}), not future tasks of the kind; "
                            "downgraded to work_fact")
        return None


#: The labelled basis clauses of _BASIS_PATTERN (依据：…, "(basis: …)", "reason: …").
_LABELLED_BASIS = re.compile(
    both_scripts(r"(?:依据|理由|原因)\s*[:：]\s*[^）)\n]{1,400}"
    r"|\(\s*(?:basis|reason|rationale)\s*:\s*[^)\n]{1,400}\)"
    r"|\b(?:basis|reason|rationale)\s*:\s*[^.;\n]{1,400}"), re.IGNORECASE)
_LABELLED_BASIS_HINT = re.compile(both_scripts(r"依据|理由|原因|basis|reason|rationale"), re.IGNORECASE)


# --- M004 -------------------------------------------------------------------------


class MethodNotOperable(_MethodRule):
    """Zero-information advice dressed as a method.

    What it does:
        Finds a platitude (要仔细分析, 综合考虑, 注意细节, 综合权衡各方面因素;
        "be careful", "consider all factors") and, with the platitudes
        removed, nothing concrete left: no code or identifier, no number, no
        order of steps (先…再, "first … then"), no criterion (而不是,
        "rather than", a restriction: 只/仅, "only", "except"). Such a
        memory is dropped.

        Whether the rest is operable can need judgment; an LLM judge can
        confirm later.

    Why is this bad?
        The fourth test of a method: abstracted advice must still give an entry
        point or a criterion. A platitude costs recall budget every turn and
        changes no decision.

    Example:
        user: 这次性能问题查了两天，最后发现是 N+1 查询。总结下经验？
        ```json
        {"content": "定位线上性能瓶颈时应当细致分析、全面考虑各种可能原因。", "type": "work_method", "priority": 80,
         "metadata": {"scope": "global", "method_type": "principle"}}
        ```
        user: Anything we should remember from the API redesign?
        ```json
        {"content": "When designing public APIs, always think carefully and take every factor into account.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```

    Use instead:
        user: 这次性能问题查了两天，最后发现是 N+1 查询。以后先看查询次数
        ```json
        {"content": "定位接口性能瓶颈时应先统计单次请求的 SQL 查询次数，排除 N+1 查询后再看慢查询。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "global", "method_type": "heuristic"}}
        ```
        user: For public endpoints, version in the path, never break a field.
        ```json
        {"content": "When designing public APIs, version them in the path (/v2/...) rather than in headers, and never remove a field.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
    """

    code = "M004"
    name = "method-not-operable"
    action = "drop"

    class Options(RuleOptions):
        zero_information: list[str] = [
            "仔细分析", "细致分析", "认真分析", "深入分析", "具体问题具体分析", "综合考虑", "全面考虑", "通盘考虑",
            "综合权衡", "权衡各方面", "各方面因素", "各种因素", "注意细节", "多加注意", "多注意", "提高警惕",
            "确保质量", "保证质量", "确保代码质量", "保证代码质量", "做好测试", "充分测试", "兼顾质量与效率",
            "兼顾效率与质量", "要细致", "要全面", "要谨慎", "谨慎对待", "认真对待", "遵循最佳实践", "最佳实践",
            "认真细致", "细致认真", "认真仔细", "仔细认真", "小心谨慎", "注意各种情况", "考虑各种情况", "考虑所有情况",
            "consider all cases", "consider every case", "handle all cases", "double-check everything",
            "be careful", "think carefully", "think it through", "consider all factors", "consider every factor",
            "take every factor into account", "take all factors into account", "weigh everything",
            "weigh all the options", "pay attention to detail", "pay attention to details", "look at everything",
            "follow best practices", "use common sense", "be thorough", "analyse carefully", "analyze carefully",
            "ensure quality", "test thoroughly", "balance quality and speed",
        ]
        #: Words that give an order of steps or a criterion (concrete guidance).
        concrete_markers: list[str] = ["先", "再", "然后", "而不是", "而非", "改用", "换用", "优先于", "→", "->",
                                       "instead of", "rather than", "first", "followed by", "then",
                                       # a restriction is a criterion: "include only what the chat said"
                                       "只", "仅", "除了", "以外", "only", "except", "exclude", "excluding"]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._empty = lexicon.compile_words(o.zero_information)
        self._concrete = lexicon.compile_words(o.concrete_markers)

    points_at_content = True
    #: The finding quotes a zero-information entry of the content.
    needs = Needs(fields=("content",), words=("zero_information",))

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:
        if self._empty is None:
            return None
        m = self._empty.search(content)
        if m is None:
            return None
        rest = _text.mask(self._empty, content)
        if self._concrete is not None and self._concrete.search(rest):
            return None
        if _CONCRETE_TOKEN.search(rest):
            return None
        return (f"zero-information advice ({m.group(0)!r}) with no entry point, order of steps or criterion; "
                "say what to check first, or what to compare against")


# Code-ish tokens and numbers: something a reader can act on.
_CONCRETE_TOKEN = re.compile(
    r"`[^`\n]{1,200}`|\d|(?<![A-Za-z0-9_./=:()\[\]<>-])[A-Za-z0-9]+[_./=:()\[\]<>-][A-Za-z0-9_./=:()\[\]<>-]*"
    r"[A-Za-z0-9)]|\b[a-z]+[A-Z]\w*")


# --- M005 -------------------------------------------------------------------------

#: The basis forms, readable; _FOLDED_BASIS below is what runs.
_BASIS_PATTERN = (
    r"(?:依据|根据|理由|原因)\s*[:：]\s*(?P<a>[^）)\n]{1,400})"
    r"|\(\s*(?:basis|reason|rationale)\s*:\s*(?P<b>[^)\n]{1,400})\)"
    r"|(?:basis|reason|rationale)\s*:\s*(?P<c>[^.;\n]{1,400})"
    r"|(?:因为|由于|理由是|原因是)(?P<d>[^。；;！？!?\n]{1,300})"
    r"|\b(?:because|since|as\s+otherwise|due\s+to)\b(?P<e>[^.;!?\n]{1,300})")


def _literal_first(word: str) -> str:
    """``\\b`` + ``word`` (which starts with a word character), written to start with a literal.

    ``w(?<!\\ww)ord`` is ``\\bword``: the lookbehind, read after the first
    letter, asks that no word character stands before it.
    """
    return f"{word[0]}(?<!\\w{word[0]}){word[1:]}"


#: _BASIS_PATTERN for the text _text.fold() lower-cased (same length, same word
#: boundaries), without re.IGNORECASE (which makes the regex engine fold every
#: character it compares): the same matches at the same offsets. Its nested
#: alternations are spelled out, in the same order (so the same alternative
#: wins at each position), and each branch starts with a literal: the regex
#: engine then skips to the characters a basis can start with instead of
#: trying every branch at every character. One group per branch (the clause).
#: The folded text is simplified already, so the labels stay as written.
_FOLDED_BASIS = re.compile("|".join(
    [rf"{label}\s*[:：]\s*([^）)\n]{{1,400}})" for label in ("依据", "根据", "理由", "原因")]
    + [r"\(\s*(?:basis|reason|rationale)\s*:\s*([^)\n]{1,400})\)"]
    + [rf"{label}\s*:\s*([^.;\n]{{1,400}})" for label in ("basis", "reason", "rationale")]
    + [rf"{word}([^。；;！？!?\n]{{1,300}})" for word in ("因为", "由于", "理由是", "原因是")]
    + [rf"{_literal_first(word)}\b([^.;!?\n]{{1,300}})"
       for word in ("because", "since", r"as\s+otherwise", r"due\s+to")]))


def stated_bases(content: str, folded: str | None = None) -> list[str]:
    """The basis clauses of ``content`` (依据：…, 因为…, "basis: …", "because …"), as written there.

    ``folded`` is ``_text.fold(content)`` when the caller has it (a view does).
    """
    if folded is None:
        folded = _text.fold(content)
    # Each branch of the pattern holds exactly one group: the last matched is the clause.
    return [content[m.start(m.lastindex):m.end(m.lastindex)] for m in _FOLDED_BASIS.finditer(folded)]


#: Words that may open a sentence before its question or request ("okay, but can we …", "and what …").
_LEAD_IN = r"(?:ok(?:ay)?|so|and|but|also|then|hey|well|now)"
#: A question word after a verb of knowing or deciding belongs to an embedded question, which a
#: rule or a remark holds ("需要确定测试报错是否是因为…", "没弄明白它是如何回退的，举个例子说明"): masked
#: before a sentence is read as a question. Not after a verb that asks for an answer (看看/检查/
#: 解释/告诉我…是否: "check whether …" asks, as in English).
_EMBEDDED_QUESTION = re.compile(both_scripts(
    r"(?:确定|判断|知道|了解|明白|清楚|弄懂|注意)"
    r"[^，,。；;？?！!\n]{0,12}?(?:是否|如何|怎么|怎样|为什么)"))
#: A request: the user asks the agent to do something ("can you also explain what you run?",
#: "could you please move them", 请/帮我/麻烦…). It says what the user wants; it is not a question.
_REQUEST = re.compile(both_scripts(
    rf"^(?:{_LEAD_IN}[, ]+)*(?:please\b|(?:can|could|would|will)\s+you\s+(?:please\s+|also\s+|just\s+|kindly\s+)*"
    r"(?!be\b|have\b|know\b|think\b|see\b|(?:check|verify|confirm|find\s+out|look|tell(?:\s+me)?)\s+(?:if|whether|why)\b)"
    r"[a-z]+)|"
    # 请/帮我…: a request, unless it asks for an answer (帮我看看是否…, 请解释为什么…)
    r"^(?:请|帮我|麻烦|帮忙)(?![^。！？!?\n]*(?:是否|吗|呢|什么|怎么|如何|为什么|哪))"),
    re.IGNORECASE)
#: Subjects after which an opening auxiliary asks ("do we …", "is it …"); without one it gives an
#: order ("do one by one", "do 1").
_ASKED_SUBJECT = r"(?:we|you|they|it|i|he|she|this|that|these|those|there|the|my|our|your|its|their)\b"
_QUESTION = re.compile(both_scripts(r"[?？]\s*$|^(?:what|how|which|why)\b|"
                       rf"^(?:should|do|does|did|is|are|was|were|can|could|would|will|have|has)\s+{_ASKED_SUBJECT}|"
                       r"吗[？?。]?\s*$|呢[？?。]?\s*$|怎么|如何|是否|你觉得|你看|有什么办法|what do you think"),
                       re.IGNORECASE)
#: An open question: it asks for what to do or what to think, and so puts nothing forward ("接口超时设多少合适？",
#: "What do you think?"). A question without one is a yes/no question about one thing ("do we use progress
#: bars during these operations?", 你用了 ktransformers 吗): often a user's expectation in the form of a question.
_OPEN_QUESTION = re.compile(both_scripts(
    # English: the question word opens a sentence ("so what …", "and which …"); inside one it is a
    # conjunction ("… such that when we deploy").
    rf"(?:^|[.!?\n]\s*)(?:{_LEAD_IN}[, ]+)*(?:what|how|which|where|who|when)\b|"
    r"什么|多少|怎么|如何|哪|几|是否|你觉得|你看|有什么办法"), re.IGNORECASE)


class MethodUnsupportedBasis(_MethodRule):
    """A user position or a basis that the source messages do not support.

    What it does:
        Two questions. (1) The memory attributes a position to the user
        (用户主张/用户习惯/用户偏好/用户希望, "User holds/prefers/wants …",
        or a rule label the user owns: "User's changelog rules: …",
        "用户的做法：…"): is a ``user`` message among its sources, and did
        the user state something rather than only ask? (A message that
        states and then asks, "Let's keep X. Can you …?", states; so does a
        question that puts an alternative forward, "can they not just be
        overloads?", "isn't it wrong to …?", "okay, but can we …?"; a
        request, "can you also explain what you run?", says what the user
        wants; 是否 / 如何 after 确定 / 弄明白 belong to a question embedded
        in a request. "do one by one" is an order, not a question.) When
        the user only asked yes/no questions about one thing ("do we use
        progress bars here?", 你用上 ktransformers 了吗), the question may be
        the user's expectation: the finding is uncertain (low) and only
        warns; an open question (what/how/哪/多少/"what do you think") gets
        an answer that is someone else's position: certain. (2) It
        states a basis (依据：…, 因为…, "basis: …",
        "because …"): do the source messages -- the user's words or the
        assistant's argument beside them (the assistant message just before
        or after a cited user message counts, cited or not) -- contain it? Support is measured
        by overlap: Chinese character bigrams and characters, English word
        stems (paraphrase is allowed, invention is not). A failure
        downgrades the memory to work_fact when the memory puts the
        position on the user; a basis in the memory's own voice (the
        mechanism behind a pitfall the agent hit: "because the callback
        runs in the browser") may be the model's own knowledge, which
        overlap cannot tell from an invention: uncertain (low), it warns.

        Fix: safe. Overlap is a heuristic for "directly supported"; an LLM
        judge can confirm borderline cases later.

    Why is this bad?
        The fifth test of a method: the trigger may be inferred, the reason may
        not be invented. A made-up rationale stored as the user's value
        system steers every later decision in the user's name.

    Example:
        user: 不要用 Redux，继续用 Zustand。
        assistant: 好的，状态管理保留 Zustand。
        ```json
        {"content": "用户主张前端状态管理应优先选用轻量方案（依据：Redux 样板代码过多，拖慢开发效率）。", "type": "work_method",
         "priority": 80, "metadata": {"scope": "global", "method_type": "reasoning_pattern"}}
        ```
        assistant: No merge commits in the log, so PRs are squash-merged here.
        ```json
        {"content": "User insists PRs should always be squash-merged (basis: one commit per PR keeps reverts trivial).",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
        assistant: Your CONVENTIONS.md says: prefer const over let; avoid new Promise.
        ```json
        {"content": "User's TypeScript conventions: prefer const over let; avoid explicit new Promise.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```

    Use instead:
        user: 缓存过期别用固定 TTL 一刀切，热门 key 会同时失效，流量直接打穿到数据库。按访问频率淘汰。
        ```json
        {"content": "用户主张缓存淘汰应以访问频率为主，而不是固定 TTL（依据：固定 TTL 会让热门 key 同时失效，把流量打穿到数据库）。",
         "type": "work_method", "priority": 80, "metadata": {"scope": "unknown", "method_type": "reasoning_pattern"}}
        ```
        user: No. Anything JavaScript can read, an XSS payload can read. Refresh tokens stay in httpOnly cookies.
        ```json
        {"content": "User holds that refresh tokens must stay in httpOnly cookies (basis: anything JavaScript can read is exposed to XSS).",
         "type": "work_method", "priority": 80, "metadata": {"scope": "global"}}
        ```
        user: Let's keep the singular folder name, like `src`. Can you move the new files into `test`?
        ```json
        {"content": "User convention: the test folder is singular `test/`, like `src/`; do not create a `tests/` folder.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self"}}
        ```
    """

    code = "M005"
    name = "method-unsupported-basis"
    action = "fix"

    class Options(RuleOptions):
        user_position: list[str] = USER_POSITION + USER_WISH
        #: Heads of a rule label that, owned by the user ("User's changelog rules: …",
        #: "用户的做法：…"), attributes the rule to the user as well.
        rule_labels: list[str] = RULE_LABELS
        user_labels: list[str] = USER_LABELS
        #: Words that only frame a basis or an attribution; never evidence.
        meta_words: list[str] = ["用户", "依据", "理由", "原因", "经验", "认为", "主张", "习惯", "偏好", "希望",
                                 "user", "basis", "reason", "rationale", "holds", "prefers", "insists", "wants"]
        #: Share of the basis (0..1) the source messages must contain.
        min_support: float = 0.28

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._positions = lexicon.compile_words(o.user_position)
        self._meta = lexicon.compile_words(o.meta_words)

    def problem(self, content: str, memory: dict[str, Any], ctx: Any) -> str | None:
        position = self._position(content)
        if position is not None:
            users = [m for m in ctx.sources(memory) if m.role == "user"]
            if not users:
                return (f"it attributes a position to the user ({position!r}) but no user message is "
                        "among its sources; record what happened as a work_fact")
            if all(_asks_only(m, ctx) for m in users):
                return (f"it attributes a position to the user ({position!r}) but the user only asked; "
                        "the position is someone else's")
        bases = stated_bases(content)
        if not bases:
            return None
        evidence = _evidence(_with_adjacent_argument(ctx.sources(memory), ctx), ctx)
        meta = self._meta  # words that only frame a basis are never evidence
        for basis in bases:
            score = _text.support_in(basis if meta is None else meta.sub(" ", basis), evidence)
            if score is not None and score < self.options.min_support:
                return (f"the stated basis {basis.strip()[:60]!r} is not found in the source messages "
                        f"(support {score:.2f}); a reason may not be invented")
        return None

    def uncertain(self, memory: dict[str, Any], ctx: Any) -> bool:
        # A basis the memory gives in its own voice, with no position put on the user ("use
        # page.evaluate's argument, because the callback runs in the browser"), is the mechanism
        # behind a rule the agent learned: it may be the model's own knowledge, true or not, which
        # overlap with the messages cannot tell from an invention. Put on the user, an unsupported
        # reason speaks in the user's name: certain.
        if self._position(_content(memory)) is None:
            return True
        # The user only asked, and only yes/no questions about one thing ("do we use progress bars
        # during these operations?", 你用了 ktransformers 吗): often an expectation put as a question.
        # (The problem is that one when the memory attributes a position and every user source only asks.)
        users = [m for m in ctx.sources(memory) if m.role == "user"]
        return bool(users) and all(_asks_only(m, ctx) and not _asks_openly(m, ctx) for m in users)

    def _position(self, content: str) -> str | None:
        """The words by which the memory attributes a position to the user (用户主张, "User's … rules:")."""
        found = self._positions.search(content) if self._positions is not None else None
        return found.group(0) if found is not None else self._user_label(content)

    def _user_label(self, content: str) -> str | None:
        """The label of a rule label the user owns ("User's changelog rules"), else None."""
        if ":" not in content and "：" not in content:
            return None
        found = _normform.rule_label(content, self.options.rule_labels, self.options.user_labels)
        return found[0] if found is not None and found[1] else None

    @staticmethod
    def _bases(content: str) -> list[str]:
        return stated_bases(content)


# An English full stop ends a sentence too when a space follows ("Let's keep X. Can you …?"
# states before it asks); an abbreviation split off that way only makes the message read as
# stating, never as asking.
_AFTER_SENTENCE_END = re.compile(r"(?<=[。！!？?\n])|(?<=\.)(?=\s)")


def _is_question(text: str) -> bool:
    parts = [p.strip() for p in _AFTER_SENTENCE_END.split(_EMBEDDED_QUESTION.sub("", text.strip())) if p.strip()]
    return bool(parts) and all(_QUESTION.search(p) and not _PROPOSING_QUESTION.search(p) and not _REQUEST.search(p)
                               for p in parts)


# A question that puts forward what to do ("is there any way to drop the else block",
# 能不能改成…): the user's own proposal, not a mere question.
_PROPOSING_QUESTION = re.compile(both_scripts(rf"(?:^|\b{_LEAD_IN},?\s+)(?:is there (?:any|a|some) way to|is it possible to|"
                                 r"can we|could we|shall we|why not|how about|what about)\b|"
                                 # "isn't it wrong to …?", "shouldn't we …?": a position asked back
                                 r"\b(?:isn'?t|wouldn'?t) it\b|\bshouldn'?t (?:we|it|this|that)\b|"
                                 r"能不能|可不可以|有没有办法|要不要改|不如|为什么不|"
                                 # "why the Span suffix, can they not just be overloads?": the user's alternative
                                 r"\b(?:can|could|should|would)(?:n't|\s+not)?\s+(?:we|they|it|you|i|this|these)\s+"
                                 r"(?:not\s+)?(?:just|simply)\b"),
                                 re.IGNORECASE)


# Per-message analyses are kept on the batch (``ctx.memo``), keyed by the message
# object the batch holds: a message cited by several memories is read once.
_ASKS_ONLY = "memvet.rules.method.asks-only"
_ASKS_OPENLY = "memvet.rules.method.asks-openly"
_TERMS = "memvet.rules.method.terms"
_EVIDENCE_ROLES = ("user", "assistant", "tool")


def _per_message(ctx: Any, tag: str, message: Any, compute: Any) -> Any:
    memo = getattr(getattr(ctx, "batch", None), "memo", None)
    if memo is None:
        return compute(message.content)
    key = (tag, id(message))
    found = memo.get(key)
    if found is None:
        found = memo[key] = compute(message.content)
    return found


def _asks_only(message: Any, ctx: Any) -> bool:
    """Does the message only ask (every sentence a question)?"""
    return _per_message(ctx, _ASKS_ONLY, message, _is_question)


def _asks_openly(message: Any, ctx: Any) -> bool:
    """Does the message ask an open question (what, how, which, 多少, 怎么, "what do you think")?"""
    return _per_message(ctx, _ASKS_OPENLY, message,
                        lambda text: _OPEN_QUESTION.search(_EMBEDDED_QUESTION.sub("", text)) is not None)


_POSITIONS = "memvet.rules.method.message-positions"


def _with_adjacent_argument(sources: list[Any], ctx: Any) -> list[Any]:
    """The sources plus the assistant message just before and just after each cited user message.

    RULES.md M005: a basis is supported by the user's words "or the
    assistant argument beside them" -- a model that cites the user's "ok,
    do that" may take the reason from the proposal it answers, uncited.
    (Per-message order is computed once per batch, on ``ctx.batch.memo``.)
    """
    batch = getattr(ctx, "batch", None)
    messages = getattr(batch, "messages", None) if batch is not None else None
    if not messages or not any(m.role == "user" for m in sources):
        return sources
    memo = batch.memo
    positions = memo.get(_POSITIONS)
    if positions is None:
        positions = memo[_POSITIONS] = {id(m): k for k, m in enumerate(messages)}
    out, seen = list(sources), {id(m) for m in sources}
    for m in sources:
        k = positions.get(id(m)) if m.role == "user" else None
        if k is None:
            continue
        for j in (k - 1, k + 1):
            if 0 <= j < len(messages):
                beside = messages[j]
                if beside.role == "assistant" and beside.sessionKey == m.sessionKey and id(beside) not in seen:
                    out.append(beside)
                    seen.add(id(beside))
    return out


def _evidence(sources: list[Any], ctx: Any = None) -> list[_text.SourceText]:
    """The source messages (user, assistant, tool) as evidence for ``_text.support_in``, once per message."""
    return [_per_message(ctx, _TERMS, m, _text.SourceText) for m in sources if m.role in _EVIDENCE_ROLES]
