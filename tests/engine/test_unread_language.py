"""A rule that reads prose (``Rule.reads_prose``) only warns on a memory in a language its lists do not read."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loopback import LoopbackServer, Reply, client_for, dumps
from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.extractor.judge import Judge, JudgePlugin
from memvet.hookspecs import hookimpl
from memvet.registry import build_registry
from memvet.rule import Finding, Rule
from memvet.rules._coverage import READ_LANGUAGES, unread_language
from rule_sections import SECTIONS

FRENCH = "Les journaux sont écrits dans le dossier logs et ils sont gardés pendant une semaine avec la date du jour."
ENGLISH = "The logs are written to the logs folder and they are kept for a week with the date of the day."


class NoReason(Rule):
    __doc__ = 'Test rule: drops a memory that holds no "because" (a judgment by a missing word).\n' + SECTIONS
    code = "TUL001"
    name = "no-reason"
    target = "memory"
    action = "drop"
    reads_prose = True

    def check(self, memory, ctx):
        if "because" not in memory["content"]:
            yield Finding("names no reason", path="/content")


class NoReasonBlind(NoReason):
    __doc__ = "Test rule: the same judgment, from a rule that does not say it reads prose.\n" + SECTIONS
    code = "TUL002"
    name = "no-reason-blind"
    reads_prose = False


class Plugin:
    __name__ = "unread-language-test"

    @hookimpl
    def memvet_rules(self):
        return [NoReason, NoReasonBlind]


def run(content, config=None):
    context = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": content,
                             "timestamp": 1_795_831_200_000}],
               "scenePool": [{"id": "sc0001", "label": "demo｜logs"}]}
    memory = {"content": content, "type": "work_fact", "priority": 80, "source_message_ids": ["m1"]}
    answer = json.dumps([{"scene_id": "sc0001", "message_ids": ["m1"], "memories": [memory]}], ensure_ascii=False)
    cfg = config_from_dict({"select": ["TUL"], **(config or {})})
    return Engine(cfg, registry=build_registry(plugins=(Plugin(),))).validate(answer, context)


def test_a_prose_rule_only_warns_on_an_unread_language_and_says_why():
    report = run(FRENCH)
    by_code = {v.code: v for v in report.violations}
    assert (by_code["TUL001"].action, by_code["TUL001"].confidence) == ("warn", "low")
    assert "French" in by_code["TUL001"].message
    # a rule that does not read prose keeps its action: the guard is declared, not guessed
    assert (by_code["TUL002"].action, by_code["TUL002"].confidence) == ("drop", "high")
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["TUL002"]}]


def test_a_read_language_keeps_the_rules_action():
    report = run(ENGLISH)
    assert [(v.code, v.action, v.confidence) for v in report.violations] == [
        ("TUL001", "drop", "high"), ("TUL002", "drop", "high")]


def test_low_confidence_keep_and_a_configured_action_apply_the_action():
    assert run(FRENCH, {"low_confidence": "keep"}).violations[0].action == "drop"
    assert run(FRENCH, {"actions": {"TUL001": "drop"}}).violations[0].action == "drop"


@pytest.mark.parametrize("text, language", [
    (FRENCH, "French"),
    ("Die Protokolle werden im Ordner logs gespeichert und sind nach einer Woche nicht mehr da.", "German"),
    ("I log vengono scritti nella cartella logs e sono conservati per una settimana perché il disco è piccolo.",
     "Italian"),
    ("Günlükler logs klasörüne yazılır ve bir hafta sonra silinir, çünkü disk çok küçük.", "Turkish"),
    # few free function words (Turkish suffixes its modals), but its own letters: ı, ğ, ş
    ("Servis katmanları Prisma client'ı doğrudan kullanmamalı; erişim repository sınıflarında toplanmalı.",
     "Turkish"),
    ("Log disimpan di folder logs dan dihapus setelah satu minggu karena disknya kecil.", "Indonesian"),
    # Cyrillic languages Russian's lists do not read: by their own letters (і, ї, є; ј, љ) and, for
    # Ukrainian, its function words (повинен, треба, або), which many of its sentences hold alone
    ("Логи пишуться в теку logs і зберігаються тиждень, бо диск малий.", "Ukrainian"),
    ("Бот не повинен спамити при запуску.", "Ukrainian"),
    ("Telegram надсилає фото з типом application/octet-stream, тому треба визначати тип за розширенням.",
     "Ukrainian"),
    ("Евиденција се чува у фасцикли logs једну недељу.", "Serbian"),
    ("로그는 logs 폴더에 저장되고 일주일 동안 보관된다.", "Korean"),
    ("יומני הרישום נשמרים בתיקייה logs למשך שבוע.", "Hebrew"),
    ("تُحفظ السجلات في مجلد logs لمدة أسبوع.", "Arabic"),
])
def test_unread_languages(text, language):
    assert language not in READ_LANGUAGES
    assert unread_language(text) == language


@pytest.mark.parametrize("text", [
    ENGLISH,
    "日志写在 logs 目录，保留一周，因为磁盘很小。",
    "ログは logs フォルダに一週間保存される。",
    "Логи пишутся в папку logs и хранятся неделю.",
    "Используй uv вместо pip.",
    # a Ukrainian name in a Russian sentence, and a Ukrainian word in a longer one
    "Сервис «Київ Цифровий» пишет логи в папку logs и хранит их неделю, потому что диск маленький.",
    "Логи сервиса лежат в папке logs, а конфиг в config.yaml; перед деплоем нужно прогнать все міграції.",
    "Los registros se guardan en la carpeta logs durante una semana porque el disco es pequeño.",
    "Nhật ký được ghi vào thư mục logs và được giữ trong một tuần.",
    # an English sentence around a French title, and a Korean name in an English sentence
    'The "Journal de bord" extension writes its logs to the logs folder.',
    "The 로그 viewer reads the logs folder that the extension writes every time it starts up.",
    # a Turkish name or two in an English sentence
    "The Kayıt Defteri service writes to the logs folder of Şirket every time it starts up.",
    # code and URLs are no prose
    "Run `le script et les tests dans le dossier` before a release.",
    "",
])
def test_read_or_undecided(text):
    assert unread_language(text) is None


def test_the_judge_is_asked_about_a_method_in_an_unread_language():
    verdict = {"stripping": True, "one_time": True, "provenance": True, "method": True, "reason": "règle"}  # passes
    method = ("Les journaux de l'extension sont dans le dossier Exports/logs et ils sont écrits à chaque démarrage "
              "avec la date du jour.")
    context = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": "où sont les journaux ?",
                             "timestamp": 1_795_831_200_000}],
               "scenePool": [{"id": "sc0001", "label": "demo｜journaux"}]}
    memory = {"content": method, "type": "work_method", "priority": 80, "source_message_ids": ["m1"],
              "metadata": {"scope": "self", "method_type": "sop"}}
    answer = json.dumps([{"scene_id": "sc0001", "message_ids": ["m1"], "memories": [memory]}], ensure_ascii=False)
    with LoopbackServer([Reply(dumps(verdict))]) as server:
        judge = Judge(client_for(server, retries=0, timeout=1))
        cfg = config_from_dict({"select": ["M001", "JDG"]})
        report = Engine(cfg, registry=build_registry(plugins=(JudgePlugin(judge),))).validate(answer, context)
        asked = len(server.requests)
    # M001 found no modal it can read; French is not read, so it only warns -- and the judge is asked
    assert asked == 1
    m001 = [v for v in report.violations if v.code == "M001"]
    assert [(v.action, v.confidence) for v in m001] == [("warn", "low")] and "French" in m001[0].message
    assert report.output[0]["memories"][0]["type"] == "work_method"  # not downgraded


@given(st.one_of(st.text(), st.none(), st.integers(), st.lists(st.text(max_size=5), max_size=3)))
@settings(max_examples=300, deadline=None)
def test_any_content_reads_as_a_language_or_none(content):
    # the engine asks this of whatever a memory's content is (an LLM answer may hold anything there)
    found = unread_language(content)
    assert found is None or (isinstance(found, str) and found not in READ_LANGUAGES)
