"""S -- shape: does the answer parse, and does it follow the contract?

The parse-stage rules (S001, S002, S003, S004, S010, S011) look at the
:class:`~memvet.parse.ParseResult`; the scene rules look at one scene. The
scene rules run on every scene and are fine on almost all of them, so their
``check()`` returns ``()`` or a list instead of creating a generator.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from memvet.contract import schema_errors
from memvet.parse import ParseResult
from memvet.rule import Finding, Rule

NEW_FORM = ("new_scene_name", "new_scene_reason")


class OutputNotJson(Rule):
    """No JSON array can be recovered from the raw answer.

    What it does:
        Fails when the text is empty, holds no JSON at all, or stops before
        its array, an object or a string is closed (a truncated answer).

    Why is this bad?
        Nothing in it can be checked or committed; the batch must be asked
        again.

    Example:
        ```text
        [{"scene_id": "sc0003", "message_ids": ["m1"], "memories": [{"content": "登录接口
        ```

    Use instead:
        ```text
        []
        ```
    """

    code = "S001"
    name = "output-not-json"
    target = "parse"
    action = "reject"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        if not result.ok:
            yield Finding(result.error or "no JSON array can be recovered from the output")


class OutputWrapped(Rule):
    """The JSON came inside a markdown fence or surrounded by prose.

    What it does:
        Unwraps it: the fenced block, or the array inside the prose, is what
        the rest of memvet checks. Safe fix.

    Why is this bad?
        The contract asks for the array alone; a pipeline that calls
        ``json.loads`` on the raw text would fail.

    Example:
        ````text
        Here are the memories:
        ```json
        []
        ```
        ````

    Use instead:
        ```text
        []
        ```
    """

    code = "S002"
    name = "output-wrapped"
    target = "parse"
    action = "fix"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        if result.unwrapped == "fence":
            yield Finding("the JSON was wrapped in a markdown code fence; unwrapped (no patch: the raw text changed, not the JSON)")
        elif result.unwrapped == "prose":
            yield Finding("the JSON was surrounded by prose; the array was extracted (no patch: the raw text changed, not the JSON)")


class OutputNotArray(Rule):
    """The answer is valid JSON but not an array of scenes.

    What it does:
        Fails when the top-level value is an object, a string, a number...

    Why is this bad?
        The contract's root is an array; an empty result is ``[]``.

    Example:
        ```text
        {"scenes": []}
        ```

    Use instead:
        ```text
        []
        ```
    """

    code = "S003"
    name = "output-not-array"
    target = "parse"
    action = "reject"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        if result.ok and not isinstance(result.value, list):
            yield Finding(f"the top-level value is {_json_type(result.value)}, not an array of scenes")


class Schema(Rule):
    """The answer breaks the JSON Schema of the contract.

    What it does:
        Validates against ``schemas/extraction-output.schema.json`` and
        reports one violation per error at its JSON Pointer: a missing field
        at the pointer where it belongs, each unknown field at its own.

    Why is this bad?
        Downstream code reads these fields by name and type.

    Example:
        user: The CI cache key must include the lockfile hash.
        ```json
        {"content": "The CI cache key includes the lockfile hash.", "type": "note", "priority": 80}
        ```

    Use instead:
        user: The CI cache key must include the lockfile hash.
        ```json
        {"content": "The CI cache key includes the lockfile hash.", "type": "work_fact", "priority": 80}
        ```
    """

    code = "S004"
    name = "schema"
    target = "parse"
    action = "reject"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        if result.ok and isinstance(result.value, list):
            for pointer, message in schema_errors(result.value):
                yield Finding(message, path=pointer)


class EmptyScene(Rule):
    """A scene without memories.

    What it does:
        Removes the scene. Safe fix.

    Why is this bad?
        Scenes exist to group memories; an empty one only adds noise to the
        scene pool.

    Example:
        user: 构建缓存的事晚点再说
        ```json
        [{"new_scene_name": "demo｜构建缓存", "new_scene_reason": "池中没有构建议题", "message_ids": ["m1"], "memories": []}]
        ```

    Use instead:
        ```json
        []
        ```
    """

    code = "S005"
    name = "empty-scene"
    target = "scene"
    action = "fix"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if scene["memories"]:
            return ()
        return [Finding("the scene has no memories; removed", fix=[{"op": "remove", "path": ""}])]


class SceneMixedForms(Rule):
    """A scene is both a reuse (``scene_id``) and a new scene.

    What it does:
        Fails when ``scene_id`` comes with ``new_scene_name`` or
        ``new_scene_reason``.

    Why is this bad?
        The two forms are exclusive; memvet cannot know which one the model
        meant, so the scene must be asked again.

    Example:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取的 prompt 必须要求模型逐字复制 scene_id
        ```json
        {"scene_id": "sc0003", "new_scene_name": "memory-system｜写入层", "new_scene_reason": "池中没有写入层议题",
         "memories": [{"content": "L1 提取 prompt 要求模型逐字复制 scene_id。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取的 prompt 必须要求模型逐字复制 scene_id
        ```json
        {"scene_id": "sc0003",
         "memories": [{"content": "L1 提取 prompt 要求模型逐字复制 scene_id。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "S006"
    name = "scene-mixed-forms"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if "scene_id" not in scene:
            return ()
        return [Finding(f"scene_id comes with {key}: a scene is either reused or new, never both", path=f"/{key}")
                for key in NEW_FORM if key in scene]


class SceneIncompleteNew(Rule):
    """A new scene with only one of its two fields.

    What it does:
        Fails when ``new_scene_name`` comes without ``new_scene_reason``, or
        the reverse (and no ``scene_id``).

    Why is this bad?
        A new scene needs both its stable label and the one-line audit reason
        why no pool scene fits.

    Example:
        user: Billing API retries must back off exponentially, capped at 30 s.
        ```json
        {"new_scene_name": "Billing API｜timeout retries",
         "memories": [{"content": "Billing API retries back off exponentially, capped at 30 s.", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: Billing API retries must back off exponentially, capped at 30 s.
        ```json
        {"new_scene_name": "Billing API｜timeout retries", "new_scene_reason": "No pool scene covers Billing API retries.",
         "memories": [{"content": "Billing API retries back off exponentially, capped at 30 s.", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "S007"
    name = "scene-incomplete-new"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if "scene_id" in scene:
            return ()
        has_name, has_reason = "new_scene_name" in scene, "new_scene_reason" in scene
        if has_name and not has_reason:
            return [Finding("new_scene_name without new_scene_reason", path="/new_scene_reason")]
        if has_reason and not has_name:
            return [Finding("new_scene_reason without new_scene_name", path="/new_scene_name")]
        return ()


class SceneNameOnReuse(Rule):
    """A reused scene carries ``scene_name``.

    What it does:
        Removes ``scene_name``; the pipeline fills it from the pool. Safe fix.

    Why is this bad?
        A copied name can drift from the pool's label and fork the scene.

    Example:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取结果里 taskState 只允许 open、done、dropped
        ```json
        {"scene_id": "sc0003", "scene_name": "memory-system｜L1 提取规则",
         "memories": [{"content": "L1 提取结果的 taskState 只取 open、done、dropped。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取结果里 taskState 只允许 open、done、dropped
        ```json
        {"scene_id": "sc0003",
         "memories": [{"content": "L1 提取结果的 taskState 只取 open、done、dropped。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "S008"
    name = "scene-name-on-reuse"
    target = "scene"
    action = "fix"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if "scene_name" not in scene or "scene_id" not in scene:
            return ()
        return [Finding("a reused scene must not carry scene_name (the pipeline fills it from the pool); removed",
                        path="/scene_name", fix=[{"op": "remove", "path": "/scene_name"}])]


class SceneUnclassified(Rule):
    """A scene that is neither a reuse nor a new scene.

    What it does:
        Counts it, as a warning: the contract allows it when the model truly
        cannot tell, and the pipeline marks it unclassified.

    Why is this bad?
        It is not, by itself; many of them in a batch hint at a weak prompt.

    Example:
        user: 登录流程的回调地址必须走 HTTPS
        ```json
        {"memories": [{"content": "登录流程的回调地址只走 HTTPS。", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        user: 登录流程的回调地址必须走 HTTPS
        ```json
        {"new_scene_name": "demo｜登录流程", "new_scene_reason": "池为空，新建情境。",
         "memories": [{"content": "登录流程的回调地址只走 HTTPS。", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "S009"
    name = "scene-unclassified"
    target = "scene"
    action = "warn"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if "scene_id" in scene or "scene_name" in scene or "new_scene_name" in scene or "new_scene_reason" in scene:
            return ()
        return [Finding("the scene is neither reused nor new; it will be stored as unclassified")]


class JsonRepaired(Rule):
    """The JSON parsed only after a lenient repair.

    What it does:
        Removes trailing commas, escapes raw control characters inside
        strings and quotes bare words where a value belongs (so the schema
        can then point at the field). Each repair is one violation at the
        pointer where it was made.

    Why is this bad?
        Strict JSON parsers in the pipeline would reject the raw text.

    Example:
        ```text
        [{"message_ids": ["m1",], "memories": [{"content": "x", "type": "work_fact", "priority": high, "source_message_ids": ["m1"]}]}]
        ```

    Use instead:
        ```text
        [{"message_ids": ["m1"], "memories": [{"content": "x", "type": "work_fact", "priority": 80, "source_message_ids": ["m1"]}]}]
        ```
    """

    code = "S010"
    name = "json-repaired"
    target = "parse"
    action = "fix"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        if result.ok:
            for repair in result.repairs:
                yield Finding(f"{repair.detail} ({repair.kind}; no patch: the raw text was repaired before it parsed)",
                              path=repair.path)


class InvalidText(Rule):
    """Text that is not valid Unicode, or not printable as such.

    What it does:
        Finds lone surrogates (``\\ud800`` in JSON), NUL and other control
        characters (all but tab, newline and carriage return) and bytes that
        are not UTF-8, in every key and value at any depth. Each is replaced
        with U+FFFD before any other rule runs, and reported at the pointer
        of its string. Fix: safe.

    Why is this bad?
        Such text cannot be encoded: printing the report, writing SARIF or a
        GitHub annotation, or committing the record to the store would fail
        on it, or store a string that other tools cut at the NUL.

    Example:
        ```text
        [{"new_scene_name": "auth-service｜登录", "new_scene_reason": "池中没有登录议题", "message_ids": ["m1"], "memories": [{"content": "登录接口超时\\u0000\\ud800", "type": "work_fact", "priority": 80, "source_message_ids": ["m1"]}]}]
        ```

    Use instead:
        ```text
        [{"new_scene_name": "auth-service｜登录", "new_scene_reason": "池中没有登录议题", "message_ids": ["m1"], "memories": [{"content": "登录接口超时", "type": "work_fact", "priority": 80, "source_message_ids": ["m1"]}]}]
        ```
    """

    code = "S011"
    name = "invalid-text"
    target = "parse"
    action = "fix"

    def check(self, result: ParseResult, ctx: Any) -> Iterator[Finding]:
        for pointer, what in result.invalid_text:
            yield Finding(f"replaced {what} with U+FFFD", path=pointer)


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__
