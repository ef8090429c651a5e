"""Latin-script languages told apart by their function words (rules/_latin.py, used by L001)."""
from __future__ import annotations

import pytest

from memvet.rules._latin import ENGLISH, OTHERS, count, verdict


@pytest.mark.parametrize("text, language", [
    ("The login API and the gateway both time out after thirty seconds, so the retry must wait.", "English"),
    ("Die MLX-Modelle sollen bei gleichen Gewichten äquivalent zu den PyTorch-Modellen sein, und der Konverter "
     "muss alle Köpfe übernehmen.", "German"),
    ("Dokumentację należy tworzyć tylko przez write_note, a przed pracą trzeba sprawdzić, czy projekt jest "
     "ustawiony.", "Polish"),
    ("O agente não deve escrever arquivos antes que o teste piloto seja validado pelo usuário.", "Portuguese"),
    ("Khung ảnh mặc định phải được giữ lại khi người dùng chưa tải khung của mình lên.", "Vietnamese"),
    ("Simülasyon durdurulduğunda girişler değiştirilemez, çünkü devre ancak çalışırken güncellenir ve bu "
     "kural her bileşen için geçerlidir.", "Turkish"),
    ("Konfigurasi harus dibaca dari file .env karena server tidak boleh menyimpan kunci di dalam kode.",
     "Indonesian"),
])
def test_verdict(text, language):
    assert verdict(count(text), min_words=3, ratio=2.0) == language


@pytest.mark.parametrize("text", [
    "Fixed linter errors in OrderedCollection.cs: replaced var with explicit types.",  # too few function words
    "Use La Liga data for der Bundesliga table.",  # one foreign word is no language
    "```python\nder = und = die = das = 1\n```",  # code is left out
])
def test_no_verdict_without_enough_prose(text):
    assert verdict(count(text), min_words=3, ratio=2.0) is None


def test_names_are_not_function_words():
    assert count("THE DAS UND").english == 0 and count("THE DAS UND").other == 0


def test_no_function_word_is_shared_with_english():
    for language, words in OTHERS.items():
        assert not words & ENGLISH, language


def test_accented_words_are_whole_words():
    from memvet.rules import _text
    assert "należy" in _text.latin_stems("Pliki należy zapisywać")  # not "nale" and "y"
    assert {"không", "được"} <= set(_text.normalize("Không được dùng").split())
    assert "должен" in _text.latin_stems("Версия должен расти")  # Cyrillic words are words too
    assert _text.fold("\u1c83\u1c84") == "ст"  # the rounded/tall letters re.IGNORECASE reads as с, т


@pytest.mark.parametrize("text", [
    "Die MLX-Modelle sollen bei gleichen Gewichten und Inputs übereinstimmen. DAS ist `der code`.",
    "Không được dùng Angular Material; giao diện phải viết bằng HTML và CSS thuần.",
    "NIE, źle: nadal generujesz pliki md bez write_note. ```\nnie się że\n```",
    "The build uses Vite 5; see https://example.com/und/der/die for das Detail.",
    "",
])
def test_the_cheap_bound_is_never_below_the_count(text):
    from memvet.rules._latin import other_words_at_most
    assert other_words_at_most(text) >= count(text).other
