"""Which languages memvet's word lists read, and whether a memory is written in one of them.

The method rules (M001-M005) judge a method by the words it holds *and the
words it lacks*: a method with no modal, imperative or condition is no rule
(M001). A missing word is evidence only in a language the lists hold.
Written in French or Korean, the best-put rule lacks every listed "must",
and M001 would downgrade it for words it cannot read -- which is what every
held-out round in a new language showed (rounds 25-29: M001 downgraded a
fifth of the good methods until that language's words were added; on the
French, Turkish and German sessions, 16 of its 19 findings there were on
methods the reviewer kept). The G gates are not such rules: their findings
rest first on who said a memory and what the batch shows, and held there.

So a rule that reads prose through word lists says so (``Rule.reads_prose``),
and the engine lowers its findings on a memory written in another language
to low-confidence warnings: the finding stays in the report, named as
uncertain and why, and it is what the LLM judge is asked about. Nothing is
switched off; a rule that reads the language keeps its say once the
language's words are added to its lists and the language to
:data:`READ_LANGUAGES`.

>>> unread_language("Ce paramètre doit rester désactivé parce que le serveur de test ne le supporte pas.")
'French'
>>> unread_language("배포 전에 반드시 마이그레이션을 먼저 실행해야 한다.")
'Korean'
>>> unread_language("Servis katmanları Prisma client'ı doğrudan kullanmamalı; erişim repository sınıflarında toplanmalı.")
'Turkish'
>>> unread_language("Не запускай бота після кожної задачі: чекай, поки користувач сам його перевірить.")
'Ukrainian'
>>> unread_language("Run migrations before the deploy, because the new code reads the new columns.") is None
True
>>> unread_language("部署前必须先跑迁移，因为新代码读新列。") is None
True
"""

from __future__ import annotations

import re

from memvet.rules import _latin
from memvet.rules._langdetect import strip_code
from memvet.rules._scripts import CJK_CHARS, WORD_LETTERS, letter_words

#: The languages whose words the value and method word lists hold (Chinese in both scripts;
#: Japanese through its kana and kanji). Add a language here once its words are in the lists.
READ_LANGUAGES = frozenset({
    "English", "Chinese", "Japanese", "Portuguese", "Spanish", "Polish", "Vietnamese", "Russian"})

#: Scripts that write a language the lists do not hold, by the language memvet names in its message.
_SCRIPTS = {
    "Korean": "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f",
    "Arabic": "\u0600-\u06ff\u0750-\u077f",
    "Hebrew": "\u0590-\u05ff",
    "Thai": "\u0e00-\u0e7f",
    "Hindi": "\u0900-\u097f",
    "Greek": "\u0370-\u03ff",
}
_UNREAD_SCRIPT = re.compile("|".join(f"(?P<{name}>[{chars}]+)" for name, chars in _SCRIPTS.items()))
#: The letters of the scripts that are read: Latin (with accents), Cyrillic, CJK.
_READ_LETTERS = re.compile(f"[{WORD_LETTERS}{CJK_CHARS}]")

#: A word with a letter only Turkish (and its neighbours Azerbaijani and Romanian) writes: dotless ı,
#: ğ, ş. Turkish glues its modals and particles onto the word ("toplanmalı", "kullanmamalı": must be
#: gathered, must not use), so it holds few free function words; these letters say it plainly.
_TURKISH_LETTER = re.compile("[ıİğĞşŞ]")


def _turkish_words(prose: str) -> int:
    """How many words of ``prose`` carry a letter only Turkish writes (linear: a regex that looked
    for the letter inside a word would backtrack over every long run of letters)."""
    if _TURKISH_LETTER.search(prose) is None:
        return 0
    return sum(1 for word in letter_words(prose) if _TURKISH_LETTER.search(word))


#: Cyrillic languages the lists do not read, by letters Russian never writes. Russian is read
#: (its words are in the lists); Ukrainian shares its script but not its function words: "треба",
#: "слід", "не варто", "повинен" are its "must" and "should", none of which a Russian list holds
#: (session 28: M001 downgraded seven of a Ukrainian session's nine well-formed methods).
_CYRILLIC_LETTERS = {
    "Ukrainian": re.compile("[іїєґІЇЄҐ]"),
    "Serbian": re.compile("[ђјљњћџЂЈЉЊЋЏѓќѕЃЌЅ]"),
    "Kazakh": re.compile("[әғқңөұүһӘҒҚҢӨҰҮҺ]"),
}
#: Letters only Russian writes among these (ы, э, ъ, ё).
_RUSSIAN_LETTER = re.compile("[ыэъёЫЭЪЁ]")
#: Function words one of the two writes and the other does not, spelt without those letters (many
#: Ukrainian words have none: "Бот не повинен спамити при запуску.").
_UKRAINIAN_WORDS = frozenset(
    "що це як та або треба щоб також коли якщо потрібно повинен повинна повинні має мають з й ще вже "
    "який яка яке його цей ця від можна бо тобто наприклад дуже зараз слід варто завжди".split())
_RUSSIAN_WORDS = frozenset(
    "что это как или если чтобы нужно надо также когда есть с и который которая которые его их уже "
    "ещё только можно нельзя всегда никогда следует должен должна должны потому чем".split())
_CYRILLIC = re.compile("[\u0400-\u04ff]")
#: In a short text, this share of its Cyrillic words is enough evidence (a one-line rule holds one
#: or two such words); a longer one needs ``_MIN_FUNCTION_WORDS``.
_CYRILLIC_SHARE = 6


def _cyrillic_language(prose: str) -> str | None:
    """The unread Cyrillic language of ``prose``, from its letters (Ukrainian і, ї, є, ґ; Serbian ђ,
    ј, љ; Kazakh ә, қ, ө) and, for Ukrainian, its function words: the evidence must outweigh
    Russian's (ы, э, ъ, ё; что, это, если) and be three words or a sixth of the Cyrillic words (a
    Russian text naming "Київ" holds one such word among many)."""
    if _CYRILLIC.search(prose) is None:
        return None
    words = [w for w in letter_words(prose) if _CYRILLIC.search(w)]
    lower = [w.lower() for w in words]
    russian = sum(1 for w, low in zip(words, lower) if _RUSSIAN_LETTER.search(w) or low in _RUSSIAN_WORDS)
    for language, letters in _CYRILLIC_LETTERS.items():
        found = sum(1 for w, low in zip(words, lower)
                    if letters.search(w) or (language == "Ukrainian" and low in _UKRAINIAN_WORDS))
        if found > russian and (found >= _MIN_FUNCTION_WORDS or found * _CYRILLIC_SHARE >= len(words)):
            return language
    return None


#: A Latin-script text is judged by its function words (:mod:`memvet.rules._latin`) only when it
#: holds this many of one language, with this many times the other side's.
_MIN_FUNCTION_WORDS = 3
_RATIO = 2.0


def unread_script(text: str) -> str | None:
    """The language of ``text``'s prose when it is written mostly in a script memvet's terms do not
    read at all (Korean, Arabic, Hebrew, Thai, Hindi, Greek), else None. Unlike a Latin-script
    language memvet has no word lists for, such text yields no terms to measure overlap with.

    >>> unread_script("ผู้ใช้อยากเห็นว่า agent ทำอะไรแบบละเอียด")
    'Thai'
    >>> unread_script("Ce paramètre doit rester désactivé.") is None
    True
    """
    if not isinstance(text, str) or not text or text.isascii():
        return None
    prose = strip_code(text)
    return None if prose.isascii() else _unread_script(prose)


def _unread_script(prose: str) -> str | None:
    unread: dict[str, int] = {}
    for match in _UNREAD_SCRIPT.finditer(prose):
        unread[match.lastgroup] = unread.get(match.lastgroup, 0) + len(match.group())
    if unread:
        language, letters = max(unread.items(), key=lambda item: item[1])
        # A Hangul syllable or an abjad letter carries about as much as two Latin letters.
        if 2 * letters >= len(_READ_LETTERS.findall(prose)):
            return language
    return None


def unread_language(text: str) -> str | None:
    """The language ``text``'s prose is written in when no word list reads it, else None.

    Decided only on clear evidence: letters of an unread script outnumber the read ones, three
    words carry a letter only Turkish writes (ı, ğ, ş), the letters and words of a Cyrillic
    language other than Russian outweigh Russian's (:func:`_cyrillic_language`), or the function
    words of an unread Latin-script language (French, German, Italian, Dutch) outweigh the English
    ones. Code, inline code and URLs are left out first.
    """
    if not isinstance(text, str) or not text:
        return None
    prose = strip_code(text)
    if not prose.isascii():
        script = _unread_script(prose)
        if script is not None:
            return script
        if _turkish_words(prose) >= _MIN_FUNCTION_WORDS:
            return "Turkish"
        cyrillic = _cyrillic_language(prose)
        if cyrillic is not None:
            return cyrillic
    if _latin.other_words_at_most(prose) < _MIN_FUNCTION_WORDS:
        return None
    found = _latin.verdict(_latin.count(prose), min_words=_MIN_FUNCTION_WORDS, ratio=_RATIO)
    return found if found is not None and found not in READ_LANGUAGES else None
