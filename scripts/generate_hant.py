#!/usr/bin/env python3
"""Write rules/_hant_table.py: Traditional Chinese characters and the simplified one each folds to.

    pip download --no-deps opencc-python-reimplemented==0.1.7 && unzip -o opencc_python_reimplemented-*.whl
    python scripts/generate_hant.py opencc/dictionary/TSCharacters.txt > rules/_hant_table.py

Source: OpenCC's character table (https://github.com/BYVoid/OpenCC, Apache-2.0). Kept: every
one-character entry whose first (default) simplified form is one other character, both in the CJK
blocks U+3400-U+9FFF, so that folding keeps every offset (one character for one); chains
are followed to their end, so folding is idempotent.
"""

from __future__ import annotations

import sys


def pairs(path: str) -> list[tuple[str, str]]:
    out = []
    for line in open(path, encoding="utf-8"):
        traditional, simplified = line.rstrip("\n").split("\t")
        first = simplified.split(" ")[0]
        if (len(traditional) == 1 and len(first) == 1 and traditional != first
                and all(0x3400 <= ord(c) <= 0x9FFF for c in traditional + first)):
            out.append((traditional, first))
    # A simplified form that is itself a traditional key (薴 -> 苧 -> 苎) folds on to the end of the
    # chain, so that folding twice gives what folding once gives.
    table = dict(out)
    for traditional, first in list(table.items()):
        seen = {traditional}
        while first in table and first not in seen:
            seen.add(first)
            first = table[first]
        table[traditional] = first
    return sorted((t, s) for t, s in table.items() if t != s)


def module(found: list[tuple[str, str]]) -> str:
    def lines(text: str) -> list[str]:
        return [f'    "{text[i:i + 60]}"' for i in range(0, len(text), 60)]
    return "\n".join([
        '"""Traditional Chinese characters and the simplified character each one folds to (generated).', "",
        "Derived from OpenCC's ``TSCharacters.txt`` (https://github.com/BYVoid/OpenCC, Apache-2.0), as shipped",
        "in opencc-python-reimplemented 0.1.7: every one-character entry whose first (default) simplified",
        "form is one other character, both in the CJK blocks U+3400-U+9FFF. Regenerate with",
        "``python scripts/generate_hant.py TSCharacters.txt > rules/_hant_table.py``.",
        '"""', "",
        "TRADITIONAL = (", *lines("".join(t for t, _ in found)), ")",
        "SIMPLIFIED = (", *lines("".join(s for _, s in found)), ")", ""])


if __name__ == "__main__":
    sys.stdout.write(module(pairs(sys.argv[1])))
