"""L -- language and labels: right language, self-contained text, good scene labels.

Seed 000 asks three things of the free text an extractor writes: it is in
the dominant language of the conversation, every memory can be understood
outside that conversation (no 这个/那个/上面说的), and a new scene's label is
``{项目}｜{议题}`` -- a stable topic, never today's activity, status or
date -- with a one-sentence reason.

Every word list is an option with Chinese and English defaults, matched
with lexicon semantics (:mod:`memvet.rules._wordmatch`, the faster matcher
over :mod:`memvet.rules.lexicon`); the language measure lives in
:mod:`memvet.rules._langdetect`. Rules that need a field or a word list
declare it (``needs``, :mod:`memvet.needs`): the engine calls ``check()``
only where the declaration can be met.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from memvet.needs import Needs
from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules._antecedent import first_clause_start, resolved_before, sentence_start
from memvet.rules._hant import both_scripts
from memvet.rules import _latin
from memvet.rules._langdetect import TextScreen, dominant_language, language_of, measure
from memvet.rules._scripts import words_and_cjk
from memvet.rules._wordmatch import option_matcher
from memvet.rules.lexicon import has_cjk

BAR = "｜"
# Bars a model types instead of the full-width one: ASCII, box drawing, CJK stroke, divides, broken bar.
_LOOKALIKE_BARS = "|│┃丨∣¦"
_ANY_BAR = re.compile(f"[{BAR}{re.escape(_LOOKALIKE_BARS)}]")
_FREE_TEXT_SCENE_KEYS = ("new_scene_name", "new_scene_reason")


def split_scene_name(name: str) -> tuple[str, str] | None:
    """``(project, topic)`` around the first bar of any kind, stripped; None without a bar."""
    m = _ANY_BAR.search(name)
    if m is None:
        return None
    return name[:m.start()].strip(), name[m.end():].strip()


# --- L001 ----------------------------------------------------------------------------


class LanguageMismatch(Rule):
    """Free text is not in the dominant language of the new messages.

    What it does:
        Decides the batch's language once, from the prose of its new
        ``user`` and ``assistant`` messages -- code blocks, inline code,
        URLs, paths, identifiers (``snake_case``, ``camelCase``, dotted
        names, acronyms), numbers and log lines removed, tool messages left
        out -- and then checks each memory's ``content``, the topic side of
        ``new_scene_name`` and ``new_scene_reason``.

        Both are measured in word units: an English word is one unit, 1.6
        Chinese characters are one (inside a Chinese clause an English term
        that is not a function word counts 0.3, so "先 docker compose up 再
        make dev" stays Chinese). The batch is Chinese when at least
        ``batch_zh_at_least`` (0.65) of its units are Chinese, English when
        at most ``batch_en_at_most`` (0.35) are, and mixed in between: a
        mixed batch, or one with less than ``min_batch_units`` of prose, is
        never judged. A text is judged only with at least ``min_text_units``
        units; it is English when at most ``text_en_at_most`` (0.25) of them
        are Chinese and Chinese when at least ``text_zh_at_least`` (0.6)
        are. A Chinese sentence full of English names is Chinese; only text
        clearly in the other language is rejected. Nor is Chinese framing
        around English names, values and quotations judged English when it
        holds fewer than ``en_prose_min_words`` English function words
        ("railway.toml 的内容：[build] builder = "nixpacks" …"): what is
        English there is what the memory names, not its prose.

        A quotation is not the memory's own language: a run of the other
        language, or a span of it between quotation marks (a commit message
        after the word "commit" and its hash), at least ``verbatim_min_chars``
        characters long, that occurs word for word in a new message of the
        batch (a commit message, an error line, a command's output, the
        user's own words) is left out before the text is judged ("提交 18f53ef：Add configs/x
        to the exclude list。" in a Chinese batch whose tool message shows
        that commit is Chinese framing around a quoted commit message).
        A paraphrase in the other language is still judged.

        Latin-script languages count as one side of that measure, so an
        English batch is also told from a German, Polish or Portuguese one
        by function words (``rules/_latin.py``: "the", "with", "should"
        against "und", "się", "não"). When the batch's user and assistant
        prose holds at least ``latin_min_batch_words`` of them and one side
        has ``latin_ratio`` times the other's, a text with at least
        ``latin_min_text_words`` that leans the other way is written in the
        wrong language: a German user whose assistant answers in English at
        length has an English batch. Only English against the others is
        judged (Portuguese and Spanish share most of their function words),
        and a span quoted word for word from a new message is left out.

    Why is this bad?
        Every free-text field belongs in the language the people
        talk in; a recall layer that mixes languages matches worse and
        reads worse in the prompt it feeds.

    Example:
        user: 登录接口的超时统一改成 30 秒，网关那边也一样
        assistant: 好的，网关和登录接口的超时都按 30 秒配置。
        ```json
        {"content": "The login API and the gateway both time out after 30 seconds.", "type": "work_fact", "priority": 80}
        ```

        user: The billing service must retry webhooks at most five times.
        ```json
        {"new_scene_name": "billing｜webhook 重试", "new_scene_reason": "No pool scene covers webhook retries.",
         "memories": [{"content": "计费服务的 webhook 最多重试五次。", "type": "work_fact", "priority": 80}]}
        ```

        user: Ich möchte, dass die MLX-Modelle mit den PyTorch-Modellen äquivalent sind.
        assistant: I will compare the layers one by one, and then I will check the weight converter,
        because the converter is where most of the differences come from in this kind of port.
        ```json
        {"content": "Die MLX-Modelle sollen bei gleichen Gewichten äquivalent zu den PyTorch-Modellen sein.",
         "type": "work_task", "priority": 85}
        ```

    Use instead:
        user: 登录接口的超时统一改成 30 秒，网关那边也一样
        assistant: 好的，网关和登录接口的超时都按 30 秒配置。
        ```json
        {"content": "登录接口和网关的超时都是 30 秒（login_timeout=30s）。", "type": "work_fact", "priority": 80}
        ```

        user: 把 paper 目录加到 pyright 的排除里然后提交
        tool: [main 18f53ef] Add configs/fastmldnn/paper to pyrightconfig exclude
        ```json
        {"content": "提交 18f53ef：Add configs/fastmldnn/paper to pyrightconfig exclude。", "type": "work_fact", "priority": 80}
        ```

        user: The billing service must retry webhooks at most five times.
        ```json
        {"new_scene_name": "billing｜webhook retries", "new_scene_reason": "No pool scene covers webhook retries.",
         "memories": [{"content": "The billing service retries a webhook at most five times.", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "L001"
    name = "language-mismatch"
    target = "scene"
    action = "reject"

    class Options(RuleOptions):
        batch_zh_at_least: float = 0.65
        batch_en_at_most: float = 0.35
        min_batch_units: float = 4.0
        text_zh_at_least: float = 0.6
        text_en_at_most: float = 0.25
        min_text_units: float = 2.0
        #: A run of the other language this long (characters) that a new message of the batch
        #: holds word for word is a quotation, left out before the text is judged.
        verbatim_min_chars: int = 12
        #: A text with at least this many Chinese characters ...
        zh_frame_min_chars: int = 3
        #: ... and fewer than this many English function words (the, with, is, ...) is Chinese framing
        #: around English names, values and quotations in a Chinese batch, not English prose.
        en_prose_min_words: int = 3
        #: Latin-script languages (English, German, Polish, ...) are told apart by their function
        #: words: a side is decided with at least this many of them in the batch's prose ...
        latin_min_batch_words: int = 12
        #: ... or in one text ...
        latin_min_text_words: int = 3
        #: ... and this many times the other side's.
        latin_ratio: float = 2.0

    def _batch_language(self, ctx: Any) -> str:
        o = self.options
        key = self.__dict__.get("_memo_key")
        if key is None:
            key = self.__dict__["_memo_key"] = (
                f"L001.batch-language:{o.batch_zh_at_least}:{o.batch_en_at_most}:{o.min_batch_units}")
        memo = ctx.batch.memo
        found = memo.get(key)
        if found is None:
            texts = [m.content for m in ctx.batch.messages if m.role in ("user", "assistant")]
            found = memo[key] = dominant_language(texts, zh_at_least=o.batch_zh_at_least,
                                                  en_at_most=o.batch_en_at_most, min_units=o.min_batch_units)
        return found

    def _text_language(self, text: str) -> str:
        counts = measure(text, drop_log_lines=False)
        if counts.units < self.options.min_text_units:
            return "none"
        return language_of(counts, zh_at_least=self.options.text_zh_at_least,
                           en_at_most=self.options.text_en_at_most)

    def _written_in(self, text: str, other: str) -> bool:
        """Is ``text`` judged to be in ``other``? Cheap bounds first, the measure only when they cannot tell."""
        screen = self.__dict__.get("_screen")
        if screen is None:
            screen = self.__dict__["_screen"] = TextScreen(self.options.text_zh_at_least, self.options.text_en_at_most)
        return screen.may_be(text, other) and self._text_language(text) == other

    def _own_words_in(self, text: str, other: str, ctx: Any) -> bool:
        """Is ``text`` in ``other`` once the runs of ``other`` it quotes from the batch are left out?"""
        if not self._written_in(text, other):
            return False
        rest = _without_quotations(text, other, ctx, self.options.verbatim_min_chars)
        if other == "en" and self._chinese_frame(rest):
            return False
        return rest == text or self._text_language(rest) == other

    def _chinese_frame(self, text: str) -> bool:
        """Chinese words around English names, values and quotations, with (almost) no English
        function word: "Web_app/railway.toml 的内容：[build] builder = "nixpacks"…", "wandb name 改为
        …，notes 写为 “SNR-aware … with …”". What is English there is what the memory names or
        quotes, not its prose."""
        o = self.options
        return (words_and_cjk(text)[1] >= o.zh_frame_min_chars
                and _latin.count(text).english < o.en_prose_min_words)

    def _batch_latin(self, ctx: Any) -> str | None:
        """The Latin-script language of the batch's user and assistant prose ("English", "German"...), or None."""
        o = self.options
        key = f"L001.batch-latin:{o.latin_min_batch_words}:{o.latin_ratio}"
        memo = ctx.batch.memo
        if key not in memo:
            total = _latin.LatinCounts()
            for m in ctx.batch.messages:
                if m.role in ("user", "assistant"):
                    total = total + _latin.count(m.content)
            memo[key] = _latin.verdict(total, min_words=o.latin_min_batch_words, ratio=o.latin_ratio)
        return memo[key]

    def _batch_may_be_other(self, ctx: Any) -> bool:
        """Could the batch be in a Latin-script language other than English? (A cheap upper bound:
        when it cannot, only a text that may be in another language needs counting.)"""
        key = f"L001.batch-may-be-other:{self.options.latin_min_batch_words}"
        memo = ctx.batch.memo
        if key not in memo:
            memo[key] = sum(_latin.other_words_at_most(m.content) for m in ctx.batch.messages
                            if m.role in ("user", "assistant")) >= self.options.latin_min_batch_words
        return memo[key]

    def _latin_mismatch(self, text: str, ctx: Any) -> str | None:
        """The Latin-script language ``text`` is written in when it is on the other side of English /
        not English than the batch's (:meth:`_batch_latin`), or None. Close languages (Portuguese and Spanish share most function
        words) are not told apart: only English against the others. Quoted spans that a new message
        holds word for word (a commit message, the user's words) are left out first."""
        o = self.options
        # The common case, English in an English batch, settled by two bounds without counting.
        if (_latin.other_words_at_most(text) < o.latin_min_text_words and not self._batch_may_be_other(ctx)):
            return None
        batch = self._batch_latin(ctx)
        if batch is None:
            return None

        def mismatch(found: str | None) -> bool:
            return found is not None and (found == "English") != (batch == "English")

        found = _latin.verdict(_latin.count(text), min_words=o.latin_min_text_words, ratio=o.latin_ratio)
        if not mismatch(found):
            return None
        rest = _without_quoted_spans(text, ctx, o.verbatim_min_chars)
        if rest != text:
            found = _latin.verdict(_latin.count(rest), min_words=o.latin_min_text_words, ratio=o.latin_ratio)
        return found if mismatch(found) else None

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        batch = self._batch_language(ctx)
        if batch not in ("zh", "en"):
            return
        texts = list(_judged_texts(scene))
        if batch == "en":
            # Another Latin-script language than the batch's (German in an English batch).
            for path, what, text in texts:
                written = self._latin_mismatch(text, ctx)
                if written:
                    yield self._finding(path, what, written, self._batch_latin(ctx))
        # Only a text judged in the other language is a finding.
        other = "en" if batch == "zh" else "zh"
        for path, what, text in texts:
            if self._own_words_in(text, other, ctx):
                yield self._finding(path, what, other)

    @staticmethod
    def _finding(path: str, what: str, written: str, expected: str | None = None) -> Finding:
        if expected is None:
            written, expected = ("Chinese", "English") if written == "zh" else ("English", "Chinese")
        return Finding(f"{what} is written in {written}, but the new messages are mostly {expected}; "
                       f"write it in {expected}", path=path)


#: A run of one language: Latin text (words, names, paths and the punctuation between them)
#: without CJK, or CJK text with its punctuation; stripped of the spaces and stops at its ends.
_RUNS = {"en": re.compile(r"[A-Za-z0-9][^\u3000-\u303f\u3400-\u9fff\uff00-\uffef]*"),
         "zh": re.compile(r"[\u3400-\u9fff][\u3000-\u303f\u3400-\u9fff\uff00-\uffef]*")}
_RUN_ENDS = " \t\n.,;:!?。，；：！？、"


#: Text between quotation marks ("…", “…”, '…', 「…」, 『…』, `…`): a quotation can sit inside a longer
#: run of its language ('commit e373e5a "Fix …"'), so the quoted part is tested on its own too.
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|\'([^\'\n]+)\'|「([^」\n]+)」|『([^』\n]+)』|`([^`\n]+)`')


def _judged_texts(scene: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """``(path, what, text)`` of each free text L001 judges: the topic side of ``new_scene_name``,
    ``new_scene_reason`` and each memory's ``content``."""
    name = scene.get("new_scene_name")
    if isinstance(name, str):
        parts = split_scene_name(name)
        yield "/new_scene_name", "the scene topic", parts[1] if parts else name
    reason = scene.get("new_scene_reason")
    if isinstance(reason, str):
        yield "/new_scene_reason", "new_scene_reason", reason
    memories = scene.get("memories")
    if isinstance(memories, list):
        for j, memory in enumerate(memories):
            content = memory.get("content") if isinstance(memory, dict) else None
            if isinstance(content, str):
                yield f"/memories/{j}/content", "content", content


def _blank_quoted_spans(text: str, quoted: Any, language: str | None = None) -> str:
    """``text`` with each span between quotation marks blanked out when ``quoted(span)`` (a new
    message holds it word for word) -- and, given a ``language``, when the span is a run of it."""
    if not any(q in text for q in "\"“'「『`"):
        return text

    def blank(m: re.Match[str]) -> str:
        run = next(g for g in m.groups() if g is not None).strip(_RUN_ENDS)
        if (language is None or _RUNS[language].match(run)) and quoted(run):
            return " " * len(m.group(0))
        return m.group(0)

    return _QUOTED.sub(blank, text)


def _quoted_by_batch(ctx: Any, min_chars: int) -> Any:
    """A test: does a new message of the batch hold this run, ``min_chars`` or longer, word for word?"""
    messages = [m.content for m in ctx.batch.messages]
    return lambda run: len(run) >= min_chars and any(run in message for message in messages)


def _without_quoted_spans(text: str, ctx: Any, min_chars: int) -> str:
    """``text`` with each quoted span that a new message holds word for word blanked out."""
    return _blank_quoted_spans(text, _quoted_by_batch(ctx, min_chars))


def _without_quotations(text: str, language: str, ctx: Any, min_chars: int) -> str:
    """``text`` with each run of ``language`` that a new message holds word for word blanked out,
    and each quoted span of ``language`` that one holds (the run around it may not be)."""
    quoted = _quoted_by_batch(ctx, min_chars)
    text = _blank_quoted_spans(text, quoted, language)
    out, last = [], 0
    for m in _RUNS[language].finditer(text):
        run = m.group(0).strip(_RUN_ENDS)
        if quoted(run):
            start = text.index(run, m.start())
            out.append(text[last:start])
            out.append(" " * len(run))
            last = start + len(run)
    return "".join(out) + text[last:] if out else text


# --- L002 ----------------------------------------------------------------------------

_ZH_BEFORE_NAME = re.compile(r"\s*[A-Za-z`'\"“「『《(（/]")
_EN_NAME = re.compile(r"[`'\"“(]|[A-Z]|\S*[0-9_./:#@]\S")
_NAME_INSIDE = re.compile(r"[0-9_/.:#@]")
_CLAUSE_END = re.compile(r"[，,；;。.!?！？：:\n]")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")
_COLON_THEN_NAMES = re.compile(r"[^。！？!?；;\n:：]{0,40}[:：]\s*(?:[`'\"“「(（-]|[^\s。！？!?，,]*[A-Z0-9_./])")


class ContextDependent(Rule):
    """Content leans on the conversation instead of naming its object.

    What it does:
        Looks for three kinds of pointer into the chat:

        * ``conversation_refs`` -- phrases that only make sense inside the
          conversation wherever they stand (刚才, 上面说的, 之前提到的,
          "as discussed", "as mentioned above"); Chinese characters have no
          spaces between words, so a reference that a word of
          ``compound_words`` straddles is none (当前文件 holds 前文 across
          当前|文件);
        * ``leading_refs`` -- words that point backwards (上述, 前述, "the
          above", "aforementioned"); inside the content they may point at an
          earlier clause of the same text, so they count only in the first
          clause;
        * a demonstrative (这个/那个/这些/该…, this/that/these/those)
          followed, within a few characters or two words, by a generic noun
          (``generic_nouns``: 接口, 脚本, 方案, file, function, approach...).

        A demonstrative is fine when the object is named anyway: a name
        right after it or after the noun ("这个 `retry()` 函数", "this file
        (src/app.py)"), a term or quotation right before it ("“改了配置不生效”
        这类问题", "Redis 这个组件"), or a noun of the project's own scope
        (这个仓库, "this repository"). It is also fine when the memory
        itself resolves it -- anaphora inside the text, looked for before
        the demonstrative: the same noun or another form of it
        (``noun_forms``: 每一步 … 该步骤), a name of the noun's kind
        (``noun_kinds``: a path before 该文件, a version number before
        这些版本, an error name before 该错误, flags or keys before "these
        options"; for any noun, inline code, a quoted term or an
        identifier), or, for a noun that sums up a clause (``action_nouns``:
        该操作, 该问题, "this approach"), a clause before it when the
        demonstrative opens the next clause (not in object position: "用户认可
        该方案" still leans on the chat).
        "The previous one" / "the previous message" after "another" / "a
        new" / "each" of its own sentence (``previous_antecedents``: "started
        another loop without stopping the previous one") points inside the
        memory, not back into the chat; so does a quoted phrase (a UI string
        “刚刚”, a phrase 'like I said' that a bot must recognise) and a
        reference that names the document it points into ("as discussed in
        ADR-0014", "as mentioned in CONTRIBUTING.md"); "the same as before"
        followed by a word ("… as before the migration") may be a comparison
        with a time (``placement_refs``: uncertain, a warning); a reference
        after a word that sets it aside ("read the files from disk rather than
        relying on code from earlier in the conversation", ``contrasts``) names
        what not to lean on: uncertain too.
        "and above" / "80% 以上" are not pointers; "the same chat" / 当前对话
        are (``conversation_objects``: the conversation itself as the
        object), but only uncertainly, since bots and messaging code handle
        chats and threads of their own; so is an occasion of the chat
        (``occasion_refs``: 那次), which the memory may tell in the same
        sentence ("不能像 agent 那次一样给出 SEARCH 与 REPLACE 相同的空操作块").
        A kind word right after a list of its members ("数量、步进这类需求")
        sums up that list: no pointer.

        Certainty: conversation and leading references are certain, and so
        is a dangling demonstrative in the memory's first clause. After an
        earlier clause of the memory, or after a quantifier of its own
        sentence (``quantifiers``: 每个 query / mutation 的注释都附上该操作的
        链接), the memory may resolve it in words no pattern knows: that
        finding is low confidence and warns (``low_confidence``), so a
        correct answer is not asked again for it.

    Why is this bad?
        A memory is recalled weeks later, in another conversation: "那个定时
        任务" or "the above approach" then names nothing. Every memory
        must stand alone.

    Example:
        user: 刚才那个迁移脚本在 MySQL 5.7 上会失败
        ```json
        {"content": "刚才那个迁移脚本在 MySQL 5.7 上会失败。", "type": "work_fact", "priority": 80}
        ```

        user: As I said, pin third-party actions to a commit SHA.
        ```json
        {"content": "As mentioned above, third-party actions must be pinned to a commit SHA.", "type": "work_method", "priority": 80}
        ```

        user: this file must never be edited by hand, it is generated
        ```json
        {"content": "This file is generated and must never be edited by hand.", "type": "work_fact", "priority": 80}
        ```

        user: key 过期后那个接口就 500
        ```json
        {"content": "Redis 里的 key 过期后该接口返回 500。", "type": "work_fact", "priority": 80}
        ```

        assistant: I recommend staying in this chat for Phase 2.
        ```json
        {"content": "Stay in the same chat for Phase 2 to keep the richer context.", "type": "work_fact", "priority": 80}
        ```

    Use instead:
        user: 刚才那个迁移脚本在 MySQL 5.7 上会失败
        ```json
        {"content": "migrations/0042_add_json_default.sql 在 MySQL 5.7 上会失败：5.7 不支持 JSON 列的 DEFAULT。", "type": "work_fact", "priority": 80}
        ```

        user: Coverage on changed lines has to be 80% or above.
        ```json
        {"content": "Pull requests keep changed-line coverage at 80% and above.", "type": "work_fact", "priority": 80}
        ```

        user: 遇到改了配置不生效这类问题，先核对镜像 digest
        ```json
        {"content": "遇到“改了配置不生效”这类问题时，应先核对运行中容器的镜像 digest。", "type": "work_method", "priority": 80}
        ```

        user: 测试脚本和测试文档都不需要，完成后删掉
        ```json
        {"content": "每一步收尾时应删除测试脚本和测试文档，只保留核心代码和该步骤的说明文档。", "type": "work_method", "priority": 80}
        ```

        user: scripts/gen.py 是生成的，别手改
        ```json
        {"content": "scripts/gen.py 由 CI 生成，该文件不要手动修改。", "type": "work_fact", "priority": 80}
        ```

        user: always pass --frozen and --offline
        ```json
        {"content": "Pass --frozen and --offline to uv sync in CI; these options keep CI from resolving dependencies again.",
         "type": "work_method", "priority": 80}
        ```
        user: 我说的一次 +3 只是举例，按配方里的数量来
        ```json
        {"content": "实现数量、步进这类需求时，用户举的具体数字只是示例，应泛化为配方的数据字段。", "type": "work_method", "priority": 85}
        ```
    """

    code = "L002"
    name = "context-dependent"
    target = "memory"
    action = "reject"
    #: Every finding quotes a conversation or leading reference, or a demonstrative, of the content.
    needs = Needs(fields=("content",), words=("conversation_refs", "conversation_objects", "occasion_refs",
                                              "leading_refs", "demonstratives"))

    class Options(RuleOptions):
        conversation_refs: list[str] = [
            "刚才", "刚刚", "方才", "上面说", "上面提到", "上面讲", "上面列", "上面给出", "上面贴", "上面那",
            "上面这", "上面的方案", "上面的思路", "上面的做法", "上面的结论", "上面的步骤", "上面的办法",
            "上面的命令", "上面的代码", "上面的报错", "上面的问题", "之前说的", "之前提到的", "之前讨论的",
            "之前那个", "之前那些", "前面说的", "前面提到的", "前面讨论的", "前面那个", "先前提到的", "刚提到的",
            "你说的", "我说的", "你提到的", "我提到的", "我们讨论的", "讨论过的", "如前所述", "如上所述", "同上",
            "上一条", "上文", "前文", "上次说的", "上次那个",
            "as discussed", "as we discussed", "as mentioned", "as noted above", "as described above",
            "as shown above", "as stated above", "as explained above", "as I said", "as we said", "as you said",
            "like I said", "mentioned above", "mentioned earlier", "mentioned before", "discussed above",
            "discussed earlier", "described above", "listed above", "shown above", "noted above",
            "stated above", "explained above", "earlier in this conversation", "earlier in the conversation",
            "the previous message",
            "the previous answer", "the previous suggestion", "the previous approach", "the previous one",
            "the same as before", "same as before", "like before", "just now", "the one above", "as above",
        ]
        #: Words that, earlier in the same sentence, give "the previous …" its antecedent ("every click
        #: started another loop without stopping the previous one", "each new message replaces the
        #: previous message"): the reference is then inside the memory's own sentence, not back into
        #: the chat.
        previous_antecedents: list[str] = ["another", "a new", "a second", "a fresh", "each", "every", "the new",
                                           "the next", "a newer", "a later"]
        #: Words that set what follows them aside ("read the files from disk rather than relying on code
        #: from earlier in the conversation"): a conversation reference after one of them, in its sentence,
        #: names what the memory tells not to lean on, as a rule about the agent's context does; the
        #: memory does not need it to be understood. Uncertain (low, warns): "use X instead of the fix
        #: discussed earlier" still leans on the chat for what it sets aside.
        contrasts: list[str] = ["rather than", "instead of", "not rely", "never rely", "don't rely", "do not rely",
                                "without relying", "not trust", "don't trust", "do not trust", "而不是", "而非",
                                "不要依赖", "不要依靠", "不依赖", "不要相信"]
        #: References that also place or date something: "a plus icon shown above the guidance text"
        #: says where it sits, "the same as before the migration" compares with a time; "the steps
        #: shown above", "the same as before" point back. Followed by a word, such a reference is
        #: uncertain (a warning); at the end of a clause it points back for certain.
        placement_refs: list[str] = ["shown above", "listed above", "the same as before", "same as before",
                                     "like before"]
        #: Words whose characters a Chinese reference can straddle without being one: 当前文件 holds
        #: 前文 across 当前|文件, 线上文档 holds 上文. A reference that one of them straddles (starts
        #: before it and ends inside, or starts inside and ends after) is no reference.
        compound_words: list[str] = ["当前", "目前", "之前", "此前", "以前", "提前", "事前", "线上", "加上", "附上",
                                     "网上", "地方", "如同", "文件", "文档", "文本", "文字", "文案", "文章", "说明"]
        #: The conversation itself as the object ("stay in the same chat for Phase 2"). Uncertain
        #: (low, warns): chats, threads and conversations are also what bots and messaging code
        #: handle ("sends the result with the same thread fallback").
        conversation_objects: list[str] = [
            "the same chat", "the same conversation", "the same thread", "this chat", "this conversation",
            # "not re-verified in this conversation": when, not what -- the memory names its object
            "this thread", "the current chat", "the current conversation",
            "当前对话", "本次对话", "这个对话", "同一个对话",
            "同一对话", "当前会话", "这个会话", "同一个会话",
        ]
        #: An occasion the chat went through ("不能像 agent 那次一样给出空操作块"): most often a pointer
        #: into the chat, but the memory may tell that occasion in the same sentence. Uncertain (low, warns).
        occasion_refs: list[str] = ["那次", "那一次"]
        leading_refs: list[str] = ["上述", "前述", "以上方案", "以上步骤", "以上问题", "以上内容", "以上结论",
                                   "the above", "above-mentioned", "aforementioned", "the foregoing"]
        demonstratives: list[str] = ["这个", "那个", "这些", "那些", "这条", "那条", "这段", "那段", "这份",
                                     "那份", "这套", "那套", "这种", "那种", "这类", "那类", "这处", "那处",
                                     "这几个", "那几个", "该", "此",
                                     "this", "that", "these", "those"]
        generic_nouns: list[str] = [
            "文件", "函数", "方法", "接口", "脚本", "命令", "问题", "报错", "错误", "异常", "bug", "方案", "思路",
            "做法", "办法", "配置", "参数", "字段", "服务", "任务", "模块", "组件", "类", "页面", "按钮",
            "功能", "版本", "分支", "提交", "改动", "修改", "补丁", "步骤", "流程", "逻辑", "值", "变量", "测试",
            "用例", "库", "依赖包", "依赖", "镜像", "容器", "实例", "环境", "端口", "路径", "目录", "链接", "地址",
            "工具", "插件", "规则", "结论", "情况", "事情", "东西", "坑", "机制", "进程", "数据", "查询", "压测",
            "需求", "设计", "实现", "代码", "写法", "操作", "选项", "开关", "节点", "集群", "作业", "请求", "结果", "数据表", "表格",
            "file", "function", "method", "class", "module", "script", "command", "bug", "error", "issue",
            "problem", "approach", "solution", "fix", "change", "patch", "endpoint", "config", "configuration",
            "setting", "table", "test", "component", "service", "query", "thing", "idea", "plan", "step",
            "snippet", "code", "page", "document", "doc", "option", "flag", "value", "variable", "field", "job",
            "task", "branch", "commit", "workaround", "trick", "suggestion", "proposal", "one", "tool",
            "library", "package", "dependency", "version", "image", "container", "instance", "request", "result",
            "files", "functions", "methods", "classes", "modules", "scripts", "commands", "bugs", "errors",
            "issues", "problems", "changes", "patches", "endpoints", "settings", "tables", "tests", "components",
            "services", "queries", "things", "ideas", "steps", "snippets", "pages", "documents", "docs", "options",
            "flags", "values", "variables", "fields", "jobs", "tasks", "branches", "commits", "workarounds",
            "suggestions", "tools", "libraries", "packages", "dependencies", "versions", "images", "containers",
            "instances", "requests", "results", "approaches", "solutions", "fixes",
        ]
        self_scope_nouns: list[str] = ["仓库", "项目", "代码库", "团队", "工程", "repo", "repository", "project",
                                       "codebase", "team", "workspace", "monorepo"]
        #: Other forms of a generic noun that, earlier in the content, are its antecedent
        #: (每一步 … 该步骤; "the steps" … 这些步骤).
        noun_forms: dict[str, list[str]] = {
            "步骤": ["步", "step"], "错误": ["错", "error", "exception"], "报错": ["错误", "error"],
            "异常": ["exception", "error"], "文件": ["file"], "版本": ["version", "release"], "命令": ["command"],
            "脚本": ["script"], "函数": ["function"], "接口": ["api", "endpoint"], "选项": ["option", "flag"],
            "参数": ["option", "argument", "parameter", "flag"], "配置": ["config", "setting"],
            "step": ["步"], "steps": ["步", "step"], "error": ["错误", "报错"], "errors": ["error"],
            "file": ["文件"], "files": ["file"], "version": ["版本"], "versions": ["version", "版本"],
            "option": ["选项", "flag"], "options": ["option", "flag", "选项"],
        }
        #: Generic nouns by the kind of name that, earlier in the content, resolves them
        #: (a path before 该文件, a version number before 这些版本, an error name before 该错误).
        noun_kinds: dict[str, list[str]] = {
            "file": ["文件", "脚本", "模块", "目录", "路径", "文档", "file", "files", "script", "scripts", "module",
                     "modules", "directory", "path", "document", "documents", "doc", "docs"],
            "version": ["版本", "version", "versions"],
            "error": ["错误", "报错", "异常", "error", "errors", "exception", "bug", "bugs"],
            "option": ["选项", "参数", "开关", "配置", "字段", "变量", "option", "options", "flag", "flags",
                       "setting", "settings", "field", "fields", "variable", "variables", "config", "configuration"],
            "value": ["值", "数值", "取值", "value", "values", "number", "numbers", "limit", "limits"],
        }
        #: Nouns that sum up a clause (an action, a state of affairs): opening a clause after
        #: another one, they refer to it ("agent 打算改做模拟可视化时该操作被取消").
        action_nouns: list[str] = ["操作", "步骤", "动作", "改动", "修改", "调整", "变更", "过程", "问题", "情况",
                                   "现象", "错误", "报错", "异常", "做法", "方案", "思路", "办法", "限制", "行为",
                                   "结论", "结果", "流程", "顺序", "规则", "约定", "原则", "策略", "设计", "机制",
                                   "写法", "模式",
                                   "approach", "step", "steps", "change", "changes", "issue", "problem",
                                   "pattern", "behavior", "behaviour", "workaround", "fix", "setup", "order",
                                   "situation", "limitation", "trick", "solution", "process", "procedure",
                                   "rule", "convention", "strategy", "design", "mechanism", "sequence",
                                   "workflow"]
        #: Quantifiers that bind a later demonstrative of their sentence ("每个 query 的注释附上该操作
        #: 的链接"): such a finding is uncertain (a warning), since the demonstrative may range over
        #: what the quantifier introduced.
        quantifiers: list[str] = ["每", "各个", "各项", "各类", "所有", "任何", "任一", "全部", "一律",
                                  "each", "every", "any", "all"]

    # English demonstratives "that/those" are also conjunctions/relative pronouns
    # ("ensure that tests pass"); they point only after a preposition or verb of use.
    _EN_THAT_AFTER = frozenset("in on from with for to of by per use using like follow via into about after "
                               "before under run apply applies keep see edit delete remove rename open call revert restart "
                               "deploy merge import install".split())

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        # A plain function, not a generator: a clean memory costs no generator.
        content = memory.get("content")
        found = self._find(content) if isinstance(content, str) else None
        if not found:
            return ()
        hit, sure = found
        return [Finding(f"content leans on the conversation ({hit!r}); name the object it refers to "
                        "so the memory stands alone", path="/content", confidence=None if sure else "low")]

    def _find(self, text: str) -> tuple[str, bool] | None:
        """The pointer into the conversation, and whether it certainly is one."""
        conversation, objects, occasions, leading, demonstratives, nouns, scope = self._matchers()
        lowered = text.lower()  # once for every word list
        found = self._conversation_ref(text, lowered, conversation)
        if found:
            hit, end = found
            placement = any(hit.lower() == w.lower() for w in self.options.placement_refs)
            set_aside = option_matcher(self, "contrasts").search(text, sentence_start(text, end - len(hit)),
                                                                  end - len(hit), lowered=lowered) is not None
            return hit, not ((placement and _word_follows(text, end)) or set_aside)
        hit = objects.find(text, lowered=lowered) or occasions.find(text, lowered=lowered)
        if hit:
            return hit, False
        first = _CLAUSE_END.search(text)
        hit = leading.find(text, 0, first.start() if first else len(text), lowered=lowered)
        if hit:
            return hit, True
        return self._dangling_demonstrative(text, lowered, demonstratives, nouns, scope)

    def _conversation_ref(self, text: str, lowered: str, conversation: Any) -> tuple[str, int] | None:
        """The first conversation reference that no compound word straddles (当前文件 is no 前文), and
        that no antecedent of its own sentence resolves ("another loop … the previous one"), and where
        it ends."""
        compounds = None
        for start, end in conversation.finditer(text, lowered=lowered):
            if has_cjk(text[start:end]):
                if compounds is None:
                    compounds = list(option_matcher(self, "compound_words").finditer(text, lowered=lowered))
                if any(a < start < b < end or start < a < end < b for a, b in compounds):
                    continue
            elif lowered.startswith("the previous ", start) and self._previous_resolved(text, lowered, start):
                continue
            if _inside_quotes(text, start, end) or _NAMED_SOURCE.match(text, end):
                continue  # a quoted phrase is mentioned, not used; "as discussed in ADR-0014" cites a document
            return text[start:end], end
        return None

    def _previous_resolved(self, text: str, lowered: str, start: int) -> bool:
        """Does an earlier word of the sentence (``previous_antecedents``: "another", "a new", "each")
        give "the previous …" at ``start`` its antecedent?"""
        return option_matcher(self, "previous_antecedents").search(text, sentence_start(text, start), start,
                                                                   lowered=lowered) is not None

    def _matchers(self) -> tuple[Any, ...]:
        """The word-list matchers (lexicon semantics), one per option of the rule instance."""
        return tuple(option_matcher(self, option) for option in (
            "conversation_refs", "conversation_objects", "occasion_refs", "leading_refs", "demonstratives",
            "generic_nouns", "self_scope_nouns"))

    def _dangling_demonstrative(self, text: str, lowered: str, demonstratives: Any, nouns: Any,
                                scope: Any) -> tuple[str, bool] | None:
        for start, end in demonstratives.finditer(text, lowered=lowered):
            word = text[start:end]
            latin = word.isascii()
            if not self._points_outside(text, start, end, word, latin):
                continue
            window_end = _window_end(text, end, latin)
            noun = nouns.search(text, end, window_end, lowered=lowered)
            if noun is None:
                continue
            noun_start, noun_end = noun
            if latin and not _within_words(text, end, noun_start, 1):
                continue
            if not latin and noun_start - end > (1 if word in ("该", "此") else 6):
                continue
            if scope.search(text, end, window_end, lowered=lowered):
                continue
            if _names_something(text[end:noun_start], latin) or _named_after(text, noun_end, latin):
                continue
            # The noun already appeared earlier in the content: anaphora inside the text.
            if len(lowered) == len(text) and lowered.find(lowered[noun_start:noun_end], 0, start) >= 0:
                continue
            # Another form of the noun, a name of its kind or (for an action) a clause before it.
            o = self.options
            if resolved_before(text, start, text[noun_start:noun_end], forms=o.noun_forms, kinds=o.noun_kinds,
                               action_nouns=o.action_nouns):
                continue
            # Certain only in the memory's first clause, with no quantifier of it binding the demonstrative.
            at = first_clause_start(text, start)
            sure = at is not None and option_matcher(self, "quantifiers").search(text, at, start,
                                                                                lowered=lowered) is None
            return text[start:noun_end], sure
        return None

    def _points_outside(self, text: str, start: int, end: int, word: str, latin: bool) -> bool:
        """Rules out uses of the demonstrative that are not pointers at all."""
        before = text[max(0, start - 40):start].rstrip()
        if latin:
            lower = word.lower()
            if lower in ("that", "those"):
                prev = _WORD_RE.findall(before[-30:])
                if prev and prev[-1].lower() not in self._EN_THAT_AFTER:
                    return False
            return True
        prev_char = before[-1:] if before else ""
        # A term or a quotation right before: an apposition ("Redis 这个组件").
        if prev_char and (prev_char.isascii() and prev_char.isalnum() or prev_char in "”」』》)）`'\""):
            return False
        if word == "该" and text[start - 1:start] in ("应", "活", "就", "不"):
            return False
        if word == "此" and (text[start - 1:start] in tuple("因如彼从由为借据对除与特就在至于")
                            or text[end:end + 1] in tuple("时外后前刻次")):
            return False
        # Inside a parenthesis that annotates what comes just before it ("用 11369（后端 CORS 按此
        # 配置）"): the demonstrative points at that text, inside the memory.
        if _in_annotation(text, start):
            return False
        # Right after a list of its members ("数量、步进这类需求"): an apposition, not a pointer.
        if word in _KIND_WORDS and _after_enumeration(text, start):
            return False
        return True


#: Demonstratives that name a kind or a group ("这类需求", "这些文件"): after a list of examples they sum it up.
_KIND_WORDS = frozenset({"这类", "这种", "这些", "那类", "那种", "那些", "这几个", "那几个"})
#: The last list item before such a word: a 、 and then a few characters with no clause break, verb
#: particle or subordinator ("数量、步进这类"; not "改完 A、B 后这类问题").
_LAST_ITEM = re.compile(both_scripts(r"、[^，,；;。.!?！？：:、\s的后时了是在把被]{1,10}$"))


#: A word (not a clause break) right after a reference: "shown above the guidance text".
_WORD_NEXT = re.compile(r"[ \t]*[^\W\d_]")


#: Spans between quotation marks (a single-quoted span only between non-word characters: "don't" holds none).
_QUOTE_SPAN = re.compile(r'"[^"\n]*"|“[^”\n]*”|‘[^’\n]*’|「[^」\n]*」|『[^』\n]*』|`[^`\n]*`'
                         r"|(?<!\w)'[^'\n]*'(?!\w)")
#: A reference that goes on to name a document it points into ("as mentioned in CONTRIBUTING.md", "as
#: discussed in ADR-0014", "described in RFC 7231"): a name with a dot, a slash, a digit or a capital.
# The name holds a capital, a digit or a slash (ADR-0014, README, docs/x), or a dot inside it
# (CONTRIBUTING.md): not the full stop after "in the conversation.", which names no document.
_NAMED_SOURCE = re.compile(r"\s+(?:in|by|per|from)\s+(?:the\s+)?`?(?:[\w.-]*[A-Z0-9/][\w./#-]*|[\w-]*\.\w[\w./#-]*)")


def _inside_quotes(text: str, start: int, end: int) -> bool:
    """Does a quoted span hold ``text[start:end]`` (the words are quoted: "just now" as a UI string)?"""
    if not any(q in text for q in '"“‘「『`\''):
        return False
    return any(m.start() < start and end < m.end() for m in _QUOTE_SPAN.finditer(text))


def _word_follows(text: str, end: int) -> bool:
    """A word, not the end of the clause, follows ``end`` (spaces allowed)."""
    return _WORD_NEXT.match(text, end) is not None


def _after_enumeration(text: str, start: int) -> bool:
    """``start`` follows, with no space, the last item of a 、-list of its own clause."""
    return _LAST_ITEM.search(text, max(0, start - 12), start) is not None


def _in_annotation(text: str, start: int) -> bool:
    """``start`` is inside an open （…）/(…) that follows some text of the memory's own."""
    opened = max(text.rfind("（", 0, start), text.rfind("(", 0, start))
    if opened < 1:
        return False
    closed = max(text.rfind("）", opened, start), text.rfind(")", opened, start))
    return closed < 0 and bool(text[:opened].strip())


def _window_end(text: str, start: int, latin: bool) -> int:
    limit = min(len(text), start + (40 if latin else 10))
    m = _CLAUSE_END.search(text, start, limit)
    return m.start() if m else limit


def _within_words(text: str, start: int, end: int, max_words: int) -> bool:
    """At most ``max_words`` words between the demonstrative and the noun."""
    return len(_WORD_RE.findall(text[start:end])) <= max_words


def _names_something(between: str, latin: bool) -> bool:
    """A name between the demonstrative and the noun: "这个 `retry()` 函数", "this Redis instance"."""
    if latin:
        between = between.strip()
        return bool(between) and _EN_NAME.match(between) is not None
    return _ZH_BEFORE_NAME.match(between) is not None


def _named_after(text: str, pos: int, latin: bool) -> bool:
    """A name right after the noun: "this file (src/app.py)", "该接口 /v2/login"."""
    rest = text[pos:pos + 60].lstrip()
    if not rest:
        return False
    # A colon later in the sentence introduces the objects: "pass these options to uv sync:
    # --frozen, --offline", "该错误：KeyError".
    if _COLON_THEN_NAMES.match(text, pos) is not None:
        return True
    if latin:
        token = rest.split(None, 1)[0].rstrip(",.;:!?")
        return bool(token) and (token[0] in "`'\"“(" or _NAME_INSIDE.search(token) is not None)
    return rest[0] in "`“「『《(（/" or (rest[0].isascii() and rest[0].isalpha())


# --- L003 ----------------------------------------------------------------------------


class SceneNameFormat(Rule):
    """``new_scene_name`` is not ``{project}｜{topic}``.

    What it does:
        Replaces a single half-width ``|`` (or a lookalike bar: ``│``,
        ``丨``, ``∣``, ``¦``) by the full-width ``｜`` and trims the spaces
        around it (safe fix). Rejects a name without any bar, with more than
        one, or with an empty project or topic side.

        Fix: safe

    Why is this bad?
        Scenes are matched and grouped by their label; the pipeline splits
        it on ``｜``, so another bar forks the scene, and a label without a
        project or topic cannot be reused.

    Example:
        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "memory-system | 写入层隔离", "new_scene_reason": "池中没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```

        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "写入层隔离", "new_scene_reason": "池中没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "memory-system｜写入层隔离", "new_scene_reason": "池中没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "L003"
    name = "scene-name-format"
    target = "scene"
    action = "fix"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        name = scene.get("new_scene_name")
        if not isinstance(name, str):
            return
        bars = _ANY_BAR.findall(name)
        if not bars:
            yield Finding(f"new_scene_name {name!r} has no '｜': write it as '{{project}}｜{{topic}}'",
                          path="/new_scene_name", action="reject")
            return
        if len(bars) > 1:
            yield Finding(f"new_scene_name {name!r} has {len(bars)} bars; write exactly one: '{{project}}｜{{topic}}'",
                          path="/new_scene_name", action="reject")
            return
        project, topic = split_scene_name(name)  # type: ignore[misc]
        missing = [side for side, value in (("project", project), ("topic", topic)) if not value]
        if missing:
            yield Finding(f"new_scene_name {name!r} has an empty {' and '.join(missing)} side: "
                          "write it as '{project}｜{topic}'", path="/new_scene_name", action="reject")
            return
        if bars[0] != BAR:
            fixed = f"{project}{BAR}{topic}"
            yield Finding(f"new_scene_name uses {bars[0]!r} instead of the full-width '｜'; rewritten as {fixed!r}",
                          path="/new_scene_name", action="fix",
                          fix=[{"op": "replace", "path": "/new_scene_name", "value": fixed}])


# --- L004 ----------------------------------------------------------------------------

_DATE = re.compile(
    both_scripts(r"(?<!\d)(?:(?:19|20)\d{2}[-/.年](?:0?[1-9]|1[0-2])(?:[-/.月](?:0?[1-9]|[12]\d|3[01])日?)?"
    r"|(?:0?[1-9]|1[0-2])月(?:0?[1-9]|[12]\d|3[01])[日号]|(?:19|20)\d{2}年)(?!\d)"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?\b"),
    re.IGNORECASE)


class SceneNameActivity(Rule):
    """The topic of ``new_scene_name`` names an activity, a status or a date.

    What it does:
        Looks at the topic side of the label for what is true only today:

        * ``leading_activities`` at the start of the topic (排查…, 修复…,
          调试…, "fixing …", "debug …", "looking into …", and gerunds of a
          change being made: "Renaming plan files", "Reorganizing exports";
          gerunds that name a domain, "Caching strategy", are not listed);
        * ``chained_activities`` anywhere: a second action joined on
          (…并修复…, "… and fix …");
        * ``statuses`` (已完成, 进行中, 待处理, done, WIP, in progress);
        * dates and relative days (2026-08-22, 8月22日, 今天, 本周, today,
          "Aug 22").

        A trailing activity noun is left alone ("L1 提取误分类排查",
        "timeout retry implementation"): good scene labels name topics
        that way. So is a leading one that modifies the noun after it
        (``attributive_uses``: "debug console.log statements", 调试日志,
        "try/catch blocks"), and a leading gerund used as a noun or a
        modifier, or a Chinese verb before a kind noun (``topic_heads``:
        "Handling of expired tokens", "Upgrading policy for dependencies",
        排查流程), an acronym (FIX, the protocol) and an identifier
        (``resolve.alias``).

        Certainty: an activity is certain. A status or a date is certain
        where a label carries it -- at the end, in brackets, before a
        separator, or with a possessive ("today's login bug", 今天的报错);
        right before a noun of the topic it most likely qualifies that noun,
        a state or a day of the domain ("Pending invoices", 已完成订单归档,
        今日推荐, "Monday settlement window"): uncertain, a warning.

    Why is this bad?
        A label is the scene's identity. "排查盖章失败并修复重试逻辑" stops
        fitting as soon as the work moves on, so the next batch opens a new
        scene for the same topic -- the main cause of fragmented scenes.

    Example:
        user: 企业端盖章一直失败，查一下重试逻辑
        ```json
        {"new_scene_name": "A104527 后端｜排查企业端盖章失败并修复重试逻辑", "new_scene_reason": "池中没有合同签署议题。",
         "memories": [{"content": "企业端盖章失败由重试逻辑未刷新签名导致。", "type": "work_fact", "priority": 80}]}
        ```

        user: The login timeout is fixed now
        ```json
        {"new_scene_name": "Billing API｜login timeout (done)", "new_scene_reason": "No pool scene covers the login timeout.",
         "memories": [{"content": "The login endpoint times out after 30 seconds.", "type": "work_fact", "priority": 80}]}
        ```

        user: rename the old plan files
        ```json
        {"new_scene_name": "polychrome.p5｜Renaming plan files", "new_scene_reason": "No pool scene covers plan files.",
         "memories": [{"content": "Plan files start with a numeric prefix and a dot.", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: 企业端盖章一直失败，查一下重试逻辑
        ```json
        {"new_scene_name": "A104527 后端｜合同签署流程 V2", "new_scene_reason": "池中没有合同签署议题。",
         "memories": [{"content": "企业端盖章失败由重试逻辑未刷新签名导致。", "type": "work_fact", "priority": 80}]}
        ```

        user: The login timeout is fixed now
        ```json
        {"new_scene_name": "Billing API｜login timeout", "new_scene_reason": "No pool scene covers the login timeout.",
         "memories": [{"content": "The login endpoint times out after 30 seconds.", "type": "work_fact", "priority": 80}]}
        ```

        user: what is the caching strategy?
        ```json
        {"new_scene_name": "billing｜Caching strategy", "new_scene_reason": "No pool scene covers caching.",
         "memories": [{"content": "Invoices are cached for 60 seconds.", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "L004"
    name = "scene-name-activity"
    target = "scene"
    action = "reject"
    #: Only a new scene's label has a topic to judge (a reused scene has none).
    needs = Needs(fields=("new_scene_name",))

    class Options(RuleOptions):
        leading_activities: list[str] = [
            "排查", "修复", "调试", "定位", "解决", "跟进", "尝试", "搞定", "修一下", "查一下", "看一下", "处理一下",
            "正在", "开始", "继续", "帮忙", "帮我",
            "fix", "fixing", "debug", "debugging", "investigate", "investigating", "troubleshoot",
            "troubleshooting", "look into", "looking into", "working on", "work on", "try", "trying",
            "resolve", "resolving", "diagnose", "diagnosing", "chasing", "handle", "handling",
            # gerunds of a change being made: they name today's work ("Renaming plan files"), whereas
            # gerunds that name a domain ("Caching strategy", "Logging format") are not listed
            "renaming", "reorganizing", "reorganising", "restructuring", "refactoring", "migrating", "updating",
            "upgrading", "adding", "removing", "deleting", "implementing", "creating", "setting up",
            "cleaning up", "moving", "converting", "rewriting", "replacing", "porting", "bumping", "splitting",
            "documenting", "improving", "optimizing", "optimising", "reviewing",
        ]
        #: Topics whose leading activity word modifies the noun after it and names a thing, not
        #: today's work ("debug console.log statements", "debug mode", "try/catch blocks").
        attributive_uses: list[str] = [
            "debug statement", "debug statements", "debug log", "debug logs", "debug logging", "debug output",
            "debug mode", "debug build", "debug builds", "debug flag", "debug flags", "debug symbols", "debug panel",
            "debug info", "debug message", "debug messages", "debug print", "debug prints", "debug toolbar",
            "debug endpoint", "debug endpoints", "debug console", "debug view", "debug page", "debug menu",
            "debug overlay", "debug tools", "debug tooling", "debug adapter", "debug configuration",
            "debug configurations", "try/catch", "try-catch", "try catch", "handle leak", "handle leaks",
            "调试日志", "调试模式", "调试输出", "调试面板", "调试信息", "调试开关", "调试工具",
            # compound nouns that start with an activity word: a thing, not today's work
            "moving average", "moving averages", "handling fee", "handling fees", "fix protocol", "fix engine",
            "debug trait", "解决方案", "跟进记录", "尝试次数", "开始时间", "开始日期", "继续教育", "定位服务",
            "定位权限", "定位精度", "定位信息", "修复脚本",
        ]
        #: Words that, right after a leading gerund, make it name a topic ("Handling of expired
        #: tokens", "Upgrading policy for dependencies", "Reviewing guidelines"): the gerund is then
        #: a noun or modifies the noun after it.
        topic_heads: list[str] = [
            "of", "policy", "policies", "strategy", "strategies", "rule", "rules", "guideline", "guidelines",
            "convention", "conventions", "process", "flow", "workflow", "logic", "pipeline", "checklist",
            "standard", "standards", "schedule", "window", "semantics", "order", "behavior", "behaviour",
            "流程", "规范", "手册", "策略", "原则", "清单", "指南", "方法论", "机制", "时限", "时效",
        ]
        chained_activities: list[str] = [
            "并修复", "并排查", "并调试", "并解决", "并处理", "并验证", "并上线", "并提交", "然后修复", "再修复",
            "后修复", "和修复", "及修复",
            "and fix", "and fixing", "and debug", "and resolve", "then fix",
        ]
        statuses: list[str] = [
            "已完成", "完成了", "已修复", "已解决", "已上线", "已合并", "已关闭", "已废弃", "进行中", "处理中",
            "修复中", "排查中", "开发中", "未完成", "待处理", "待修复", "待办", "待确认", "搞定了",
            "done", "WIP", "in progress", "in-progress", "completed", "finished", "resolved", "ongoing",
            "blocked", "pending", "todo", "to do",
        ]
        dates: list[str] = [
            "今天", "昨天", "明天", "前天", "今日", "昨日", "本周", "上周", "下周", "这周", "本月", "上个月",
            "下个月", "今晚", "周一", "周二", "周三", "周四", "周五", "周六", "周日", "星期",
            "today", "yesterday", "tomorrow", "tonight", "this week", "last week", "next week", "this month",
            "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        ]

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        name = scene.get("new_scene_name")
        if not isinstance(name, str):
            return
        parts = split_scene_name(name)
        topic = parts[1] if parts else name.strip()
        if not topic:
            return
        what = self._find(topic)
        if what:
            kind, hit, sure = what
            yield Finding(f"the scene topic {topic!r} names {kind} ({hit!r}); name the stable topic instead "
                          "(the module, feature or problem), not what is being done or when", path="/new_scene_name",
                          confidence=None if sure else "low")

    def _find(self, topic: str) -> tuple[str, str, bool] | None:
        """What the topic names (kind, words) and whether that is certain."""
        lowered = topic.lower()  # once for every word list
        hit = option_matcher(self, "leading_activities").match(topic, lowered=lowered)
        # An acronym (FIX, the protocol) or an identifier (resolve.alias, handle_event) is no verb.
        if hit and not hit.isupper() and topic[len(hit):len(hit) + 1] not in (".", "_", "(") \
                and not option_matcher(self, "attributive_uses").match(topic, lowered=lowered) \
                and not self._names_a_topic(topic, lowered, len(hit)):
            return "an activity", hit, True
        span = option_matcher(self, "chained_activities").search(topic, lowered=lowered)
        if span and not self._names_a_topic(topic, lowered, span[1]):
            return "an activity", topic[span[0]:span[1]], True
        for kind, option in (("a status", "statuses"), ("a date", "dates")):
            span = option_matcher(self, option).search(topic, lowered=lowered)
            if span:
                return kind, topic[span[0]:span[1]], not _qualifies_a_noun(topic, span[1])
        m = _DATE.search(topic)
        if m:
            return "a date", m.group(0), True
        return None

    def _names_a_topic(self, topic: str, lowered: str, end: int) -> bool:
        """Does the word right after a leading gerund or Chinese verb (``topic_heads``: "of", "policy",
        流程) make it a topic ("Handling of expired tokens", 排查流程)?"""
        rest = topic[end:]
        if has_cjk(topic[end - 1:end]):
            word = rest  # Chinese: the head follows with no space (排查流程)
        elif lowered.endswith("ing", 0, end) and rest[:1].isspace():
            word = rest.lstrip()
        else:
            return False
        return option_matcher(self, "topic_heads").match(word, lowered=word.lower()) is not None


def _qualifies_a_noun(topic: str, end: int) -> bool:
    """Does a word of the topic follow a status or date word directly ("Pending invoices", 已完成订单,
    今日推荐, "Monday settlement window")? Then the word most likely qualifies that noun -- a state
    or a day of the domain -- rather than dating the label, which is appended or bracketed
    ("login timeout (done)", 登录超时已修复); such a finding is uncertain. A possessive or 的
    ("today's login bug", 今天的报错) dates the label."""
    rest = topic[end:]
    if not rest or rest.startswith(("'s", "’s", "的")):
        return False
    first = rest[0]
    if has_cjk(first):
        return True
    return first == " " and rest[1:2].isalnum()


# --- L005 ----------------------------------------------------------------------------

# A sentence ends at 。！？!? or at "." followed by a space and a new sentence;
# "e.g. x", "v1.2.0" and "CHANGELOG.md" do not end one.
_SENTENCE_BREAK = re.compile(r"[。！？!?]+(?=\s*\S)|(?<![A-Za-z]\.[a-z])(?<!\b[A-Za-z])\.(?=\s+[A-Z\u3400-\u9fff])|\n\s*\S")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.")


class SceneReason(Rule):
    """``new_scene_reason`` is empty, or longer than one sentence.

    What it does:
        Warns when the reason is blank, holds more than one sentence (a
        sentence break -- 。！？, or a "." followed by a new sentence -- or a
        line break before its end), or is longer than ``max_chars``.

    Why is this bad?
        The reason is the audit trail of why no pool scene fit; it
        should be one sentence. An empty one explains nothing, a paragraph
        is usually a summary of the memories in the wrong field.

    Example:
        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "memory-system｜写入层隔离", "new_scene_reason": "池中没有写入层议题。用户今天讨论了命名空间。还提到了 TTL。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "memory-system｜写入层隔离", "new_scene_reason": "池中只有 L1 提取规则，没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "L005"
    name = "scene-reason"
    target = "scene"
    action = "warn"

    class Options(RuleOptions):
        max_chars: int = 200

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        reason = scene.get("new_scene_reason")
        if not isinstance(reason, str) or "scene_id" in scene:
            return
        text = reason.strip()
        if not text:
            yield Finding("new_scene_reason is empty; say in one sentence why no pool scene fits",
                          path="/new_scene_reason")
            return
        sentences = _count_sentences(text)
        if sentences > 1:
            yield Finding(f"new_scene_reason has {sentences} sentences; keep it to one sentence saying why no "
                          "pool scene fits", path="/new_scene_reason")
        elif len(text) > self.options.max_chars:
            yield Finding(f"new_scene_reason is {len(text)} characters long (more than {self.options.max_chars}); "
                          "keep it to one short sentence", path="/new_scene_reason")


def _count_sentences(text: str) -> int:
    masked = text
    for abbreviation in _ABBREVIATIONS:
        if abbreviation in masked.lower():
            masked = re.sub(re.escape(abbreviation), "x" * len(abbreviation), masked, flags=re.IGNORECASE)
    return 1 + len(_SENTENCE_BREAK.findall(masked))


# --- L006 ----------------------------------------------------------------------------

def _squash(text: str) -> str:
    """``text`` case-folded, without whitespace, ``_``, ``.``, ``-`` and ``/``.

    ``str.split`` and ``str.replace`` instead of a regex substitution: several
    times faster on long Chinese messages (``split()`` drops exactly what
    ``\\s`` matches).
    """
    return "".join(text.casefold().split()).replace("_", "").replace(".", "").replace("-", "").replace("/", "")


class SceneNameUnknownProject(Rule):
    """The project side of ``new_scene_name`` appears nowhere in the batch.

    What it does:
        Warns when the project neither occurs in the text of the batch's
        messages (new or background), nor is one of ``knownProjects``, nor
        is the project of a scene already in the pool. The comparison
        ignores case, spaces, ``-``, ``_``, ``.`` and ``/`` ("Agent Memory"
        matches "agent-memory").

    Why is this bad?
        An extractor must never guess a project (from the working directory,
        a tool name...): a guessed project files the scene under the wrong
        repository.

    Example:
        user: 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "pi-agent｜写入层隔离", "new_scene_reason": "池中没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: memory-system 写入层的命名空间按 proj-{repo}-facts 划分
        ```json
        {"new_scene_name": "memory-system｜写入层隔离", "new_scene_reason": "池中没有写入层议题。",
         "memories": [{"content": "写入层的项目事实写入 proj-{repo}-facts 命名空间。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "L006"
    name = "scene-name-unknown-project"
    target = "scene"
    action = "warn"
    #: Only a new scene's label names a project.
    needs = Needs(fields=("new_scene_name",))

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        name = scene.get("new_scene_name")
        if not isinstance(name, str):
            return
        parts = split_scene_name(name)
        if not parts or not parts[0]:
            return  # L003's business
        project = parts[0]
        key = _squash(project)
        if not key:
            return
        if ctx.memo("L006.projects", lambda: _ProjectEvidence(ctx.batch)).mentions(key):
            return
        yield Finding(f"project {project!r} appears neither in the batch's messages nor in knownProjects; "
                      "name the project the messages point at, or the topic's most telling noun",
                      path="/new_scene_name")


class _ProjectEvidence:
    """The batch's evidence of projects, squashed lazily (one per batch, in ``ctx.memo``).

    ``knownProjects`` and the pool's projects are cheap and answer most
    labels; the messages are squashed one by one, only until one of them
    mentions the project (and each at most once per batch).
    """

    __slots__ = ("known", "_texts", "_squashed")

    def __init__(self, batch: Any):
        self.known = {_squash(p) for p in batch.known_projects}
        for label in batch.pool.values():
            parts = split_scene_name(label)
            if parts and parts[0]:
                self.known.add(_squash(parts[0]))
        self._texts = [m.content for m in (*batch.messages, *batch.background)]
        self._squashed: list[str] = []

    def mentions(self, key: str) -> bool:
        """``key`` (squashed) is a known project or occurs in a message's squashed text."""
        if key in self.known or any(key in text for text in self._squashed):
            return True
        while len(self._squashed) < len(self._texts):
            text = _squash(self._texts[len(self._squashed)])
            self._squashed.append(text)
            if key in text:
                return True
        return False
