"""Batch facts (memvet.batchfacts): what each message does, computed once per batch."""

from __future__ import annotations

import json

import pytest

import memvet
from memvet import batchfacts
from memvet.batchfacts import FactsOptions, compute
from memvet.config import config_from_dict
from memvet.context import load_context
from memvet.errors import ConfigError


def batch(*lines: str):
    messages = []
    for n, line in enumerate(lines, 1):
        role, _, text = line.partition(": ")
        messages.append({"id": f"m{n}", "sessionKey": "s", "role": role, "content": text,
                         "timestamp": 1_795_831_200_000 + n * 60_000})
    return {"messages": messages, "scenePool": [{"id": "sc0001", "label": "shop-api｜订单导出"}]}


def acts(*lines: str) -> list[list[str]]:
    return [sorted(f.acts) for f in compute(load_context(batch(*lines))).messages]


@pytest.mark.parametrize("text", ["确定", "好的，就这样", "可以", "ok", "Yes, go ahead.", "do 1", "sounds good",
                                  "はい、それでお願いします", "Tak, zrób to.", "Да, давай так и сделаем",
                                  "Sí, adelante", "Perfeito, pode fazer", "Ja, passt so", "Oui, vas-y"])
def test_user_accepts(text):
    assert "accepts" in acts(f"user: {text}")[0]


@pytest.mark.parametrize("text", ["不对，应该用订单号", "You got it wrong, revert it.", "No, that's wrong.",
                                  "違うって、ライブだとFPSを取得して再生しろ", "Nie, źle: nadal generujesz pliki md.",
                                  "Eso no, está mal: usa el id del pedido", "Não, está errado, volta como estava",
                                  "Nein, das ist falsch", "Non, c'est faux : garde les offsets",
                                  # a Japanese decline ("no, no need to fix it"), like 不用
                                  "いや、直さなくてもいいと思います。動作には問題ないので"])
def test_user_rejects_and_is_no_acceptance(text):
    found = acts(f"user: {text}")[0]
    assert "rejects" in found and "accepts" not in found


def test_a_word_that_starts_like_an_acceptance_is_none():
    # даже ("even") starts with да ("yes"): Cyrillic words match on word boundaries
    assert "accepts" not in acts("user: Даже после перезапуска индекс не очищается")[0]
    # "Simplemente" and "Japan" start like sí / ja; "Zimmer" holds immer (always): whole words only
    assert "accepts" not in acts("user: Simplemente no arranca después del cambio de puerto en el servidor")[0]
    assert "states" not in acts("user: Das Zimmer-Modul lädt nicht")[0]
    # German "ja" is Polish "I": only "ja," (a yes with its comma) accepts
    assert "accepts" not in acts("user: Ja bym wolał inną nazwę dla tego modułu, bo ta myli się z API")[0]


def test_a_long_message_that_only_contains_ok_is_not_an_acceptance():
    found = acts("user: The export is ok for small shops but it times out for anyone with more than 10k orders")[0]
    assert "accepts" not in found


@pytest.mark.parametrize("text, act", [
    ("分页怎么做比较好？", "asks"), ("How do I use npm version?", "asks"),
    ("以后所有列表接口都用游标分页", "states"), ("I prefer git mv over mv so history is kept.", "states"),
    ("演示完再说，先把验证码关掉", "temporary"), ("Turn the cache off for the demo.", "temporary"),
    ("とりあえずキャッシュを切っておいて", "temporary"), ("Na razie wyłącz cache.", "temporary"),
    ("今後は必ず uv を使って", "states"), ("Zapamiętaj: zawsze sprawdzaj projekt memory.", "states"),
    ("Всегда повышай версию перед сборкой", "states"), ("Tạm thời tắt cache đi", "temporary"),
    ("нужно сбросить настройки, но не удалять свои правила", "states"),
    ("De ahora en adelante usa siempre pnpm", "states"), ("Quero que os testes usem sempre o banco real", "states"),
    ("Ab jetzt bitte immer uv verwenden", "states"), ("Il faut toujours garder la caméra attachée", "states"),
    ("Desactiva la caché por ahora", "temporary"), ("Desliga o cache por enquanto", "temporary"),
    ("Schalte den Cache vorerst ab", "temporary"), ("Coupe le cache pour l'instant", "temporary"),
])
def test_user_message_acts(text, act):
    assert act in acts(f"user: {text}")[0]


@pytest.mark.parametrize("text", [
    "以后改配置文件之前，你必须先不动代码，把要改的字段逐项列出来，我确认后再动手",  # the order of a rule's steps
    "修改接口前应先不合并，等评审通过",
])
def test_a_first_step_of_a_rule_is_not_temporary(text):
    assert "temporary" not in acts(f"user: {text}")[0]


def test_a_first_step_beside_a_change_for_now_is_temporary():
    assert "temporary" in acts("user: 必须先不动代码；另外 tsconfig 先不改，发版后再说")[0]


@pytest.mark.parametrize("text, act", [
    ("我建议用方案二，你倾向哪个？", "proposes"), ("I'd suggest SSE. Shall I switch it?", "proposes"),
    ("已完成导出接口的改造。", "reports_done"), ("I've updated the config and committed it.", "reports_done"),
    ("已执行 git fetch --all 和 git reset --hard origin/main。请确认是否继续下一阶段？", "reports_done"),
    ("Сделано. Версия 0.2.0, CHANGELOG обновлён.", "reports_done"), ("He actualizado el README.", "reports_done"),
    ("Te sugiero usar SSE. ¿Quieres que lo cambie?", "proposes"), ("Je propose de passer à SSE.", "proposes"),
    ("Creating a reverse geocoding validation script to verify coordinates.", "reports_done"),  # Cursor's agent
    ("正在更新 README 中的安装说明。", "reports_done"),
])
def test_assistant_message_acts(text, act):
    assert act in acts(f"assistant: {text}")[0]


def test_assistant_file_blocks_are_writes_with_their_paths_and_text():
    aider = "assistant: Here are the edits:\n\n```markdown\ndocs/CONVENTIONS.md\n<<<<<<< SEARCH\n=======\n- Use tabs\n>>>>>>> REPLACE\n```"
    specstory = ("assistant: I'll create the tests.\n\n### [undo.test.js](file:///home/u/p/src/undo.test.js)\n\n"
                 "Create a test suite.\n\n````javascript\nimport { it } from 'vitest'\n…[cut]")
    example = "assistant: Run it like this:\n\n```bash\nnpm version patch\n```"
    f1, f2, f3 = compute(load_context(batch(aider, specstory, example))).messages
    assert f1.files_written == ("docs/CONVENTIONS.md",) and "Use tabs" in f1.written and "writes" in f1.acts
    assert f2.files_written == ("/home/u/p/src/undo.test.js",) and "vitest" in f2.written  # an unclosed (cut) fence
    assert f3.files_written == () and f3.written == "" and "writes" not in f3.acts           # an example, not a file


def test_aider_path_line_above_a_search_replace_block_names_the_file_written():
    # newer aider puts the path on its own line above the fence
    text = ("assistant: I'll rename it.\n\nsrc/index.ts\n```typescript\n<<<<<<< SEARCH\n  private extract()\n"
            "=======\n  private derive()\n>>>>>>> REPLACE\n```")
    prose = "assistant: The helper lives in src/index.ts; it looks like this\n\n```typescript\nfunction f() {}\n```"
    f1, f2 = compute(load_context(batch(text, prose))).messages
    assert f1.files_written == ("src/index.ts",) and "writes" in f1.acts
    assert f2.files_written == () and "writes" not in f2.acts  # a sentence naming a file is not a file's head


def test_a_tool_message_that_is_only_a_diff_is_an_edit():
    # SpecStory shows a Cursor edit's result as a bare diff block; `git diff` output is a reading
    edit = "tool: ```diff\n  # falloff is inlined\n\n+ MAX_DELTA_E = 0.2\n\n  @njit\n```"
    context_only = "tool: ```diff\n  # falloff is inlined\n  @njit\n```"
    git_diff = "tool: Run command: git diff\n```diff\n+ MAX_DELTA_E = 0.2\n```"
    f1, f2, f3 = compute(load_context(batch(edit, context_only, git_diff))).messages
    assert "writes" in f1.acts
    assert "writes" not in f2.acts and "writes" not in f3.acts


def test_a_tool_header_names_what_the_call_did():
    # Claude Code, Codex and Copilot exports name the tool; their lines often carry no verb
    edit = ("tool: Tool use: **Edit**\n\n```text\nThe file D:\\site\\.github\\workflows\\deploy.yml has been "
            "updated successfully.\n```")
    read = "tool: Tool use: **Read**\n `src/app/config.py`\n\n```text\n1\timport os\n```"
    bash = ("tool: Tool use: **Bash**\nCommit and push\n\n```bash\ncd \"D:/site\" && git add deploy.yml && "
            "git commit -m \"Auto-deploy\"\n```")
    shell = "tool: Tool use: **shell_command** `ls packages`\n```\nExit code: 0\nOutput:\ncore\n```"
    grep = "tool: Tool use: **ripgrep_raw_search**\n`TODO` in src/app/config.py"
    f1, f2, f3, f4, f5 = compute(load_context(batch(edit, read, bash, shell, grep))).messages
    assert "writes" in f1.acts and f1.files_written == ("D:\\site\\.github\\workflows\\deploy.yml",)
    assert "reads" in f2.acts and f2.files_read == ("src/app/config.py",) and "writes" not in f2.acts
    assert "runs" in f3.acts and "writes" in f3.acts  # a git commit behind "cd … &&" is a write
    assert f4.commands == ("ls packages",) and "writes" not in f4.acts
    assert f5.acts == frozenset()  # a tool the lists do not name: no act guessed


def test_an_edit_shown_only_as_its_diff_is_file_text():
    edit = "tool: ```diff\n+ MAX_DELTA_E = 0.2\n```"
    run = "tool: Run command: git diff\n```diff\n+ MAX_RUN = 3\n```"
    context = load_context(batch(edit, run))
    text = batchfacts.file_text(compute(context), context)
    assert "MAX_DELTA_E" in text and "MAX_RUN" not in text


def test_a_run_tool_command_cut_with_the_message_is_still_its_command():
    # the converter cuts tool messages at 600 characters, often inside the command's block
    text = "tool: Tool use: **Bash**\nCommit and push\n\n```bash\ncd /repo && git commit -m \"$(cat <<'EOF'\nFix `x`…[cut]"
    f = compute(load_context(batch(text))).messages[0]
    assert f.commands and f.commands[0].startswith("cd /repo && git commit") and "writes" in f.acts


def test_tool_names_are_config_options():
    cfg = config_from_dict({"facts": {"write_tools": ["patch_it"]}})
    text = "tool: Tool use: **patch_it**\n```\nok\n```"
    assert "writes" in compute(load_context(batch(text)), cfg.facts).messages[0].acts
    assert "writes" not in compute(load_context(batch(text))).messages[0].acts


def test_git_push_output_names_the_commit_pushed():
    text = ("tool: Run command: git push origin main\n```\nTo https://github.com/o/r.git\n"
            "   347fb68..f05bae9  main -&gt; main\n```")
    assert compute(load_context(batch(text))).messages[0].commits == ("f05bae9",)


def test_tool_message_facts():
    text = ("tool: Tool use: **grep** • Grep for \"pc_range\" in \"/home/u/MapTR/configs/base.py\" • 68 matches\n"
            "Applied edit to packages\\es\\src\\index.ts\nCommit 9bb94e7 refactor: regroup exports\n"
            "Run command: npm test\nTests: 155 passed, 155 total\nLocal: http://localhost:5173/")
    f = compute(load_context(batch(text))).messages[0]
    assert f.files_read == ("/home/u/MapTR/configs/base.py",)
    assert f.files_written == ("packages\\es\\src\\index.ts",)
    assert f.commits == ("9bb94e7",)
    assert f.commands == ("npm test",)
    assert any("155" in t for t in f.tests)
    assert {"155", "5173", "68"} <= f.numbers
    assert {"reads", "writes", "runs"} <= f.acts


def test_answer_after_a_proposal_is_the_next_user_message_of_its_session():
    b = load_context(batch("assistant: 建议用游标分页。", "tool: ok", "user: 确定", "user: 再加个导出"))
    facts = compute(b)
    answer = facts.user_answer_after(b.messages[0])
    assert answer is not None and answer.key == ("s", "m3") and "accepts" in answer.acts


def test_facts_are_computed_once_per_batch_for_every_rule(monkeypatch):
    calls = []
    real = batchfacts.compute
    monkeypatch.setattr(batchfacts, "compute", lambda b, o=None: calls.append(1) or real(b, o))
    context = batch("user: commit it",
                    "tool: Applied edit to src/a.ts\nexports grouped by prefix, groups sorted alphabetically",
                    "assistant: I've committed the change.")
    memories = [{"content": f"Exports of src/a.ts grouped by prefix{', groups sorted alphabetically' * (n % 2)}.",
                 "type": "work_fact", "priority": 75, "source_message_ids": ["m2", "m3"]} for n in range(5)]
    answer = [{"scene_id": "sc0001", "message_ids": ["m1", "m2", "m3"], "memories": memories}]
    report = memvet.validate(json.dumps(answer), context)
    assert len(calls) == 1
    assert any(v.code in ("G001", "G003") for v in report.violations)


def test_word_lists_are_config_options():
    cfg = config_from_dict({"facts": {"accept": ["冲"]}})
    assert cfg.facts.accept == ["冲"]
    found = compute(load_context(batch("user: 冲")), cfg.facts).messages[0]
    assert "accepts" in found.acts
    assert "accepts" not in compute(load_context(batch("user: 确定")), cfg.facts).messages[0].acts


def test_unknown_facts_key_is_a_config_error():
    with pytest.raises(ConfigError) as err:
        config_from_dict({"facts": {"acept": ["好"]}}, source="memvet.toml")
    assert "facts" in str(err.value) and "memvet.toml" in str(err.value)


def test_defaults_have_both_languages():
    o = FactsOptions()
    for name in type(o).model_fields:
        if name.endswith("_tools"):
            continue  # tool names are identifiers, not words of a language
        words = getattr(o, name)
        assert any(any("\u4e00" <= c <= "\u9fff" for c in w) for w in words), name
        assert any(w.isascii() for w in words), name


def test_tool_error_lines_are_facts():
    [_, tool] = compute(load_context(batch("user: start it", "tool: aider chat started\n"
                                           "litellm.BadRequestError: LLM Provider NOT provided. Pass in the provider\n"
                                           "Input length 173821 exceeds the maximum length 131072.\nDone."))).messages
    assert tool.errors == ("litellm.BadRequestError: LLM Provider NOT provided. Pass in the provider",
                           "Input length 173821 exceeds the maximum length 131072.")


def test_a_question_mark_in_an_unread_script_is_not_taken_to_only_ask():
    # Thai "... ทำได้ไหม?" (can you do it?) ends a request with a question mark: without words to
    # tell a request from a question, the message does not count as only asking
    assert "asks" not in acts("user: ฉันแค่ต้องการให้ทุกอย่างที่คุยใน Sanook CLI ไปอยู่ใน Second Brain ด้วย คุณสามารถทำได้ไหม?")[0]
    # near miss: the same mark in a script memvet reads still asks
    assert "asks" in acts("user: 能把所有对话都存进 Second Brain 吗？")[0]
    assert "asks" in acts("user: Can everything I say in Sanook CLI go into the Second Brain?")[0]
