"""G -- seed 000's three value gates (宁缺毋滥: better one memory too few).

Each gate asks ONE question of one memory; a memory that fails is dropped:

====  ==========  =====================================================
G001  stripping   without names, paths, hashes and numbers, is anything
                  left that guides a later action, or only a change log?
G002  one-time    is it a reading, a progress figure or one day's
                  snapshot that will go stale?
G003  provenance  does it only say where to look, or restate what a
                  file, commit or README already says?
====  ==========  =====================================================

The gates must never drop what seed 000 says to keep: root causes and
pitfalls, decisions with their reasons, the user's lasting preferences and
taboos, facts that would need a new investigation, cross-session
conclusions. So every gate first looks for those "keep" signals (a reason,
a rule, a condition, a problem that was fixed, a decision) and stays quiet
when it finds one. A ``work_task`` is follow-up work, never a change log or
a bare pointer, and it is not a snapshot merely because it is dated.

The gates are heuristics over word classes and sentence structure, never
over particular sentences; all word lists are options. A memory whose value
needs judgment beyond them is left for the optional LLM judge.

Declarations: each gate declares what it needs (``needs = Needs(...)``, see
:mod:`memvet.needs`): a non-blank content and, for G001 and G002, the word
lists one of which every failure shape needs (G001 also a commit hash). The
engine calls ``check()`` only where that can be met; ``check()`` holds only
the gate's question, its word lists searched through the shared
:class:`~memvet.rules._text.WordSearch` (the lexicon's matches, found from
the folded text's literals) and the content's shared
:class:`~memvet.rules._text.View` (its stripped copy, digits).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from memvet.needs import Needs
from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _sources, _text, lexicon
from memvet.rules._hant import both_scripts
from memvet.rules._scripts import words_and_cjk
from memvet.rules.method import NORMATIVE, NOT_NORMATIVE, USER_WISH
from memvet.rules.quality import raw_share  # G002: how much of a state dump is raw output (Q002's measure)
from memvet.rules import _changelog  # G001's change-log shapes

TASK, METHOD = "work_task", "work_method"
FACT, ARTIFACT = "work_fact", "work_artifact"

# --- what seed 000 says must be kept -----------------------------------------------

REASONS = [
    "因为", "由于", "理由", "依据", "根因", "原因是", "原因在于", "的原因", "原因：", "导致", "以免", "以防", "避免", "防止", "否则",
    "所以", "因此", "为了", "是为了", "才能", "才会", "只有", "不会", "就会", "会被", "意味着",
    "because", "since", "due to", "so that", "root cause", "caused by", "causes", "otherwise", "to avoid",
    "to prevent", "in order to", "which means", "the reason", "leads to", "as a result", ", so", "therefore",
    "only when", "unless", "whereas",
    # the reading or change is what explains a setting ("lags 297 ms, which is why the delay is 400 ms")
    "which is why", "that is why", "that's why", "this is why", "这就是为什么", "这也是为什么",
    # Portuguese and Spanish, for answers written in such a user's language
    "porque", "pois", "já que", "devido a", "por causa", "causa raiz", "caso contrário", "senão", "para evitar",
    "para que", "ou seja", "só quando", "só depois", "ya que", "debido a", "por eso", "de lo contrario",
    "causa raíz", "solo cuando", "sólo cuando",
    # Japanese and Polish
    "ため", "ので", "原因は", "が原因", "根本原因", "なぜなら", "そのため", "さもないと", "しないと", "防ぐ",
    "ponieważ", "dlatego", "z powodu", "przyczyna", "przyczyną", "aby uniknąć", "żeby uniknąć",
    "w przeciwnym razie", "bo inaczej", "aby", "żeby", "więc",
    # Vietnamese
    "vì", "bởi vì", "do đó", "vì vậy", "nguyên nhân", "để tránh", "nếu không", "để", "nên",
    # Russian
    "потому что", "так как", "поскольку", "из-за", "чтобы", "иначе", "причина", "поэтому", "во избежание",
]
CONDITIONS = ["如果", "若", "一旦", "每当", "当", "when", "whenever", "if", "once",
              "quando", "sempre que", "cuando", "siempre que",  # Portuguese, Spanish
              "場合", "とき", "時は", "際は", "際に", "ならば",  # Japanese
              "gdy", "kiedy", "jeśli", "jeżeli", "w przypadku",  # Polish
              "khi", "nếu", "mỗi khi", "trong trường hợp",  # Vietnamese
              "если", "когда", "при этом", "в случае"]  # Russian
PROBLEMS = [
    "修复", "问题", "bug", "故障", "坑", "报错", "错误", "失败", "异常", "崩溃", "泄漏", "死锁", "回归",
    # a change that "solved" something records the problem with its fix (报 X，改成 Y 后解决)
    "解决", "规避",
    "fix", "fixed", "fixes", "issue", "regression", "error", "fails", "failed", "broke", "broken", "crash",
    "leak", "deadlock", "pitfall", "solved", "resolved", "workaround",
    "breaks", "misaligns", "misaligned", "错位", "不兼容", "incompatible", "not compatible",
    # Portuguese, Spanish
    "erro", "falha", "falhou", "problema", "corrigido", "corrigida", "correção", "resolvido", "contorno",
    "falla", "falló", "corregido", "solucionado", "resuelto", "quebra", "quebrou", "quebrado", "rompe", "rompió",
    # Japanese, Polish
    "エラー", "不具合", "バグ", "修正", "回避策", "ハマり", "クラッシュ", "フリーズ", "例外", "動かない", "効かない",
    "błąd", "błędu", "błędy", "błędem", "awaria", "nie działa", "naprawiono", "naprawiony", "naprawiona",
    "rozwiązano", "obejście", "problemu", "problem z",
    "lỗi", "sửa lỗi", "không hoạt động", "bị lỗi", "khắc phục", "giải quyết",  # Vietnamese
    "ошибка", "ошибки", "ошибку", "ошибкой", "баг", "сбой", "не работает", "исправлено", "исправлена", "проблема",
    "проблемы", "обходной путь",  # Russian
]
DECISIONS = [
    "决定", "决策", "选定", "选用", "约定", "规定", "采用", "要求", "否决", "是否", "待确认", "正在评估", "评估",
    "decided", "decision", "chose", "agreed", "convention", "adopted", "requires", "required", "whether",
    "pending", "under evaluation", "vetoed", "rejected",
    # a person's refusal settles it as much as a choice ("the user didn't want the truncation, so …")
    "didn't want", "did not want", "doesn't want", "does not want", "不想要", "不希望",
    # Portuguese, Spanish
    "decidido", "decidiu", "decisão", "decidimos", "adotado", "convenção", "exige", "exigem", "requer",
    "decisión", "adoptado", "convención", "requiere",
    # Japanese (決定 and 採用 fold to 决定 and 采用), Polish
    "方針", "決めた", "合意", "要件", "必須",
    "zdecydowano", "decyzja", "decyzję", "postanowiono", "wybrano", "uzgodniono", "wymaga", "wymagane",
    "quyết định", "yêu cầu", "bắt buộc", "đã chọn",  # Vietnamese
    "решено", "решили", "решение", "выбрали", "требуется", "договорились",  # Russian
]
# Later use the memory names: it guides a future action by definition.
FUTURE_USE = [
    "后续", "以后", "今后", "将来", "下次", "复用", "沿用", "作为模板", "为模板", "作为参考", "作为依据", "可作为",
    "will build on", "build on it", "builds on it", "as a template", "as the template", "as a reference",
    "as the reference", "will reuse", "to be reused", "next time", "going forward", "in future", "in the future",
    # A state named as the point to compare with or go back to is kept for that later use.
    "reference snapshot", "reference point", "rollback point", "restore point", "回滚点", "还原点", "参考版本",
    # Portuguese, Spanish
    "no futuro", "próxima vez", "daqui em diante", "a partir de agora", "en el futuro", "la próxima vez",
    "de ahora en adelante",
    # Japanese (今後 folds to 今后), Polish
    "次回", "以降", "次から", "再利用",
    "w przyszłości", "następnym razem", "od teraz", "na przyszłość",
    "sau này", "lần sau", "từ nay", "về sau",  # Vietnamese
    "в будущем", "в следующий раз", "впредь", "с этого момента",  # Russian
]
LASTING = [
    "默认", "上限", "下限", "阈值", "基线", "基准", "对比", "长期", "始终", "一直", "永不", "配额", "限制",
    "default", "limit", "cap", "capped", "threshold", "baseline", "benchmark baseline", "quota", "by design",
    "por padrão", "limite", "por defecto", "límite",  # Portuguese, Spanish
    "デフォルト", "既定", "domyślnie", "domyślny", "domyślna", "próg",  # Japanese, Polish
    "mặc định", "giới hạn",  # Vietnamese
    "по умолчанию", "лимит", "ограничение",  # Russian
]


class _Gate(Rule):
    target = "memory"
    action = "drop"
    #: A memory without content holds nothing to judge (the T rules report the missing field);
    #: the memory types a gate judges are its ``types`` (the engine dispatches on them).
    needs = Needs(fields=("content",))
    #: Not ``reads_prose``: a gate's finding rests first on who said the memory and what the
    #: batch shows (only the agent's messages, a figure a tool printed, an edit a source made),
    #: which reads in any language. On the unread-language sessions measured (French, Turkish,
    #: German), the gates' findings there were right 28 times and wrong 7 (M001's: 3 and 16).

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        # A plain function, not a generator: a clean memory costs no generator.
        content = memory.get("content")
        if not isinstance(content, str):
            return ()  # called directly, without the engine's declaration test
        view = _text.view(ctx, content)
        problem = self.problem(content, memory, view)
        if problem and not self.excused(memory, ctx, view):
            return [Finding(problem, path="/content", confidence="low" if self.doubtful(content, memory, view) else None)]
        # Then the memory against its batch: what the sources show, by role.
        found = self.against_sources(content, memory, ctx, view)
        return [found] if found is not None else ()

    def against_sources(self, content: str, memory: dict[str, Any], ctx: Any,
                        view: _text.View) -> Finding | None:
        """A finding judged from the batch facts (what the sources show), or None.

        ``view`` is the content's shared :class:`~memvet.rules._text.View`.
        """
        return None

    def excused(self, memory: dict[str, Any], ctx: Any, view: _text.View) -> bool:
        """The batch takes back a word-shape failure (the user said it in so many words)."""
        return False

    def doubtful(self, content: str, memory: dict[str, Any], view: _text.View) -> bool:
        """The word shape failed, but the memory holds more than the shape (a low-confidence finding)."""
        return False

    def problem(self, content: str, memory: dict[str, Any], view: _text.View | None = None) -> str | None:
        """The failure message, or None. ``view`` is the content's shared view (made when not given)."""
        raise NotImplementedError  # pragma: no cover


def _compile(words: list[str]) -> re.Pattern[str] | None:
    return lexicon.compile_words(words)


def _from_word(pattern: re.Pattern[str] | None, word: _text.WordSearch, text: str,
               folded: str | None = None) -> re.Match[str] | None:
    """``pattern.search(text)`` for a pattern that starts with a match of ``word``'s list.

    Such a match starts where the list matches, so no earlier than the list's
    first match (found from the folded literals; ``folded`` is ``fold(text)``
    when the caller has it): the pattern is tried from there.
    """
    if pattern is None:
        return None
    first = word.search(text, folded)
    return pattern.search(text, first.start()) if first is not None else None


# --- G001 ---------------------------------------------------------------------------

#: The end of a clause or sentence: what a connector of consequence leads to stops here (a dot only
#: before a capital or at the end: names are blanked in the stripped text, "ktsu.  was added").
_CLAUSE_END = re.compile(r"[;!?。；！？\n]|\.(?=\s+[A-Z]|\s*$)")
# The new state of edited code told by "now" and a verb ("each submenu now starts with …", "the
# scripts now take a directory"): not "from now on" (a rule from here on), "now that" (a cause),
# "for now"/"until now"/"right now" (times), nor "now" before an article or a preposition.
# The word comes first and the excluded lead-ins are looked behind it, so the scan skips ahead
# to "now" instead of trying eight lookbehinds at every character of every memory.
_NOW_STATE = re.compile(
    r"\bnow(?<!\bfrom now)(?<!\buntil now)(?<!\bfor now)(?<!\bright now)(?<!\bjust now)(?<!\bby now)"
    r"(?<!\bof now)(?<!\btill now)\s+(?:(?:also|only|just|always|both|correctly|properly)\s+)?"
    r"(?!(?:on|that|the|a|an|in|at|to|with|and|or|is|are|was|i|we|you|it|if|when|for|more|less)\b)[a-z]{2,}\b",
    re.IGNORECASE)


class StrippingTest(_Gate):
    """A change log or process record: nothing left once the specifics go.

    What it does:
        Blanks out names, paths, file names, hashes, versions, numbers and
        identifiers (the stripping test), then looks at what is left.
        It fails when a change verb remains (改为/换成/升级到/新增了/删除了/
        完成了, "renamed", "replaced", "bumped") and nothing that guides a
        later action does: no reason, rule, condition, fixed problem or
        decision. ``work_task`` (follow-up work) and ``work_method`` (checked
        by the M rules) are not judged.

        Against the batch: a memory that narrates work ("Reorganized …",
        "X now calls Y", "now starts with …" -- "now" and any verb, not "from
        now on" or "now that" --, "no longer uses", "the agent then adjusted …",
        已删除/修复了/已重构; in Spanish and Portuguese the passive with
        se or ser and the first person: "se eliminaron", "foi substituída",
        "alterei") while one of its sources shows that
        work being done (a tool edit or commit, an assistant file write or
        "done" report) fails even without a change verb of the list, unless
        it keeps a cause, a rule or a decision, or a user of the batch STATED
        it (their own words: not a request or question, not code they
        pasted, and more than the verb and a word or two left once names go). A fenced block whose info string names a file
        (a fence opened as css:app/style.css) is a file write. A change told by its
        means ("made 3D by adding …", 通过添加) is narration too. A work_artifact that says
        it created the asset it names is its job, not a change log.

        Process records of other shapes fail the same way: a commit this batch
        shows being made, cited by its hash ("提交 18f53ef：…", even when the
        commit message repeats the user's request: it is the line git log
        gives back, unless it is named as the state to return to or compare
        with, a "rollback point" or "reference snapshot"); narration that
        opens a later Chinese clause ("…，已在根目录新建 …"); a list of what
        the work produced with no verb ("Step 1 deliverables: …", 新增文件：…);
        one failed try of this batch's work ("the attempted renames failed
        because …": its reason explains a one-off event, only a rule keeps it).
        In a work_fact, a problem word that is only the object of the fix
        ("Fixed the column mismatch error", 解决了…的同步问题) keeps nothing,
        unless the fix quotes the error text it printed (a symptom to
        recognise); narrated work that names the error it cured, by its
        class or code ("Fixed the Numba TypingError by …", TS2305), is a
        pitfall with its fix too; the same holds for any change told with an error line
        that a cited tool message printed ("会报 LLM Provider NOT provided，
        改成 openai/ 前缀后正常": a pitfall and its fix). What does NOT decide a change log: a present passive that
        says how code works ("the button is added via addButton()"), a purpose
        clause ("to keep the singular folder name", 以保持…), a schema's
        "required field", a feature named "error handling" (错误处理). A "when" clause does not keep a narration
        either: it tells how the edited code behaves ("shows an asterisk
        when the tab is dirty"); nor does a "so"/所以 that leads to the
        change itself ("did not reference TextFilter, so it was added": the
        state before the change, which the diff shows too).

    Why is this bad?
        "utils/format.ts 的 moment 已换成 dayjs" is in git history; as a
        memory it takes recall budget every turn and guides nothing. A
        change *with its reason* ("换成 pino，因为 winston 序列化吃掉三成
        CPU") is a decision and is kept.

    Example:
        user: 把 utils/format.ts 里的 moment 全换成 dayjs
        ```json
        {"content": "utils/format.ts 中的 moment 调用已全部替换为 dayjs，并删除了 3 个未被调用的函数。", "type": "work_fact",
         "priority": 80, "metadata": {"work_object": "utils/format.ts"}}
        ```
        user: Rename getById to findById across the user service.
        ```json
        {"content": "UserService.getById was renamed to findById and all 14 call sites were updated.", "type": "work_fact",
         "priority": 80}
        ```
        user: regroup the exports of the barrel file
        tool: Applied edit to src/index.ts -- Commit 9bb94e7 refactor: regroup exports
        ```json
        {"content": "Reorganized exports in src/index.ts into groups sorted alphabetically.", "type": "work_fact",
         "priority": 75}
        ```
        user: 缓冲区满了以后 redo 还是报错
        tool: Tool use: **search_replace** • Edit file: src/undo.layers.js
        ```json
        {"content": "src/undo.layers.js 的 takeSnapshot 现在调用 next() 再 store()。", "type": "work_fact", "priority": 75}
        ```
        user: can you make the purple card shadow stand out more?
        tool: Applied edit to app/static/css/style.css
        ```json
        {"content": "The .card purple box shadow was made more prominent with layered shadows.", "type": "work_fact",
         "priority": 75}
        ```
        user: 加载动画能不能更立体一点
        tool: Applied edit to app/static/css/style.css
        ```json
        {"content": "加载动画通过添加 box-shadow 和渐变背景变得更立体。", "type": "work_fact", "priority": 70}
        ```
        user: 提交一下
        tool: [main 18f53ef] Add configs/paper to pyrightconfig exclude
        ```json
        {"content": "提交 18f53ef：把 configs/paper 加入 pyrightconfig 的 exclude。", "type": "work_artifact", "priority": 70,
         "metadata": {"artifact_type": "commit", "artifact_ref": "18f53ef"}}
        ```
        user: reconciliation crashes on the column count
        tool: Applied edit to app/models/reconcilation_table.py
        ```json
        {"content": "Fixed the column mismatch error in reshape_data by handling 2 and 3 column DataFrames.",
         "type": "work_fact", "priority": 75}
        ```
        assistant: The attempted renames failed because the destination filenames were the same as the source.
        ```json
        {"content": "The renames failed because the destination filenames were the same as the source.",
         "type": "work_fact", "priority": 70}
        ```

    Use instead:
        user: I don't want hover effects on the cards, keep them flat.
        tool: Applied edit to app/static/css/style.css
        ```json
        {"content": "The cards now have no hover effects and stay flat.", "type": "work_fact", "priority": 75}
        ```
        user: 日志库换成 pino 吧，压测时 winston 光序列化就吃掉三成 CPU。
        ```json
        {"content": "用户决定将日志库从 winston 换成 pino，理由是压测中 winston 的序列化开销约占 30% CPU。", "type": "work_fact",
         "priority": 80}
        ```
        user: We're moving the job queue from RabbitMQ to Redis Streams; we already run Redis.
        ```json
        {"content": "The job queue moves from RabbitMQ to Redis Streams because Redis is already operated.", "type": "work_fact",
         "priority": 80}
        ```
        user: 缓冲区满了以后 redo 还是报错
        tool: Tool use: **search_replace** • Edit file: src/undo.layers.js
        ```json
        {"content": "缓冲区满时 redo 报错，因为 next() 释放了 store() 刚写入的图像；takeSnapshot 必须先 next() 再 store()。",
         "type": "work_fact", "priority": 88}
        ```
        user: The new tests are in tests/ but ours live in test/. Keep the singular name, like src. Move them.
        assistant: Done: I moved the files and updated the Playwright config.
        ```json
        {"content": "Moved the E2E tests from tests/ to test/ to keep the singular folder name, like src.",
         "type": "work_fact", "priority": 80}
        ```
        assistant: gui.js builds the panel: the clear button is added via addButton('clear', ...).
        ```json
        {"content": "QuickSettings renders buttons as input.qs_button; the clear button is added via addButton().",
         "type": "work_fact", "priority": 80}
        ```
        user: quicktest.sh fails with a Numba TypingError in gamut_map_oklch_single
        tool: Applied edit to src/imgcolorshine/trans_numba.py
        ```json
        {"content": "Fixed the Numba TypingError in gamut_map_oklch_single by replacing the star-unpack with explicit indexing rgb[0], rgb[1], rgb[2].",
         "type": "work_fact", "priority": 80}
        ```
    """

    code = "G001"
    name = "stripping-test"
    #: ``work_task`` (follow-up work) and ``work_method`` (the M rules) are not judged.
    types = frozenset({FACT, ARTIFACT})
    # Every failure needs a word of one of these lists (a change verb, a work-list header, a
    # narration, a failed try) or a commit hash it cites.
    needs = Needs(fields=("content",), words=("change_verbs", "work_lists", "narration_openers", "narration_phrases",
                                              "clause_openers", "attempt_failed"),
                  forms=(_changelog.COMMIT_HASH.pattern,))

    class Options(RuleOptions):
        change_verbs: list[str] = [
            "改为", "改成", "换成", "换为", "替换为", "替换成", "升级到", "升级为", "升级至", "升到", "降级到", "降到",
            "迁移到", "迁移至", "切换到", "切换为", "切到", "重命名", "更名为", "新增了", "增加了", "添加了", "加上了",
            "删除了", "删掉了", "移除了", "去掉了", "完成了", "已完成", "已合入", "已合并", "已提交", "已上线",
            "已部署", "更新了", "调整了", "修改了", "重构了", "格式化", "已替换", "已升级", "已迁移", "已删除",
            "更新为", "更新到", "升级了", "改用了", "已改用", "换用了", "引入了", "接入了", "补充了", "补上了",
            "提交了", "合并了", "已重命名", "已更新", "已调整", "已修改", "已移除",
            # a value moved up or down ("z 值已调高 100", 超时调低到 5 秒)
            "已调高", "已调低", "已提高", "已降低", "已加大", "已减小", "已增大", "调高到", "调低到", "调高了", "调低了",
            "renamed", "replaced", "upgraded", "downgraded", "bumped", "migrated", "switched", "moved", "added",
            "removed", "deleted", "updated", "changed", "refactored", "merged", "landed", "completed",
            "introduced", "reformatted", "formatted", "converted", "rewrote", "rewritten", "cleaned up",
            # Japanese (the verb closes the clause: を追加した, に変更しました), Polish
            "追加した", "追加しました", "を追加。", "変更した", "変更しました", "に変更", "削除した", "削除しました",
            "置き換えた", "置き換えました", "に置き換え", "更新した", "更新しました", "移動した", "移動しました",
            "作成した", "作成しました", "実装した", "実装しました", "リネームした", "引き上げた", "引き下げた",
            "dodano", "usunięto", "zmieniono", "utworzono", "zaktualizowano", "przeniesiono", "zaimplementowano",
            "zastąpiono", "dodałem", "usunąłem", "utworzyłem", "zaktualizowałem", "przeniosłem", "zmieniłem",
            "zaimplementowałem", "zastąpiłem",
            # Vietnamese (đã = done)
            "đã thêm", "đã cập nhật", "đã sửa", "đã xóa", "đã đổi", "đã tạo", "đã chuyển", "đã thay",
            # Russian (the short participle in each gender and number, the past tense)
            "добавлен", "добавлена", "добавлено", "добавлены", "изменён", "изменен", "изменена", "изменено",
            "изменены", "удалён", "удален", "удалена", "удалено", "удалены", "переименован", "переименована",
            "переименовано", "переименованы", "обновлён", "обновлен", "обновлена", "обновлено", "обновлены",
            "заменён", "заменен", "заменена", "заменено", "заменены", "реализован", "реализована", "реализовано",
            "реализованы", "перенесён", "перенесен", "перенесена", "перенесено", "перенесены", "внедрён", "внедрен",
            "внедрена", "внедрено", "внедрены", "вынесен", "вынесена", "вынесено", "вынесены", "убран", "убрана",
            "убрано", "убраны", "подключён", "подключен", "подключена", "подключено", "подключены", "добавил",
            "изменил", "удалил", "переименовал", "обновил", "заменил", "реализовал", "перенёс", "внедрил", "вынес",
            "убрал", "подключил",
            # French (the participle, the passive, the first person)
            "a été ajouté", "a été ajoutée", "ont été ajoutés", "a été supprimé", "a été supprimée", "ont été supprimés",
            "a été modifié", "a été modifiée", "a été renommé", "a été remplacé", "a été remplacée", "a été déplacé",
            "a été mis à jour", "ont été mis à jour", "a été corrigé", "a été implémenté", "j'ai ajouté",
            "j'ai supprimé", "j'ai modifié", "j'ai renommé", "j'ai remplacé", "j'ai déplacé", "j'ai mis à jour",
            "j'ai corrigé", "j'ai implémenté",
            # Spanish (the passive with se, the first person, the passive with ser), Portuguese
            "se agregó", "se agregaron", "se añadió", "se añadieron", "se eliminó", "se eliminaron", "se actualizó",
            "se actualizaron", "se modificó", "se modificaron", "se cambió", "se cambiaron", "se renombró",
            "se renombraron", "se reemplazó", "se reemplazaron", "se movió", "se movieron", "se migró",
            "se implementó", "se implementaron", "agregué", "añadí", "eliminé", "actualicé", "modifiqué", "cambié",
            "renombré", "reemplacé", "migré", "implementé", "refactoricé", "fue actualizado", "fue actualizada",
            "fue eliminado", "fue eliminada", "fue reemplazado", "fue modificado", "fue renombrado",
            "fueron eliminados", "fueron actualizados", "fueron agregados",
            "foi adicionado", "foi adicionada", "foram adicionados", "foi removido", "foi removida", "foram removidos",
            "foi atualizado", "foi atualizada", "foram atualizados", "foi alterado", "foi alterada", "foi renomeado",
            "foi substituído", "foi substituída", "foi migrado", "foi implementado", "foi implementada",
            "adicionei", "removi", "atualizei", "alterei", "renomeei", "substituí", "migrei", "implementei",
            "refatorei",
        ]
        #: ... and what a user wants ("User wants the helpers moved into src/"): a wish, not a change made
        #: (not what a user believes: "用户认为 X 有问题，但…" is often corrected in the same memory).
        keep_markers: list[str] = REASONS + CONDITIONS + PROBLEMS + DECISIONS + NORMATIVE + FUTURE_USE + USER_WISH
        not_keep: list[str] = NOT_NORMATIVE
        #: Narration of work done, judged only when a source shows that work (an edit,
        #: a file write, a commit, an assistant's "done" report): a sentence opening
        #: with one of these...
        narration_openers: list[str] = [
            "added", "created", "renamed", "moved", "removed", "deleted", "updated", "changed", "fixed", "restored",
            "reorganized", "reorganised", "refactored", "committed", "replaced", "rewrote", "recreated", "converted",
            "implemented", "merged", "reverted", "bumped", "cleaned up", "switched", "wrote", "regrouped", "sorted",
            "extracted", "inlined", "adjusted", "modified", "tweaked", "staged", "pushed", "amended",
            # A change told as an improvement is still a change ("Enhanced the loader with ...").
            "made", "enhanced", "improved", "simplified", "weakened", "relaxed", "tightened", "installed",
            "uninstalled", "rewired", "wrapped", "styled", "restyled",
            "已", "完成了", "新增了", "新增", "删除了", "修复了", "更新了", "实现了", "创建了", "重命名了", "提交了", "调整了",
            "修改了", "移除了", "补充了", "重构了", "恢复了",
        ]
        #: ... or holding one of these.
        narration_phrases: list[str] = [
            "was updated", "were updated", "was renamed", "were renamed", "was created", "were created",
            "was recreated", "was added", "were added", "was removed", "were removed", "was changed",
            "was fixed", "was moved", "were moved", "was resolved", "got corrupted", "now calls", "now uses",
            "now provides", "now contains", "now has", "has been", "have been", "committed",
            # The new state of the code told as a result ("the card got a metallic look", "was made 3D").
            "was made", "were made", "was given", "were given", "got a", "got an", "now keeps", "now returns",
            "now shows", "now checks", "is now", "are now",
            "now prints", "now logs", "now writes", "now sorts", "now skips", "now reads",
            # The change told by its means ("the loader made 3D by adding a gradient").
            "by adding", "by removing", "by replacing", "by switching", "by changing", "by moving",
            "通过添加", "通过增加", "通过删除", "通过替换", "通过改为", "通过移除",
            # More passives of a change made, and the new state told against the old ("no longer uses").
            "was split", "were split", "was deleted", "were deleted", "was set to", "were set to", "was amended",
            "was pushed", "were pushed", "was written", "were written", "was excluded", "were excluded",
            "was extracted", "were extracted", "was replaced", "were replaced", "was reworked", "was rewritten",
            "was refactored", "was simplified", "was reverted", "was merged", "were merged",
            "now adds", "now merges", "now exports", "now only", "now just", "now accepts", "now loads",
            "now includes", "now builds", "no longer uses", "no longer checks", "no longer calls", "no longer has",
            "no longer accepts", "no longer exports", "no longer imports",
            # The agent told as the subject of the work ("the agent then adjusted the offsets").
            "the agent edited", "the agent changed", "the agent switched", "the agent added", "the agent removed",
            "the agent adjusted", "the agent rewrote", "the agent replaced", "the agent moved", "the agent updated",
            "the agent then", "the assistant edited", "the assistant changed", "the assistant switched",
            "the assistant added", "the assistant removed", "the assistant adjusted", "the assistant rewrote",
            "the assistant then",
            "已重构", "已去掉", "已拆分", "已替换", "已新增", "已加入", "已改用", "改用了", "统一改用", "新建了", "补齐了",
            "已补齐", "已补充", "已合并", "已接入", "已调整", "已迁移", "已升级", "已切换", "添加了", "引入了",
            "已删除", "已完成", "已更新", "已修复", "已实现", "已提交", "已重命名", "已添加", "已创建", "已修改", "已移除",
            "完成了", "修复了", "更新了", "实现了", "删除了", "新增了", "现在调用", "改成了", "改为了",
            "变成了", "换成了", "加上了", "去掉了", "现在会", "现在使用", "现在返回", "已改为", "已换成",
            # Spanish and Portuguese: the passive with se / ser, the first person, the new state ("ahora usa")
            "se creó", "se crearon", "se agregó", "se agregaron", "se añadió", "se añadieron", "se eliminó",
            "se eliminaron", "se actualizó", "se actualizaron", "se modificó", "se modificaron", "se cambió",
            "se cambiaron", "se renombró", "se reemplazó", "se movió", "se implementó", "se corrigió",
            "se corrigieron", "creé", "agregué", "añadí", "eliminé", "actualicé", "modifiqué", "cambié",
            "implementé", "corregí", "fue creado", "fue creada", "fueron creados", "fue actualizado",
            "fue eliminado", "fue modificado", "fue reemplazado", "ahora usa", "ahora tiene", "ahora solo",
            "ahora muestra", "ya no usa",
            "foi criado", "foi criada", "foram criados", "foi adicionado", "foram adicionados", "foi removido",
            "foram removidos", "foi atualizado", "foi alterado", "foi substituído", "foi implementado",
            "foi corrigido", "criei", "adicionei", "removi", "atualizei", "alterei", "implementei", "corrigi",
            "agora usa", "agora tem", "agora só", "não usa mais",
        ]
        #: What keeps a narration of shown work: a cause, a rule, a decision (not a mere "fixed").
        #: Not "when"/当: in a narration it says how the edited code behaves ("shows an asterisk
        #: when dirty"), which the code says too; "if"/"unless"/"once" stay (a rule of reading).
        narration_keep: list[str] = (REASONS + [c for c in CONDITIONS if c not in ("when", "当")] + DECISIONS
                                     + NORMATIVE + FUTURE_USE
                                     + [p for p in PROBLEMS if p not in ("修复", "fix", "fixed", "fixes")])
        #: A connector of consequence ("…did not reference it, so it was added") keeps a narration
        #: only when what follows it is not the change itself: then the "reason" is only the state
        #: before the change, which the diff shows too.
        consequences: list[str] = [", so", "therefore", "as a result", "所以", "因此", "于是"]
        #: A narration this much of whose terms a user of the batch STATED (in prose, not pasted
        #: code; not a request or question) carries the user's words.
        user_share: float = 0.5
        #: ... and has at least this many terms besides its names and its narration verb (fewer
        #: make any share a coincidence of one or two words).
        user_min_terms: int = 3
        #: A work_artifact told with one of these records the asset it names (a plan, a doc, a
        #: test file just made), which is its job; it is not a change log of that asset.
        artifact_creation: list[str] = ["created", "wrote", "written", "added", "generated", "drafted",
                                        "创建了", "新建了", "新增了", "编写了", "写了", "生成了", "起草了",
                                        "作成した", "作成しました", "utworzono", "utworzyłem",
                                        "se creó", "se crearon", "creé", "fue creado", "fue creada", "foi criado",
                                        "foi criada", "criei"]
        #: A purpose clause is a reason: "moved the tests to test/ to keep the singular folder name".
        purposes: list[str] = ["to keep", "to stay", "to maintain", "to preserve", "for consistency",
                               "consistent with", "for compatibility", "to be compatible", "以保持", "以便", "保持一致",
                               "便于", "为兼容", "以兼容"]
        #: Words that name a code property, not a requirement or a rule ("a new required field"):
        #: masked before the keep markers are looked for.
        #: "with proper error handling" names a feature built, not a problem solved.
        attributive: list[str] = ["error handling", "error handler", "error handlers", "exception handling",
                                  "exception handler", "exception handlers", "错误处理", "异常处理",
                                  "new required", "required field", "required fields", "required parameter",
                                  "required parameters",
                                  "required argument", "required arguments", "required property",
                                  "required properties", "required key", "required keys", "required column",
                                  "required columns", "必填字段", "必填参数", "必填项"]
        #: A change verb right after one of these is a present passive that says how code
        #: works ("the clear button is added via addButton()"), not a change that was made.
        descriptive_before: list[str] = ["is", "are", "gets", "get", "be", "being"]
        #: A fix verb whose object is the problem word ("Fixed the column mismatch error",
        #: 解决了该文件的同步问题): in a work_fact that problem word names what was changed and
        #: keeps nothing (a cause or a pitfall still does, with its own words).
        fix_verbs: list[str] = ["fixed", "fixes", "resolved", "solved", "修复了", "解决了", "修复", "解决", "修正了",
                                "修正した", "修正しました", "naprawiono", "naprawiłem"]
        #: One try of this batch's work that failed: the try ...
        attempts: list[str] = ["the renames", "the rename", "the attempt", "the attempted", "the first attempt",
                               "the previous attempt", "my attempt", "our attempt", "the retry", "tried to",
                               "尝试", "试图", "第一次", "这次", "本次", "刚才"]
        #: ... and its failure, in the same sentence.
        attempt_failed: list[str] = ["failed", "did not work", "didn't work", "was rejected", "did nothing",
                                     "失败", "没成功", "未成功", "没有成功", "不起作用", "没生效", "未生效"]
        #: Headers of a list of what the work produced or touched ("Step 1 deliverables: …",
        #: "Files changed: …", 新增文件：…): a change log without a change verb.
        work_lists: list[str] = ["deliverables", "files created", "files changed", "files modified", "files added",
                                 "files updated", "created files", "changed files", "modified files", "new files",
                                 "completed", "what was done", "work done", "交付物", "新建文件", "新增文件", "修改文件",
                                 "修改的文件", "改动文件", "涉及文件", "完成了", "完成内容", "已完成", "已完成内容"]
        #: Narration openers also read at the start of a Chinese clause ("…，已在仓库根目录新建 …").
        clause_openers: list[str] = ["已", "并已", "已经"]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._openers = _text.compile_openers(o.narration_openers)
        self._narration = _text.WordSearch(o.narration_phrases)
        clause = "|".join(map(re.escape, sorted(o.clause_openers, key=len, reverse=True)))
        self._clause_opener = re.compile(rf"[，；]\s*(?:{clause})") if clause else None
        self._narration_keep = _text.WordSearch(o.narration_keep + o.purposes)
        self._consequences = frozenset(w.lower() for w in o.consequences)
        self._creation = frozenset(w.lower() for w in o.artifact_creation)
        self._change = _compile(o.change_verbs)
        self._change_word = _text.WordSearch(o.change_verbs)  # the first change verb, found from literals
        self._keep = _text.WordSearch(o.keep_markers + o.purposes)
        self._not_keep = _text.WordSearch(o.not_keep + o.attributive)
        self._descriptive = _changelog.descriptive_pattern(o.descriptive_before)
        tries, fails = _compile(o.attempts), _compile(o.attempt_failed)
        # The try, then in the same sentence its failure: "the attempted renames failed", 重命名失败.
        self._attempt = (re.compile(rf"(?:{tries.pattern})[^.;:!?。；：！？\n]{{0,40}}?(?:{fails.pattern})", re.IGNORECASE)
                         if tries is not None and fails is not None else None)
        self._attempt_try = _text.WordSearch(o.attempts)
        self._attempt_keep = _text.WordSearch(NORMATIVE + FUTURE_USE + DECISIONS)
        headers = _compile(o.work_lists)
        self._list_header = re.compile(rf"(?:{headers.pattern})\s*[:：]", re.IGNORECASE) if headers is not None else None
        self._list_word = _text.WordSearch(o.work_lists)
        self._fixed_object = _changelog.fixed_object_pattern(
            o.fix_verbs, [p for p in PROBLEMS if p not in o.fix_verbs and p not in ("修复", "fix")])

    def problem(self, content: str, memory: dict[str, Any], view: _text.View | None = None) -> str | None:
        stripped = (view or _text.View(content)).stripped  # shared with G003
        change = self._change_made(stripped)
        if change is None:
            # "Step 1 deliverables: …", 新增文件：…: a list of what the work produced, no verb needed.
            change = _from_word(self._list_header, self._list_word, content)
            if change is None:
                return None
        if self._keep.search(self._not_keep.mask(stripped)):
            return None
        return (f"a change log ({change.group(0)!r}): once names, files, commits and numbers are removed nothing "
                "guides a later action; git history already holds it (keep it only with its reason or lesson)")

    def excused(self, memory: dict[str, Any], ctx: Any, view: _text.View) -> bool:
        # "litellm 会报 LLM Provider NOT provided，改成 openai/ 前缀后正常": the change comes with the
        # error text a cited tool printed, a symptom to recognise next time (a pitfall and its fix).
        return _sources.quotes_source_error(ctx, memory, view.text)

    def against_sources(self, content: str, memory: dict[str, Any], ctx: Any,
                        view: _text.View) -> Finding | None:
        found = self._failed_attempt(content, memory, ctx)
        if found is not None:
            return found
        # A commit this batch shows being made, cited by its hash, is a commit record.
        narration = self._narrated(content)
        commit = _changelog.cited_commit(ctx, content) if narration is None and view.has_digit else None
        narration = narration or commit
        if narration is None or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None  # the common case: it narrates nothing
        if not _sources.shows_edits(ctx, memory):
            return None
        if (memory.get("type") == ARTIFACT and narration.lower() in self._creation
                and (memory.get("metadata") or {}).get("artifact_type") != "commit"):
            # "Created the E2E plan in notes/plans/": the artifact memory's own subject
            # (a commit artifact told as "Created X" is the commit log, though).
            return None
        rest = self._not_keep.mask(view.stripped)
        if memory.get("type") == FACT and not _changelog.quotes_symptom(self._fixed_object, content):
            rest = _text.mask(self._fixed_object, rest)  # "fixed the X error": the problem is what changed
        if self._keeps_narration(rest) or _changelog.names_error(content):
            return None
        if commit is None and self._users_words(narration, memory, ctx, view):
            # The user's own instruction (their words, not code they pasted), told back. Not for a
            # commit told by its line: a message that echoes the user's request is still git log's.
            return None
        if _sources.quotes_source_error(ctx, memory, content):
            return None  # the fix of an error whose text a cited tool printed: a pitfall, not a log
        return Finding(f"it narrates work that its sources show being done ({narration!r}) and leaves no cause, "
                       "rule or decision; the diff and the commit already hold it", path="/content")

    def _users_words(self, narration: str, memory: dict[str, Any], ctx: Any, view: _text.View) -> bool:
        """Does a user of the batch STATE what the narration tells (``user_share`` of its terms)?

        Not when the claim has fewer than ``user_min_terms`` terms besides its narration
        verb: "Created X (names…) and connected Y to the transaction API" keeps "connected"
        and "transaction" once names go, and a user who asked to "create the functions" and
        spoke of "transactions" has not stated the change."""
        claim = view.stripped
        at = claim.lower().find(narration.lower())
        rest = claim[:at] + " " + claim[at + len(narration):] if at >= 0 else claim
        if len(_text.terms_and_chars(rest)[0]) < self.options.user_min_terms:
            return False
        return _sources.user_prose_support(ctx, memory, claim) >= self.options.user_share

    def _keeps_narration(self, rest: str) -> bool:
        """A keep word (a cause, a rule, a decision) in the narration's prose, other than a connector of
        consequence that leads to the change itself ("…, so a FormatKey() method was added")."""
        if self._narration_keep.search(rest) is None:
            return False
        for hit in self._narration_keep.pattern.finditer(rest):
            if hit.group(0).lower() in self._consequences:
                clause = _CLAUSE_END.split(rest[hit.end():], 1)[0]
                if clause.lstrip().lower().startswith("that"):
                    return True  # ", so that …": a purpose
                if self._narration.search(clause) or self._change_made(clause) is not None:
                    continue
            return True
        return False

    def _narrated(self, content: str) -> str | None:
        m = self._openers.search(content) if self._openers is not None else None
        if m is None and self._narration is not None:
            m = self._narration.search(content)
        if m is None:
            m = _NOW_STATE.search(content)
        if m is None and self._clause_opener is not None:
            m = self._clause_opener.search(content)
            return m.group(0).lstrip("，；").strip() if m else None
        return m.group(0).strip() if m else None

    def _failed_attempt(self, content: str, memory: dict[str, Any], ctx: Any) -> Finding | None:
        """One failed try of this batch's work ("the attempted renames failed because …").

        Its reason explains a one-off event, so only a rule or a later use
        keeps it; a user among the sources may have stated it as a pitfall
        (then it is only a low-confidence finding).
        """
        m = _from_word(self._attempt, self._attempt_try, content)
        if m is None or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None
        sources = ctx.sources(memory)
        if not sources or self._attempt_keep.search(self._not_keep.mask(content)):
            return None
        certain = all(s.role != "user" for s in sources)
        return Finding(f"a process record of one failed attempt ({m.group(0).strip()!r}); the next try does not "
                       "need it -- keep the pitfall as a rule, if there is one", path="/content",
                       confidence="high" if certain else "low")

    def _change_made(self, stripped: str) -> re.Match[str] | None:
        """The first change verb that tells a change made, not how code works ("is added via")."""
        first = self._change_word.search(stripped)
        if first is None or self._change is None:
            return None
        for change in self._change.finditer(stripped, first.start()):  # no match starts before the first
            before = stripped[max(0, change.start() - 12):change.start()]
            if self._descriptive is None or self._descriptive.search(before) is None:
                return change
        return None


# --- G002 ---------------------------------------------------------------------------

# A number with a unit of measure or a share: "181 ms", "60%", "3200 QPS", "5 次".
_READING = re.compile(
    both_scripts(r"(?<![\w.])\d+(?:[.,]\d+)*\s?(?:%|ms|s\b|sec|秒|毫秒|分钟|min\b|小时|h\b|qps|rps|tps|req/s|次|轮|遍|runs?\b|"
    r"times\b|passes\b|行|rows?\b|条|万|gb\b|mb\b|kb\b)"),
    re.IGNORECASE)
# A bare number that is a value: not a list marker ("1."), a version or part of a name.
_ANY_NUMBER = re.compile(r"(?<![\w.#/-])\d+(?:[.,]\d+)?(?![\w/-]|\.\d|\.\s|\)\s)")
_DATES = re.compile(both_scripts(r"\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?|\d{1,2}\s*月\s*\d{1,2}\s*[日号]?|"
                    r"\d{1,2}:\d{2}|\d{1,2}\s*(?:点|am\b|pm\b)"), re.IGNORECASE)


# A pass count: "72/72 tests pass", "64/64 passing", 全部通过（22/22）.
# Every form holds a word of G002's ``reading_after`` (tests, passed, passing, 通过), which its
# declaration asks for.
_PASS_FRACTION = re.compile(both_scripts(r"(?<![\w./-])(\d+)/(\d+)(?![\w/-]|\.\d)\s*(?:tests?\b(?:\s+pass(?:ed|es)?\b)?|个测试|passed|passing|通过)"
                            r"|(?:passed|passing|通过)[^\d\n]{0,6}(\d+)/(\d+)(?![\w/-]|\.\d)"), re.IGNORECASE)


# A quoted span (straight, curly or backtick quotes): words the memory cites, not its own.
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”|`[^`\n]*`|「[^」\n]*」')


def _has_number(text: str, number: str) -> bool:
    """``number`` occurs in ``text`` as a whole number (not inside a longer one)."""
    start = text.find(number)
    while start >= 0:
        end = start + len(number)
        if (start == 0 or not (text[start - 1].isdigit() or text[start - 1] == ".")) and (
                end == len(text) or not text[end].isdigit()):
            return True
        start = text.find(number, start + 1)
    return False


def _unquoted(text: str, words: _text.WordSearch) -> str:
    """``text`` with its quoted spans blanked (what code prints, not the memory's words); ``text``
    itself when ``words`` has no match in it (blanking makes none)."""
    if words.search(text) is None:
        return text
    return _QUOTED.sub(lambda q: " " * len(q.group(0)), text)


def _without_dates(text: str) -> str:
    """Dates and clock times are not readings ("今天 18:00 前" is a deadline)."""
    return _DATES.sub(" ", text)


_SHARE = re.compile(r"(?<![\d.])(?:\d+(?:\.\d+)?\s?%|\d+\s?/\s?\d+|\d+\s+(?:out\s+)?of\s+\d+)", re.IGNORECASE)


class OneTimeTest(_Gate):
    """A reading, a progress figure or one day's snapshot that will go stale.

    What it does:
        Fails on any of these shapes, unless the memory also carries a
        reason, a rule, a default/limit/baseline, a decision or a recurring
        condition ("whenever the dev server is already running", 每当…):

        * a point-in-time marker (今天/刚才/目前, "today", "so far") with a
          reading (a number with a unit) or a run outcome (全绿, "passed");
        * a progress figure: a share (60%, 120/200) with a progress word
          (进度/跑到, "progress", "ETA");
        * a measurement word (耗时/延迟/QPS, "took", "latency") right before
          a number, and nothing else;
        * a status dump: a fenced block introduced as a state (状态/status).

        A ``work_task`` is not a snapshot by being dated or by carrying its
        state and next steps: only a progress figure makes it one, and when
        the task also names the work that remains ("60% done; remaining:
        migration, UI"), the finding is uncertain (low, warns): a drop would
        lose the follow-up work (``task_words_beyond_figure``).

        Against the batch: a figure with a unit of reading (a port, a test
        count or pass count such as "72/72 passing" or 全部通过（22/22）, a
        duration, a size) that a tool or assistant source printed
        and no user message of the batch gave is a reading copied from
        output (a low-confidence finding when only the assistant printed it).
        A figure that a file write or edit puts into the file (a port in
        docker-compose.yml, a disk size in a launch template) is a setting,
        not a reading.
        The options a question tool offers the user (``question_tools``:
        AskUserQuestion, ask_followup_question) are not output of a run.
        So is a "not yet" state (还没有/尚未, "has not been") that a cited
        tool message read off a command or a file, unless a cited user
        states it or the memory gives a reason: the work under way ends it.

        A work_fact or work_artifact also fails when it tells a stage of the
        work as finished ("Phase 1 is complete", 第一阶段已完成: progress, not a
        lasting fact), or gives an all-clear verdict of one check ("fully ESM
        compliant", 完全符合 ESM 规范) or a check run told as passed ("the build
        succeeds and all tests pass", 编译通过) that no cited user states and no
        reason or rule of its own holds: the next change can undo it. A pass
        told after the failure it ends ("type-check 报错 …，补充 export 后通过")
        confirms the fix of a pitfall and is not a verdict.

    Why is this bad?
        "目前进度 60%" is wrong tomorrow. Stored, it is recalled as current
        and misleads; the tool that produced it can produce it again.

    Example:
        user: 压测结果怎么样？
        ```json
        {"content": "今天的压测 QPS 约 3200，p99 延迟 181 ms。", "type": "work_fact", "priority": 80}
        ```
        user: Run the websocket reconnect test a few times and see if it still flakes.
        ```json
        {"content": "test_ws_reconnect passed 5 consecutive runs today and the flake did not reproduce.",
         "type": "work_fact", "priority": 80}
        ```

        user: start the dev server
        assistant: Perfect! The server is running on port 3000. Now let me update the test script.
        ```json
        {"content": "The dev server is running on port 3000.", "type": "work_fact", "priority": 70}
        ```
        user: 跑一下单测
        tool: $ npm test -- Tests: 155 passed, 155 total
        ```json
        {"content": "单元测试 155 个测试全部通过。", "type": "work_fact", "priority": 70}
        ```
        user: 我的代码和远程仓库关联了吗？
        tool: $ ls -la .git -- ls: cannot access '.git': No such file or directory
        ```json
        {"content": "本地项目还没有初始化 Git，也没有和远程仓库建立关联。", "type": "work_fact", "priority": 70}
        ```
        assistant: Excellent! Phase 1 is complete and working.
        ```json
        {"content": "Phase 1 of the Playwright E2E setup is complete.", "type": "work_fact", "priority": 75}
        ```
        assistant: 检查了聊天里的文件，没有发现 require，dist 目录完全符合 ESM 规范。
        ```json
        {"content": "afi-core 的 dist 目录完全符合 ESM 规范，没有 CommonJS 用法。", "type": "work_fact", "priority": 75}
        ```
        assistant: The expression system is integrated; the build succeeds and all tests pass.
        ```json
        {"content": "The expression system integration is complete and the build succeeds.", "type": "work_fact",
         "priority": 70}
        ```
        user: /run python test.py craft
        tool: step 22/22 ok -- 22/22 passed
        ```json
        {"content": "修改 z 值后 python test.py craft 运行全部通过（22/22）。", "type": "work_fact", "priority": 70}
        ```

    Use instead:
        user: The API must listen on port 8443 in every environment.
        assistant: Set PORT=8443 in all env files.
        ```json
        {"content": "The API listens on port 8443 in every environment.", "type": "work_fact", "priority": 80}
        ```
        user: 目前还有 3 个用例失败，明天继续排查 mock 数据
        ```json
        {"content": "目前还有 3 个用例失败，下一步排查 mock 数据。", "type": "work_task", "priority": 80}
        ```
        user: 支付回调幂等 12 月 4 号前必须上线
        ```json
        {"content": "用户需要在 2026-12-04 前完成并上线支付回调的幂等改造。", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "2026-12-04T23:59:59+08:00"}}
        ```
        user: Why does the Gradle cache never hit on CI?
        ```json
        {"content": "GitHub Actions caches are capped at 10 GB per repository, so caching the whole ~/.gradle directory is evicted on every run.",
         "type": "work_fact", "priority": 80}
        ```
        user: Is the mobile client on the v2 auth flow yet?
        tool: $ grep -rn "X-Api-Key" mobile/src/net -- mobile/src/net/client.ts:14: headers["X-Api-Key"] = key
        ```json
        {"content": "The mobile client has not been moved to v2 auth yet; until it is, the API must keep accepting X-Api-Key headers because old app versions send them.",
         "type": "work_fact", "priority": 80}
        ```
        user: Phase 1 is done, next we write the drawing-mode tests
        ```json
        {"content": "Phase 1 of the E2E setup is complete; next, write the drawing-mode tests for Phase 2.",
         "type": "work_task", "priority": 80}
        ```
    """

    code = "G002"
    name = "one-time-test"
    # Every shape needs a word of one of these lists: a time marker, a progress, state or
    # measurement word, a stage's completion, an all-clear state, a "not yet", a reading's unit.
    needs = Needs(fields=("content",), words=("point_in_time", "as_it_stands", "progress", "state_words",
                                              "measurements", "completion", "verdict_states", "not_yet",
                                              "reading_before", "reading_after", "run_checks"))

    class Options(RuleOptions):
        #: A work_task with this many words in sentences without a figure names work beyond its
        #: progress figure: the figure only warns (low confidence), the task is kept.
        task_words_beyond_figure: int = 5
        #: ... and a fact's figure beside this many words of sentences without one.
        fact_words_beyond_figure: int = 15
        #: Tools through which the agent asks the user (Claude Code's AskUserQuestion, Cline's
        #: ask_followup_question): the figures of their message are options offered to the user
        #: ("live debounce ~400ms"), not readings of a run.
        question_tools: list[str] = ["AskUserQuestion", "ask_followup_question", "ask_user_question"]
        #: Markers of one moment: with any number or outcome they make a snapshot.
        point_in_time: list[str] = [
            "今天", "今日", "今晚", "今早", "今天下午", "昨天", "昨晚", "刚才", "刚刚", "此刻", "这会儿",
            "today", "tonight", "yesterday", "this morning", "this afternoon", "this evening", "just now",
            "right now", "as of today",
        ]
        #: Weaker "as it stands" markers: a snapshot only with a reading or an outcome.
        as_it_stands: list[str] = ["目前", "截至", "截止目前", "当下", "眼下", "现阶段", "currently", "so far",
                                   "at the moment", "as of now", "at present", "for the time being"]
        outcomes: list[str] = [
            "通过", "全绿", "绿了", "全过", "复现", "跑完", "跑通", "成功", "失败", "报错", "挂了", "挂掉",
            "passed", "passing", "failed", "failing", "green", "reproduce", "reproduced", "flaked", "succeeded",
            "went through", "is down", "is up",
        ]
        progress: list[str] = ["进度", "跑到", "完成度", "已完成", "完成了", "剩余", "预计", "还剩", "已处理", "处理到",
                               "progress", "eta", "remaining", "done", "complete", "completed", "finished",
                               "to go", "processed", "so far"]
        measurements: list[str] = ["耗时", "用时", "延迟", "时延", "吞吐", "吞吐量", "响应时间", "qps", "tps", "rps",
                                   "p50", "p90", "p95", "p99", "内存占用", "cpu 占用", "显存", "准确率", "召回率",
                                   "命中率", "覆盖率", "错误率", "成功率", "loss", "took", "latency", "throughput",
                                   "elapsed", "duration", "response time", "memory usage", "accuracy",
                                   "hit rate", "error rate", "success rate", "coverage"]
        state_words: list[str] = ["状态", "现状", "运行情况", "status", "state", "current state"]
        #: A recurring condition ("whenever the dev server is already running", 每当…) makes the
        #: figure part of a lasting rule, not one run's reading.
        keep_markers: list[str] = REASONS + DECISIONS + LASTING + NORMATIVE + [
            "whenever", "every time", "each time", "每当", "siempre que", "cada vez que", "sempre que"]
        not_keep: list[str] = NOT_NORMATIVE
        #: Words that make a number a reading of output when they precede it ("port 5173").
        reading_before: list[str] = ["port", "端口", "pid", "耗时", "took", "用时", "exit code", "退出码"]
        #: Words that make a number a reading of output when they follow it ("6 tests", "57 s").
        reading_after: list[str] = [
            "tests", "test", "specs", "passed", "passing", "failed", "failing", "skipped", "errors", "warnings",
            "seconds", "second", "secs", "sec", "s", "ms", "minutes", "min", "files", "matches", "lines", "rows",
            "mb", "gb", "kb", "bytes", "个测试", "测试", "通过", "失败", "秒", "毫秒", "分钟", "个文件", "行", "条", "个匹配",
        ]
        #: Units of a check run's result ("219 errors", "12 passed", 3 个失败): whoever prints the
        #: count (a tool, or the assistant retelling its run), it is that run's reading: certain.
        run_results: list[str] = ["tests", "test", "specs", "passed", "passing", "failed", "failing", "skipped",
                                  "errors", "warnings", "个测试", "测试", "通过", "失败"]
        #: Words that make the number after them an id, not a reading ("change 93326 failed",
        #: "PR #412 passed", 工单 1234 失败).
        ids_before: list[str] = ["change", "pr", "pull request", "merge request", "mr", "issue", "ticket", "bug",
                                 "patch", "patchset", "patch set", "build", "job", "pipeline", "commit", "revision",
                                 "工单", "变更", "提交", "构建", "流水线"]
        #: Words that make a reading this run's state ("is running on port 3000"): certain.
        running: list[str] = ["running", "runs on", "is on", "started", "listening", "auto-assigned", "assigned",
                              "this run", "运行在", "跑在", "启动在", "本次", "这次"]
        #: Words of a state the work has not reached yet ("还没有初始化 Git", "not yet
        #: linked"): read off a command or a file of this batch, it is one run's reading.
        not_yet: list[str] = ["还没有", "还没", "尚未", "还未", "原本没有", "目前没有", "暂未",
                              "not yet", "yet to", "has not been", "hasn't been", "have not been", "haven't been"]
        #: A stage of the work ("Phase 1", 第一阶段) told as finished is a progress status, not a
        #: lasting fact: "Phase 1 is complete", 第一阶段已完成.
        stages: list[str] = ["phase", "step", "stage", "milestone", "sprint", "iteration",
                             "阶段", "步骤", "里程碑", "迭代"]
        completion: list[str] = ["is complete", "is completed", "is done", "is finished", "has been completed",
                                 "is now complete", "is now done", "was completed", "are complete", "are done",
                                 "已完成", "已经完成", "完成了", "已结束", "已全部完成", "全部完成"]
        #: An all-clear verdict of one check ("fully ESM compliant", "100% covered"): what the
        #: next change can undo, read off one audit -- a snapshot unless a cited user states it.
        verdict_degree: list[str] = ["fully", "100%", "100 %", "completely", "entirely", "完全", "全部"]
        #: A check run told as passed ("the build succeeds", "all tests pass", 编译通过): one run's
        #: verdict like the all-clear above -- the checks ...
        run_checks: list[str] = ["build", "builds", "tests", "test suite", "ci", "pipeline", "github actions",
                                 "workflow run", "lint", "linter", "type check", "typecheck", "compile", "compiles",
                                 "compilation", "编译", "构建", "测试", "单测", "单元测试", "流水线", "类型检查"]
        #: ... and, in the same clause, their passing.
        run_passed: list[str] = ["succeeds", "succeeded", "passes", "pass", "passed", "is green", "are green",
                                 "went green", "without errors", "without any errors", "with no errors",
                                 "成功", "通过", "全绿", "无报错", "没有报错"]
        #: A failure told beside the pass makes the pass the confirmation of a fix (a pitfall and
        #: its fix), not a status.
        run_failed: list[str] = ["failed", "fails", "failing", "failure", "error", "errors", "broke", "broken",
                                 "报错", "失败", "错误", "出错", "挂了"]
        verdict_states: list[str] = ["compliant", "complete", "covered", "migrated", "clean",
                                     "合规", "符合", "覆盖", "迁移完成"]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        before = "|".join(re.escape(w) for w in sorted(o.reading_before, key=len, reverse=True))
        after = "|".join(re.escape(w) for w in sorted(o.reading_after, key=len, reverse=True))
        self._reading_of_output = re.compile(
            (rf"(?:{before})\s*[:=#]?\s*~?(\d{{2,}})(?!\d|\.\d)" if before else r"(?!x)x") + "|" +
            # Possessive runs: no entry of reading_after starts with a digit, so giving digits
            # back never finds a match, and backtracking over a long run of digits is quadratic.
            (rf"(?<![\w.:])~?(\d++(?:\.\d++)?)\s?(?:[A-Za-z0-9]++\s)?(?:{after})(?![A-Za-z])" if after else r"(?!x)x"),
            re.IGNORECASE)
        results = _compile(o.run_results)
        # The unit right after the count ("219 errors"; not "a 1-12 range test").
        self._run_result = (re.compile(rf"~?\d+\s?(?:{results.pattern})$", re.IGNORECASE)
                            if results is not None else None)
        ids = "|".join(re.escape(w) for w in sorted(o.ids_before, key=len, reverse=True))
        self._id_before = re.compile(rf"(?:^|[^\w])(?:{ids})\s*[#:]?\s*~?$", re.IGNORECASE) if ids else None
        self._running = _compile(o.running)
        self._when = _text.WordSearch(o.point_in_time)
        self._stands = _text.WordSearch(o.as_it_stands)
        self._outcome = _text.WordSearch(o.outcomes)
        self._progress = _text.WordSearch(o.progress)
        self._state = _text.WordSearch(o.state_words)
        self._keep = _text.WordSearch(o.keep_markers)
        self._not_keep = _text.WordSearch(o.not_keep)
        measure = _compile(o.measurements)
        # The figure starts a number: a digit inside a name ("data_360", "v2", "md5") is no reading.
        self._measure = (re.compile(rf"(?:{measure.pattern})[^\d\n。；;]{{0,12}}(?<![A-Za-z_])\d", re.IGNORECASE)
                         if measure is not None else None)
        self._measure_word = _text.WordSearch(o.measurements)
        self._not_yet = _text.WordSearch(o.not_yet)
        stage, done = _compile(o.stages), _compile(o.completion)
        # "Phase 1 (of the E2E setup) is complete", 第一阶段已完成: the stage, then in the same
        # clause (at most 40 characters on) the completion words.
        self._stage_done = (re.compile(rf"(?:{stage.pattern})[^,.;:!?，。；：！？\n]{{0,40}}?(?:{done.pattern})",
                                       re.IGNORECASE)
                            if stage is not None and done is not None else None)
        self._stage_word = _text.WordSearch(o.stages)
        degree, state = _compile(o.verdict_degree), _compile(o.verdict_states)
        self._verdict = (re.compile(rf"(?:{degree.pattern})\s?(?:[\w]+[\s-])?(?:{state.pattern})", re.IGNORECASE)
                         if degree is not None and state is not None else None)
        self._verdict_word = _text.WordSearch(o.verdict_degree)
        checks, passed = _compile(o.run_checks), _compile(o.run_passed)
        self._run_passed = (re.compile(rf"(?:{checks.pattern})[^,.;:!?，。；：！？\n]{{0,30}}?(?:{passed.pattern})",
                                       re.IGNORECASE)
                            if checks is not None and passed is not None else None)
        self._run_check_word = _text.WordSearch(o.run_checks)
        self._run_failed = _text.WordSearch(o.run_failed)

    def problem(self, content: str, memory: dict[str, Any], view: _text.View | None = None) -> str | None:
        prose = _prose(content)
        # Without fences the prose is the content, whose folded copy the view has.
        folded = view.folded if view is not None and prose is content else _text.fold(prose)
        if (m := self._state.search(prose, folded)) and raw_share(content) >= 0.5:
            return (f"a point-in-time state dump ({m.group(0)!r} followed by raw output); it is stale as soon as "
                    "it is written -- keep the cause, not the readout")
        # The keep markers (a reason, a rule, a limit) excuse every shape below;
        # they are looked for only once a shape is found (the scan is the costly part).
        shape = self._shape(prose, memory, folded, view.has_digit if view is not None else True)
        if shape is None:
            return None
        rest = self._not_keep.mask(prose, folded)
        if self._keep.search(rest, folded if rest is prose else None):
            return None
        return shape

    def doubtful(self, content: str, memory: dict[str, Any], view: _text.View) -> bool:
        # A task's progress figure goes stale, but the work it names does not ("60% done; remaining:
        # migration, UI"); a reading in one sentence of a fact whose other sentences say more
        # ("failed with 'thread not found'; fixed by … . Generation took 6.57 s") is a stray figure.
        o = self.options
        limit = o.task_words_beyond_figure if memory.get("type") == TASK else o.fact_words_beyond_figure
        return _words_beyond_figures(content) >= limit

    def against_sources(self, content: str, memory: dict[str, Any], ctx: Any,
                        view: _text.View) -> Finding | None:
        if memory.get("type") == TASK:
            return None
        if memory.get("type") in (FACT, ARTIFACT):
            found = self._verdict_of_one_check(content, memory, ctx)
            if found is not None:
                return found
        found = self._state_read_before_the_work(content, memory, ctx)
        if found is not None:
            return found
        if not view.has_digit:
            return None
        printed = _sources.agent_numbers(ctx)
        if not printed or printed.isdisjoint(_sources.numbers(content)):
            return None  # the common case: none of its figures was printed by a tool or the assistant
        if ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None
        # (shown, number, counted, a pass count): a count of tests is a check run's result ...
        readings = [(m.group(0).strip(), m.group(1) or m.group(2), m.group(2) is not None, False)
                    for m in self._reading_of_output.finditer(content) if not self._names_an_id(content, m.start())]
        # ... and so is a pass count ("72/72 tests pass", 全部通过（22/22）).
        readings += [(m.group(0).strip(), m.group(1) or m.group(3), True, True) for m in _PASS_FRACTION.finditer(content)]
        if not readings:
            return None
        sources = ctx.sources(memory)
        if not sources:
            return None
        said = "\n".join(m.content for m in sources if m.role == "user")
        facts = ctx.facts
        printed_by, certain, run_result = None, False, False
        for shown, number, counted, pass_count in readings:
            if _has_number(said, number):
                continue  # a cited user message gave it: a setting or a requirement, not a reading
            for m in sources:
                if m.role != "user" and _has_number(m.content, number) and not self._asks_the_user(m):
                    source = facts.of(m)
                    if "writes" in source.acts and not source.commands and _has_number(source.written, number):
                        continue  # a value a file write or edit puts in the file (a port, a disk size): a setting
                    printed_by = printed_by or (shown, m.role)
                    # Certain: tool output, or a count/duration the assistant reports from its own run.
                    certain = certain or m.role == "tool" or (counted and "reports_done" in source.acts)
                    run_result = run_result or pass_count or (counted and self._run_result is not None
                                                              and self._run_result.fullmatch(shown) is not None)
        if printed_by is None:
            return None
        rest = self._not_keep.mask(content)
        if self._keep.search(rest):
            return None
        shown, role = printed_by
        certain = certain or (self._running is not None and self._running.search(content) is not None)
        # A check run's count told by the assistant is that run's reading, unless the memory's
        # other sentences say more ("... a pitfall. 64/64 passing at review time"): a stray figure.
        certain = certain or (run_result and _words_beyond_figures(content) < self.options.fact_words_beyond_figure)
        return Finding(f"a reading copied from this batch's {role} output ({shown!r}); the next run prints "
                       "another -- keep the limit or the cause it shows, not the figure",
                       path="/content", confidence="high" if certain else "low")

    def _asks_the_user(self, message: Any) -> bool:
        """Is ``message`` a question tool's call (its head names one of ``question_tools``)?"""
        if message.role != "tool":
            return False
        head = (message.content or "")[:200]
        return any(name in head for name in self.options.question_tools)

    def _names_an_id(self, content: str, start: int) -> bool:
        """The number at ``start`` follows an id word ("change 93326", "PR #412"): a name, not a figure."""
        return self._id_before is not None and self._id_before.search(content[max(0, start - 24):start]) is not None

    def _verdict_of_one_check(self, content: str, memory: dict[str, Any], ctx: Any) -> Finding | None:
        """An all-clear verdict ("fully ESM compliant") or a check run told as passed ("the build
        succeeds") that no cited user states: one audit's or one run's reading.

        The next edit can undo it and a rerun of the check tells it again. A
        cited user who states it, or a reason of the memory's own, keeps it.
        """
        marker = _from_word(self._verdict, self._verdict_word, _unquoted(content, self._verdict_word))
        if marker is None:
            # "The build succeeds and all tests pass": one run's verdict, told as the state of the work;
            # not where the memory also tells a failure ("type-check 报错 …，补充 export 后 vue-tsc 通过"):
            # there the pass confirms the fix of a pitfall.
            marker = _from_word(self._run_passed, self._run_check_word, _unquoted(content, self._run_check_word))
            if marker is not None and self._run_failed.search(
                    content[:marker.start()] + " " * len(marker.group(0)) + content[marker.end():]) is not None:
                return None
        if marker is None or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None
        sources = ctx.sources(memory)
        if not sources:
            return None
        facts = ctx.facts
        if any(m.role == "user" and "states" in facts.of(m).acts for m in sources):
            return None
        if self._keep.search(self._not_keep.mask(content)):
            return None
        return Finding(f"an all-clear verdict of one check ({marker.group(0)!r}); the next change can undo it and "
                       "rerunning the check tells it again -- keep the rule that holds it, not the verdict",
                       path="/content")

    def _state_read_before_the_work(self, content: str, memory: dict[str, Any], ctx: Any) -> Finding | None:
        """A "not yet" state whose cited sources include a command run or a file read of this batch.

        What a command shows is missing ("no .git directory") is the state before
        the work the batch is doing; the next run of the command tells it again.
        A cited user who states it, or a reason of the memory's own, keeps it.
        """
        # Not inside a quote: "signalProcessingDAG not yet implemented" is a message the code prints.
        marker = self._not_yet.search(_unquoted(content, self._not_yet))
        if marker is None or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return None
        sources = ctx.sources(memory)
        facts = ctx.facts
        read_by = next((m for m in sources if m.role == "tool"
                        and (facts.of(m).commands or facts.of(m).files_read)), None)
        if read_by is None:
            return None
        if any(m.role == "user" and "states" in facts.of(m).acts for m in sources):
            return None
        if self._keep.search(self._not_keep.mask(content)):
            return None
        return Finding(f"a state read off this batch's tool output ({marker.group(0)!r}, {read_by.id}); the work "
                       "under way ends it and the command tells it again -- keep what it means, not the reading",
                       path="/content")

    def _shape(self, prose: str, memory: dict[str, Any], folded: str | None = None,
               has_digit: bool = True) -> str | None:
        share = _SHARE.search(prose) if has_digit else None  # a share is digits
        if share and (m := self._progress.search(prose, folded)):
            return f"a progress figure ({share.group(0)!r}, {m.group(0)!r}); it goes stale at once"
        if memory.get("type") == TASK:
            # Follow-up work carries its state and next steps ("so far 3 tests fail; fix
            # them next"): only a progress figure makes a task a snapshot.
            return None
        if memory.get("type") in (FACT, ARTIFACT) and (m := _from_word(self._stage_done, self._stage_word, prose, folded)):  # a method may say when a step counts as done
            return (f"a progress status ({m.group(0).strip()!r}): which stage is finished is today's state of "
                    "the work -- keep what the stage taught or left to do, not that it is done")
        when = self._when.search(prose, folded)
        stands = self._stands.search(prose, folded)
        if when is not None or stands is not None:
            reading = _READING.search(prose) or self._outcome.search(prose, folded)
            if reading is None and when is not None and memory.get("type") != TASK:
                reading = _ANY_NUMBER.search(_without_dates(_text.mask_code(prose)))
            when = when or stands
            if reading is not None:
                return (f"one moment's snapshot ({when.group(0)!r} … {reading.group(0).strip()!r}); "
                        "it will be stale by the next session")
        if memory.get("type") != TASK:
            m = _from_word(self._measure, self._measure_word, prose, folded)
            if m is not None:
                return (f"a one-off reading ({m.group(0).strip()!r}); keep it only as a named baseline or with "
                        "the lasting limit it shows")
        return None


# --- G003 ---------------------------------------------------------------------------

# A pointer to something in the repository: a path, a file name, a location word.
_PATHISH = re.compile(r"(?<![\w.-])[\w.-]+/[\w./-]+|(?<![\w-])[\w-]+\.(?:md|rst|txt|ts|tsx|js|jsx|py|go|rs|java|kt|rb|json|ya?ml|toml|"
                      r"ini|cfg|conf|env|sql|sh|lock|xml|html|css|proto)\b", re.ASCII)
# Bare 见 pointing at a named thing: "见 src/x.ts", "见 wiki", "见《手册》".
_SEE_ZH = re.compile(both_scripts(r"(?<![意常可看遇少罕偏预听瞧])见\s*(?=[A-Za-z0-9_./`\"'“《「])"))
# "See X" as an instruction (sentence start or aside), not "I can see".
_SEE_EN = re.compile(r"(?:^|(?<=[(\[;:.,!?]))\s*(?:see|cf\.)\s+(?=\S)", re.IGNORECASE)
# "在 docs/deploy.md 里", "is in docs/deploy.md": a location and nothing else.
_LOCATED = re.compile(
    both_scripts(r"[在于]\s?`?(?:[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+|[A-Za-z0-9_-]+\.[a-z]{1,5})`?\s?(?:文件)?\s?(?:里|中|内|下)"
    r"|\b(?:is|are|lives?|sits?|kept|stored)\s+(?:in|under|at)\s+`?"
    r"(?:[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+|[A-Za-z0-9_-]+\.[a-z]{1,5})\b"),
    re.IGNORECASE)


#: Roles whose messages tell who said a memory (G003's judgment of the agent's own account).
_CONVERSATION_ROLES = frozenset({"user", "assistant", "tool"})


class ProvenanceTest(_Gate):
    """Only where to look, or a restatement of what the repository says.

    What it does:
        Fails when the content points at a source in the repository -- a
        path, a file, README, a wiki page, a commit message -- with pointer
        or restatement phrasing (见/详见/写在/定义在/写明, "see", "defined
        in", "the commit message says") and adds no explanation: no reason,
        condition, rule, decision or role of its own. When the pointer is
        one sentence beside others that say more (``pointer_words_beside``
        words), the finding is uncertain (low, warns).

        Against the batch: fails when most of a fact's or a method's terms are text
        that a tool message of the batch showed or that the assistant wrote
        into a file (``restated_share``; between ``restated_share_unsure``
        and it, or when only a command's output holds it -- no file read,
        written or committed -- a low-confidence finding), unless the memory gives a cause
        of its own or a user of the batch said it (a rule the user dictated
        stays the user's even after the assistant wrote it down). A cause
        excuses only while the writes hold less than ``restated_cause_share``
        of the memory: a "because" copied from the file is the file's. A
        work_artifact other than a commit is not judged so: it names what
        the batch produced, and its title and link are in the output by
        nature (a commit's line is what ``git log`` gives back).
        A list of where things are ("routes are in routes.py, …") is a
        pointer even when a user said it.

        Two kinds are certain without the overlap of the whole batch:
        standing instructions (files the agent loads every session,
        ``instruction_files``: CONVENTIONS.md, AGENTS.md,
        copilot-instructions.md, …) that the memory's assistant or tool
        sources read, write, name up front or recite ("your explicit
        instructions"), when ``instruction_share`` of the memory is in those
        sources and no user message says it (a cause does not excuse: the
        file carries its causes too); and a listing of files that the
        batch's agent messages name (``listing_paths`` or more paths and
        little else: ``ls`` gives it back). A memory from assistant messages only
        that retells what they report writing into a file it names
        (``reported_share``; the export may have lost the edit itself, as
        SpecStory's empty edit blocks do) gets a low-confidence finding: a
        report also carries what was learned while writing.

        Who said it: a ``work_fact`` whose sources are only assistant and tool
        messages (and user questions: asking names a thing, it says nothing
        of it) is the agent's own account of what it read, ran or did. It
        fails when it carries nothing of its own (``agent_account_keep``: no
        cause, pitfall, risk, decision, rule, later use or correction), no
        user of the batch said most of it (``agent_account_user_share``), it
        quotes no error line a cited tool printed (a symptom to recognise),
        and no cited assistant message only proposes it (a proposal told as
        settled is W008's; a message that reports work done and then offers
        more is cited for its report). With one of those it stays, and W003
        files it as pending.
        Certain, and it comes before an uncertain overlap finding (a
        command's output a user asked for stays a warning).

    Why is this bad?
        The provenance test: what ``grep`` or ``git show`` returns in
        a second is not worth a memory; "配置见 config.yaml" is never what a
        later task recalls. A file named *with* the mechanism it explains
        ("插件只有在 registry.ts 里 app.use 过才会加载") is kept.

    Example:
        user: 上面那几个错误码都在哪定义的？
        ```json
        {"content": "登录模块错误码的完整定义见 src/errors/codes.ts。", "type": "work_fact", "priority": 80}
        ```
        user: What did 9b0c3e7 change?
        ```json
        {"content": "The commit message of 9b0c3e7 says it handles expired refresh tokens by forcing a re-login.",
         "type": "work_artifact", "priority": 80, "metadata": {"artifact_type": "commit", "artifact_ref": "9b0c3e7"}}
        ```
        user: 看一下 deploy/prod.env 里的网关配置
        tool: $ cat deploy/prod.env -- GATEWAY_HOST=gw.internal.example GATEWAY_TIMEOUT_MS=3000 GATEWAY_RETRIES=2
        ```json
        {"content": "deploy/prod.env 中 GATEWAY_HOST=gw.internal.example，GATEWAY_TIMEOUT_MS=3000，GATEWAY_RETRIES=2。",
         "type": "work_fact", "priority": 80}
        ```
        user: Write our commit conventions down.
        tool: Applied edit to CONVENTIONS.md: use Conventional Commits for every commit message; squash fixup commits before merging
        ```json
        {"content": "Use Conventional Commits for every commit message and squash fixup commits before merging.",
         "type": "work_method", "priority": 80, "metadata": {"scope": "self", "method_type": "constraint"}}
        ```
        user: What are your guidelines for the CHANGELOG file?
        assistant: Here are my guidelines, from your explicit instructions: always ask before creating a changelog entry
        ```json
        {"content": "Always ask before creating a changelog entry for a commit.", "type": "work_method", "priority": 80,
         "metadata": {"scope": "self", "method_type": "constraint"}}
        ```
        tool: $ find llava/data/map_gt tools -name '*.py' -- llava/data/map_gt/geometry.py llava/data/map_gt/cache.py tools/generate_gt_cache.py
        ```json
        {"content": "Step 1 的代码：llava/data/map_gt/geometry.py、llava/data/map_gt/cache.py、工具 tools/generate_gt_cache.py。",
         "type": "work_artifact", "priority": 70, "metadata": {"artifact_type": "file", "artifact_ref": "llava/data/map_gt/"}}
        ```
        user: My routes should be in routes.py and the viewer HTML is upload.html
        ```json
        {"content": "Routes are in routes.py, the viewer HTML in upload.html.", "type": "work_fact", "priority": 75}
        ```
        user: 把输出流程写进 docs/pipeline.md
        tool: Applied edit to docs/pipeline.md: write_html 先渲染 base.html 模板，再写入 output 目录，因为 viewer 只读取 output 目录
        ```json
        {"content": "write_html 先渲染 base.html 模板，再写入 output 目录，因为 viewer 只读取 output 目录。",
         "type": "work_fact", "priority": 80}
        ```
        user: image generation doesn't work, is it switched off?
        assistant: config.py: ENABLE_IMAGE_GENERATION defaults to false; .env sets it to true; the limit is 1 a day.
        ```json
        {"content": "Image generation is controlled by ENABLE_IMAGE_GENERATION (false by default, true in .env), 1 a day.",
         "type": "work_fact", "priority": 70, "source_message_ids": ["m2"]}
        ```

    Use instead:
        user: why does image generation never trigger?
        assistant: The persona never lists generate_image under Available Tools, so the model does not know it can.
        ```json
        {"content": "The model only calls the tools the persona lists, so generate_image must be listed there.",
         "type": "work_fact", "priority": 80, "source_message_ids": ["m2"]}
        ```
        user: 插件到底从哪加载的？新建的 rate_limit.ts 没生效
        ```json
        {"content": "服务端插件不做目录自动发现：只有在 server/plugins/registry.ts 的 register() 中 app.use 过的插件才会加载。",
         "type": "work_fact", "priority": 80}
        ```
        user: Looks right. Merge the ADR; it is the reference for anyone touching cache code.
        ```json
        {"content": "docs/adr/0012-read-through-cache.md is the accepted ADR for the read-through cache and must be followed by future cache changes.",
         "type": "work_artifact", "priority": 80, "metadata": {"artifact_type": "doc", "artifact_ref": "docs/adr/0012-read-through-cache.md"}}
        ```
        user: In Markdown files put each sentence on its own line and use - for bullets.
        tool: Applied edit to CONVENTIONS.md: put each sentence on its own line in Markdown files; use - for bullets
        ```json
        {"content": "In Markdown files each sentence goes on its own line and bullets use -.", "type": "work_method",
         "priority": 85, "metadata": {"scope": "self", "method_type": "constraint"}}
        ```
        user: 推送为什么到不了生产设备？
        tool: $ grep -n APNS_HOST deploy/prod.env -- 4:APNS_HOST=api.sandbox.push.apple.com
        ```json
        {"content": "生产推送收不到，因为 deploy/prod.env 的 APNS_HOST 仍是 api.sandbox.push.apple.com，生产设备 token 只被 api.push.apple.com 接受。",
         "type": "work_fact", "priority": 88}
        ```
    """

    code = "G003"
    name = "provenance-test"
    #: A ``work_task`` is follow-up work, never a bare pointer.
    types = frozenset({FACT, METHOD, ARTIFACT})
    # No word list: a restatement of the batch needs no particular word (the default needs).

    class Options(RuleOptions):
        #: A pointer ("is in docs/x.md", 见 …) beside this many words of other sentences is one
        #: part of the memory, not all of it: the finding only warns (low confidence).
        pointer_words_beside: int = 12
        pointer_phrases: list[str] = [
            "详见", "参见", "参看", "请见", "请看", "见于", "写在", "定义在", "记录在", "列在", "配置在", "放在",
            "写明", "写着", "写道", "里写了", "中写了", "中说明", "里说明", "里有说明", "里提到", "中提到", "说的是",
            "refer to", "documented in", "defined in", "described in", "listed in", "lives in",
            "can be found in", "is found in", "look up", "look in", "says", "states that", "according to",
            "per the", "is in the", "are in the", "the commit message",
        ]
        source_words: list[str] = [
            "README", "wiki", "文档", "页面", "注释", "commit message", "提交信息", "changelog", "plan", "计划",
            "配置文件", "字段", "章节", "一节", "手册", "docs", "documentation", "page", "comment", "commit",
            "section", "file", "config", "manual", "runbook",
        ]
        #: (A user's wish is a rule about where things go: "User wants X defined in the config".)
        explanation_markers: list[str] = REASONS + CONDITIONS + DECISIONS + NORMATIVE + USER_WISH + [
            "核心", "模板", "参考实现", "基准", "template", "reference implementation", "accepted", "canonical",
            "source of truth", "不是", "而不是", "instead of", "not the",
        ]
        not_explanation: list[str] = NOT_NORMATIVE
        #: Share of the memory's content terms that the batch's tool output and file
        #: writes already hold, from which it is a restatement (certain)...
        restated_share: float = 0.6
        #: ... and from which it may be one (a low-confidence finding: warn, ask the judge).
        restated_share_unsure: float = 0.45
        #: A memory this much of whose terms a user of the batch said is the user's own words.
        user_share: float = 0.3
        #: A pointer-shaped memory this much of whose words (names blanked) a source
        #: user message states (not asks) is the user's stated rule, not a pointer.
        user_stated_share: float = 0.5
        #: What excuses a restatement of the batch: a cause the memory gives (a rule
        #: copied from a file is still a copy, so normative words do not).
        restated_keep: list[str] = REASONS
        #: A failure the memory reports (a pitfall: what breaks, and how) excuses the same way:
        #: a file's text shows the code, not that it fails.
        restated_pitfall: list[str] = [
            "pitfall", "fails with", "fail with", "failed with", "crashes", "crashed", "throws", "error when",
            "errors when", "坑", "报错", "会失败", "失败时", "崩溃", "抛出",
            # a lookup that fails ("resolving it from the repo root points to a directory that does not exist")
            "does not exist", "doesn't exist", "not found", "不存在", "找不到",
        ]
        #: From this share a cause no longer excuses: the "because …" is in the file too.
        restated_cause_share: float = 0.7
        #: Files the agent loads into every session (base names, any case): a memory that
        #: restates them costs a memory slot for what the agent reads anyway. (Not CONTRIBUTING.md:
        #: a guide for human contributors, which no assistant loads by itself.)
        instruction_files: list[str] = [
            "CONVENTIONS.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "copilot-instructions.md", ".cursorrules",
            ".windsurfrules", ".clinerules", ".aider.conf.yml",
        ]
        #: An assistant message with one of these recites the instructions it was given.
        instruction_recitals: list[str] = [
            "your explicit instructions", "your instructions", "the instructions you", "custom instructions",
            "instructions i was given", "my instructions", "你的指令", "根据你的指令", "按照你的指令", "你给的规则", "你设定的规则", "你的规则",
            "项目指令", "自定义指令",
        ]
        #: A work_fact whose sources are only assistant and tool messages (the agent's own account of
        #: what it read, ran or did), which no user of the batch said, keeps its place only with
        #: one of these: a cause, a problem or pitfall, a decision, a rule, a later use, a risk, a
        #: correction. Without one it retells what the code, the docs, a rerun or the diff gives
        #: back. Empty: the judgment is off.
        agent_account_keep: list[str] = REASONS + PROBLEMS + DECISIONS + NORMATIVE + FUTURE_USE + [
            "原因", "风险", "注意", "限制", "无法", "不是", "而不是",
            "risk", "caveat", "limitation", "warning", "note that", "beware",
            "cannot", "can't", "could not", "fatal", "issues", "problems", "bugs", "errors",
            # A gap found ("nothing places the biome", "X is missing"): a problem of its own.
            "missing", "nothing", "does not", "doesn't", "没有任何",
            # A user's wish retold is the user's decision; a correction (", not …") is what was learned.
            "at the user's request", "the user asked", "the user wants", "requested", "用户要求", "按用户",
            ", not ", "而非", "并非",
        ]
        #: ... unless a user of the batch said (not asked) this share of its terms (names and paths
        #: kept: they are often the whole claim).
        agent_account_user_share: float = 0.5
        #: Share of a memory's terms that its assistant sources' reports of writing the file it
        #: names hold, from which it may retell the file (low confidence).
        reported_share: float = 0.6
        #: Share of the memory's terms that such sources hold, from which it restates them.
        instruction_share: float = 0.5
        #: A memory this much of whose terms a user of the session stated (in a message the
        #: memory does not cite) is the user's rule, not the instruction file's.
        instruction_user_share: float = 0.6
        #: A memory listing at least this many paths the batch's agent messages name, with
        #: little else, is a listing of files (``ls`` gives it back).
        listing_paths: int = 3
        #: ... "little else": at most this many words per path (of any script written with
        #: spaces: Latin, Cyrillic, Hangul) ...
        listing_words_per_path: int = 3
        #: ... or this many Chinese characters per path. A cause, a rule or a problem beside the
        #: files makes it more than a listing ("adding x.py, y.py and z.py at once exceeds the
        #: context limit; add them one by one").
        listing_chars_per_path: int = 8
        #: (Left out: the one-character modals 应/要/须, which 要求 and 应用 hold too, and 统一/优先,
        #: which describe as often: 由 __init__.py 统一导出, 优先级.)
        listing_keep: list[str] = REASONS + PROBLEMS + [w for w in NORMATIVE if len(w) > 1
                                                        and w not in ("统一", "优先")]

    def __init__(self, options: Any = None):
        super().__init__(options)
        o = self.options
        self._reason = _text.WordSearch(o.restated_keep)
        self._pitfall = _text.WordSearch(o.restated_pitfall)
        self._pointer = _text.WordSearch(o.pointer_phrases)
        self._source = _text.WordSearch(o.source_words)
        self._explain = _text.WordSearch(o.explanation_markers)
        self._not_explain = _text.WordSearch(o.not_explanation)
        self._listing_keep = _text.WordSearch(o.listing_keep)
        self._agent_account_keep = _text.WordSearch(o.agent_account_keep) if o.agent_account_keep else None
        self._instruction_files = frozenset(name.lower() for name in o.instruction_files)
        self._instruction_recitals = tuple(r.lower() for r in o.instruction_recitals)

    def problem(self, content: str, memory: dict[str, Any], view: _text.View | None = None) -> str | None:
        folded = view.folded if view is not None else _text.fold(content)
        # 见 (見 folds to it) and "see"/"cf." are literals of their patterns (which start with a look-behind, so the
        # regex engine cannot skip ahead to them): a plain ``in`` first.
        pointer = (self._pointer.search(content, folded) or ("见" in folded and _SEE_ZH.search(content))
                   or (("see" in folded or "cf." in folded) and _SEE_EN.search(content)) or _LOCATED.search(content))
        if pointer is None:
            return None
        source = _PATHISH.search(content) or self._source.search(content, folded)
        if source is None:
            return None
        # Explanations are judged on the prose, without the quoted names and paths.
        rest = self._not_explain.mask((view or _text.View(content)).stripped)  # shared with G001
        if self._explain.search(rest):
            return None
        return (f"it only says where to look ({pointer.group(0).strip()!r} {source.group(0)!r}) or restates what "
                "the repository already says; grep or git show gets it back -- keep only what needs explaining")

    def doubtful(self, content: str, memory: dict[str, Any], view: _text.View) -> bool:
        # "The plan is in docs/X.md. It integrates A into B so that …": the pointer is one
        # sentence of several, and the others may say what the file does not.
        rest = [s for s in _text.sentences(content) if not self._points(s)]
        return _weight(" ".join(rest)) >= self.options.pointer_words_beside

    def _points(self, sentence: str) -> bool:
        """The sentence points somewhere (a path, 见/see, "is in", "the commit message says")."""
        return (_PATHISH.search(sentence) is not None or _LOCATED.search(sentence) is not None
                or "见" in sentence or "見" in sentence or _SEE_EN.search(sentence) is not None
                or self._pointer.search(sentence) is not None)

    def excused(self, memory: dict[str, Any], ctx: Any, view: _text.View) -> bool:
        # A rule the user stated names where it applies ("plans in notes/plans/ get an
        # NN. prefix"): with most of its words the user's own, it is no mere pointer.
        # A list of where things are is a pointer whoever said it ("routes are in routes.py").
        if _only_locations(view.text):
            return False
        return _sources.stated_support(ctx, memory, view.stripped) >= self.options.user_stated_share

    def against_sources(self, content: str, memory: dict[str, Any], ctx: Any,
                        view: _text.View) -> Finding | None:
        if ctx.is_dropped(ctx.scene_index, ctx.memory_index) or not _sources.cites_agent(ctx, memory):
            # Already gone (an injected instruction, a secret dump: one fault, one code), or drawn
            # from what users said only: theirs, not a restatement.
            return None
        # Certain kinds first, then the overlap with the whole batch, then the low-confidence report.
        named = _sources.paths(content) if "/" in content or "." in content else ()  # no path without either
        found = (self._restates_instructions(content, memory, ctx, view)
                 or (self._lists_files(content, named, memory, ctx, view) if named else None)
                 or self._restates_the_batch(content, memory, ctx, view)
                 or (self._restates_a_report(content, named, memory, ctx, view) if named else None))
        if found is not None and found.confidence != "low":
            return found
        # An uncertain overlap does not stand in the way of the certain judgment of who said it.
        return self._agent_account(memory, ctx, view) or found

    def _restates_the_batch(self, content: str, memory: dict[str, Any], ctx: Any, view: _text.View) -> Finding | None:
        """Most of the memory is text that the batch's tool output and file writes hold."""
        if memory.get("type") == ARTIFACT and (memory.get("metadata") or {}).get("artifact_type") != "commit":
            # An artifact names what the batch produced (a review, a doc): its title and link are in the
            # output by nature. A commit's line is what git log gives back, so a commit is still judged.
            return None
        o = self.options
        if not _sources.may_restate(ctx, view.folded, o.restated_share_unsure - 0.15):
            return None  # the common case: most of its words are nowhere in the batch's writes
        share = _sources.written_support(ctx, content)
        if share < o.restated_share_unsure:
            return None
        prose = self._not_explain.mask(view.stripped)
        if share < o.restated_cause_share and (self._reason.search(prose) or self._pitfall.search(prose)):
            return None  # a cause or a failure of its own ("because …", "fails with …"): more than the file says
        # Names and paths blanked: a user who names the file has not said what it holds.
        if _sources.user_support(ctx, memory, view.stripped) >= o.user_share:
            return None  # the user's own words, even if the assistant then wrote them down
        # Certain only when file text holds it (what tools read, wrote or committed, the
        # assistant's file blocks); a command's output alone may be an investigation's result.
        certain = share >= o.restated_share and _sources.file_support(ctx, content) >= o.restated_share
        return Finding(f"it restates what this batch's tool output or file writes already hold ({share:.0%} of its "
                       "terms); the file, the commit or a rerun gives it back -- keep only what they do not say",
                       path="/content", confidence="high" if certain else "low")

    def _restates_a_report(self, content: str, named: list[str], memory: dict[str, Any], ctx: Any,
                           view: _text.View) -> Finding | None:
        """The memory retells what the assistant said it wrote into a file it names (the export may
        have lost the edit itself, as SpecStory's empty edit blocks do): a low-confidence finding,
        since a report also carries what was learned while writing."""
        if not _sources.only_agent_sources(ctx, memory):
            return None
        share = _sources.report_support(ctx, memory, content, named)
        if share < self.options.reported_share or self._own_cause(view):
            return None
        return Finding(f"it retells what the assistant reported writing into the file it names ({share:.0%} of its "
                       "terms); the file gives it back -- keep only what it does not say",
                       path="/content", confidence="low")

    def _agent_account(self, memory: dict[str, Any], ctx: Any, view: _text.View) -> Finding | None:
        """A work_fact only the agent's messages say, that explains nothing.

        Who said it decides here: a fact drawn from assistant and tool
        messages alone (a user's question among them says nothing of it) is
        the agent's account of what it read, ran or did.
        With a cause, a pitfall, a decision or a rule it
        carries something the code does not (and W003 files it as pending);
        without one it is what the file, the docs, a rerun or the diff gives
        back. A fact that quotes an error line a cited tool printed is a
        symptom to recognise, not an account. A user who said it in this batch makes it theirs -- said
        with its names and paths: "the home page is apps/web/app/page.tsx"
        read from the files is the agent's, though the user named the page.
        """
        if self._agent_account_keep is None or memory.get("type") != FACT:
            return None
        sources = ctx.sources(memory)
        if not sources or all(m.role == "user" for m in sources):
            return None  # the users' own words
        if any(m.role not in _CONVERSATION_ROLES for m in sources):
            return None  # a system message (or an audit's stand-in for sources it cannot read): not judged
        # The keep words first, in the text as written: stripping the names costs more than the
        # search, and a keep word inside a name is rare (the search wants word boundaries).
        text = self._not_explain.mask(view.text, view.folded)
        if self._agent_account_keep.search(text, view.folded if text is view.text else None):
            return None
        facts = ctx.facts
        for m in sources:
            if m.role == "tool":
                continue
            acts = facts.of(m).acts
            if m.role == "user" and ("asks" not in acts or "states" in acts):
                return None  # a user said something, not only asked
            if m.role == "assistant" and "proposes" in acts and "reports_done" not in acts:
                # A proposal told as settled is W008's question, not a retelling. A message that
                # reports work done and then offers more ("Done: … Would you like me to …?") is
                # cited for its report, which is the agent's account as much as any other.
                return None
        # Measured with the names and paths kept: they are often the whole claim ("the home page is
        # apps/web/app/page.tsx"), and a user who named the page did not say where it lives.
        if _sources.told_by_users(ctx, memory, view.text) >= self.options.agent_account_user_share:
            return None  # a user said most of it in this batch (not just asked about it)
        if _sources.quotes_source_error(ctx, memory, view.text):
            return None  # it quotes an error a cited tool printed: a symptom to recognise, not a retelling
        return Finding("only the agent's messages say it (a user at most asked), and it explains nothing (no cause, "
                       "pitfall, decision or rule): it retells what the agent read, ran or did, which the code, "
                       "the docs or the diff gives back -- keep what the agent learned, with its reason",
                       path="/content")

    def _own_cause(self, view: _text.View) -> bool:
        """The memory gives a cause or a failure ("because …", "fails with …") beside its names."""
        prose = self._not_explain.mask(view.stripped)
        return self._reason.search(prose) is not None or self._pitfall.search(prose) is not None

    def _restates_instructions(self, content: str, memory: dict[str, Any], ctx: Any,
                               view: _text.View) -> Finding | None:
        """The memory repeats standing instructions its agent sources show (an instruction file
        read, written or named, or the assistant reciting its instructions), no user stating it."""
        o = self.options
        share = _sources.instruction_support(ctx, memory, content, self._instruction_files,
                                             self._instruction_recitals)
        if share < o.instruction_share:
            return None
        # A rule the user stated stays the user's, wherever the assistant then wrote it; a
        # question is not a statement. A user message the memory cites counts from
        # ``user_share``; one it does not cite only from ``instruction_user_share`` (a word or
        # two of "let's commit this with a changelog entry" is no statement of the rules).
        if (_sources.told_support(ctx, memory, view.stripped) >= o.user_share
                or _sources.user_prose_support(ctx, memory, view.stripped) >= o.instruction_user_share):
            return None
        return Finding(f"it restates the standing instructions the agent loads every session ({share:.0%} of its "
                       "terms are in the instruction file its sources show); the agent reads them anyway -- keep "
                       "only what they do not say", path="/content")

    def _lists_files(self, content: str, named: list[str], memory: dict[str, Any], ctx: Any,
                     view: _text.View) -> Finding | None:
        """A listing of files the batch names (deliverables, a layout) with no cause beside it."""
        o = self.options
        if len(named) < o.listing_paths:
            return None
        count = _sources.listed_paths(ctx, content, named, words_per_path=o.listing_words_per_path,
                                      chars_per_path=o.listing_chars_per_path)
        if not count:
            return None
        if self._listing_keep.search(self._not_explain.mask(view.stripped)):
            return None
        if _sources.quotes_source_error(ctx, memory, content):
            return None  # the files are where an error a cited tool printed came from
        return Finding(f"it lists {count} files that this batch's tool output or reports already name, and little "
                       "else; ls or the directory gives it back -- keep only what needs explaining",
                       path="/content")


# One clause of a memory: split at commas, semicolons and sentence ends (not inside a path).
_CLAUSES = re.compile(r"[,;，；。！？!?]\s*|\.(?:\s+|$)")


def _only_locations(content: str) -> bool:
    """Every clause names a path or file and says little else (at most four words or
    eight Chinese characters around it): "Routes are in routes.py, views in views.py"."""
    clauses = [c for c in _CLAUSES.split(content) if c and c.strip()]
    if not clauses:
        return False
    for clause in clauses:
        if _PATHISH.search(clause) is None:
            return False
        words, chars = words_and_cjk(_PATHISH.sub(" ", clause))
        if words > 4 or chars > 8:
            return False
    return True


_FIGURE = re.compile(r"\d+(?:[.,/]\d+)*\s?%?")


def _weight(text: str) -> int:
    """Words of a text: words of any spaced script, and Chinese characters at two to a word."""
    words, chars = words_and_cjk(text)
    return words + chars // 2


def _words_beyond_figures(content: str) -> int:
    """Words of the sentences without a figure: what a task names besides its progress."""
    return _weight(" ".join(s for s in _text.sentences(content) if _FIGURE.search(s) is None))


# --- helpers shared with Q002 ---------------------------------------------------------


def _prose(content: str) -> str:
    """The content without its fenced blocks."""
    if "```" not in content and "~~~" not in content:
        return content  # no fence can open
    spans = _text.fenced_spans(content)
    if not spans:
        return content
    out, last = [], 0
    for start, end in spans:
        out.append(content[last:start])
        last = end
    out.append(content[last:])
    return " ".join(out)
