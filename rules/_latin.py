"""Which Latin-script language a prose text is written in, from its function words.

:mod:`memvet.rules._langdetect` tells Chinese from English; every Latin
script counts as English there. A German, Polish or Portuguese user whose
assistant answers in English gets batches that are mostly English, and an
answer written in the user's language is then in the wrong language for the
contract -- which the Han/Latin measure cannot see. Function words tell
these languages apart: they are frequent, short, and each language has its
own ("und der die das", "się że nie jest", "não uma para"). A text is
judged only when it holds enough of them (``min_words``) and one side
clearly outweighs the other, so a short note, a product name ("La Liga")
or a quoted phrase decides nothing.

Words that are also common English ("a", "in", "to", "was", "will",
"also", "per", "con", "die") are in no list: the English count is what
tells English apart, and a word shared with English would count for both.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from memvet.rules import lexicon
from memvet.rules._langdetect import strip_code

#: English function words that no language below shares (so a German text does not count them).
ENGLISH = frozenset("""
the this that these those are were been being does did have has had of with from into onto over under about
than then if when while because and or but not nor never always only also must should shall would could might
it its it's they them their our you your he she his her my which who whom whose what where why how there here
all any each every some most more less such very just before after until since don't doesn't isn't aren't
can't won't shouldn't mustn't instead rather both either neither is be by for
""".split())

#: Function words of other languages, none of them common English.
OTHERS: dict[str, frozenset[str]] = {
    "German": frozenset("""und der das ist nicht mit für auf dem des ein eine einen einem sich auch wird werden
        sind oder aber wenn dass nach noch kann muss zum zur bei wie über ich wir sie diese dieser dieses nur
        alle jetzt soll sollen keine kein müssen wurde wurden durch ohne beim vom""".split()),
    "French": frozenset("""le les et pas dans une des du que qui sur avec ce cette sont mais nous vous je au aux
        être fait ces sans leur très peut comme elle ils""".split()),
    "Spanish": frozenset("""los las para una por que como pero está esta este más sobre también cuando muy sin
        puede hay ser todo desde hasta""".split()),
    "Portuguese": frozenset("""não uma para que do da das ao mais mas está são pelo pela também quando muito sem
        pode ser todo isso esse essa como""".split()),
    "Polish": frozenset("""nie się że jest na jak dla czy oraz przez już tylko są tak aby lub być może jeśli
        należy gdy który która które tego tym ten ta jego gdzie żeby też bez przed przy między więc kiedy
        jeżeli został została zostały każdy wszystkie np""".split()),
    "Italian": frozenset("""il gli della che sono più anche questo questa essere delle degli nel nella una
        perché quando molto""".split()),
    "Vietnamese": frozenset("""và của là không được các những cho với trong này để khi thì có một đã sẽ phải
        nếu từ người""".split()),
    "Dutch": frozenset("""het een niet met voor dat zijn ook maar naar bij wordt worden kunnen moet deze
        wanneer omdat""".split()),
    # Turkish "ve" and "var" are left out: "I've" and a bare `var` would count them.
    "Turkish": frozenset("""bir bu için ile olarak daha gibi çok sonra ama ancak eğer veya olan kadar değil ise
        şu tüm yani şimdi zaten artık diye nasıl neden çünkü sadece bütün önce""".split()),
    # Indonesian "ini" and "ada" are left out: a config.ini and the Ada language would count them.
    "Indonesian": frozenset("""dan yang untuk dengan tidak akan dari pada juga atau sudah bisa harus jika karena
        agar adalah sebagai oleh dalam tetapi kami kita itu bahwa seperti masih setelah sebelum hanya semua
        telah belum""".split()),
}

#: A name, not prose: a word in capitals (THE, DAS, API). A camelCase name lower-cases to no
#: function word, so only these need blanking before the text is lower-cased.
_CAPITALS = re.compile(r"\b[A-Z]{2,}\b")

def _languages_of_words() -> dict[str, tuple[str, ...]]:
    """Every function word -> the languages it belongs to (English is never shared)."""
    languages: dict[str, tuple[str, ...]] = {w: ("English",) for w in ENGLISH}
    for language, words in OTHERS.items():
        for word in words:
            languages[word] = languages.get(word, ()) + (language,)
    return languages


#: Looked up once per function word found: one C-level Counter pass instead of one pass per language.
_LANGUAGES = _languages_of_words()


@dataclass(frozen=True, slots=True)
class LatinCounts:
    """Function words of one text: English ones and each other language's."""

    english: int = 0
    others: tuple[tuple[str, int], ...] = ()

    @property
    def other(self) -> int:
        """The function words of the other language with the most (0 without any)."""
        return max((n for _, n in self.others), default=0)

    @property
    def other_language(self) -> str | None:
        return max(self.others, key=lambda p: p[1])[0] if self.others else None

    def __add__(self, more: LatinCounts) -> LatinCounts:
        total = Counter(dict(self.others))
        total.update(dict(more.others))
        return LatinCounts(self.english + more.english, tuple(sorted(total.items())))


#: Only the function words, found by one regex trie (the other words are never materialised).
_FUNCTION_WORD = re.compile(r"(?<![^\W\d_])(?:" + lexicon.compile_words(_LANGUAGES).pattern + r")(?![^\W\d_'’])")


#: The other languages' function words alone, on the text as written: an upper bound of
#: :func:`count`'s ``other`` (code and capitals are not removed, so it finds at least as many).
_OTHER_WORD = re.compile(r"(?<![^\W\d_])(?:" + lexicon.compile_words(
    [w for words in OTHERS.values() for w in words]).pattern + r")(?![^\W\d_'’])", re.IGNORECASE)


def other_words_at_most(text: str) -> int:
    """At least :func:`count`'s ``other`` for ``text``: one regex pass, nothing lower-cased or counted per language.
    Most texts are English and hold few or none; then no count is needed."""
    return len(_OTHER_WORD.findall(text))


def count(text: str) -> LatinCounts:
    """The function words of ``text``'s prose (code blocks, inline code and URLs left out)."""
    if not text:
        return LatinCounts()
    prose = strip_code(text)
    if _CAPITALS.search(prose):
        prose = _CAPITALS.sub(" ", prose)
    found = Counter(map(_LANGUAGES.get, _FUNCTION_WORD.findall(prose.lower())))
    found.pop(None, None)  # (the trie matches only its entries; kept safe should one ever differ)
    english = found.pop(("English",), 0)
    others: Counter[str] = Counter()
    for languages, n in found.items():
        for language in languages:
            others[language] += n
    return LatinCounts(english, tuple((lang, others[lang]) for lang in OTHERS if others[lang]))


def verdict(counts: LatinCounts, *, min_words: int, ratio: float) -> str | None:
    """``"English"``, another language's name, or None: the side with at least ``min_words`` function
    words and ``ratio`` times the other side's."""
    other = counts.other
    if counts.english >= min_words and counts.english >= ratio * other:
        return "English"
    if other >= min_words and other >= ratio * counts.english:
        return counts.other_language
    return None
