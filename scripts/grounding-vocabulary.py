#!/usr/bin/env python3
"""Writes src/pipe/grounding/vocabulary.txt: the common words of the six languages grounding
reads, from which src/pipe/grounding/language.rs tells a line in another Latin-script
language ("Hokona mai he miraka, kia rua rita") from one of the six.

    python3 -m venv /tmp/wf && /tmp/wf/bin/pip install wordfreq==3.1.1
    /tmp/wf/bin/python scripts/grounding-vocabulary.py > src/pipe/grounding/vocabulary.txt

The words are wordfreq's (https://github.com/rspeer/wordfreq, data CC-BY-SA 4.0: see
docs/grounding.md): the TOP most frequent of English, Spanish, French, German, Portuguese
and Italian each, of letters only and at least MIN_LETTERS long (shorter ones coincide across
languages by chance: "mai", "rua", "kia"), folded as `tokens::fold` folds (lowercase, accents
off, "ß" kept), sorted byte-wise and deduplicated, one per line.
"""

import sys
import unicodedata

import wordfreq

LANGUAGES = ["en", "es", "fr", "de", "pt", "it"]
TOP = 20000
MIN_LETTERS = 3


def fold(word: str) -> str:
    # As tokens::fold: NFD, combining marks off, then lowercase.
    return "".join(
        c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c)
    ).lower()


def main() -> None:
    words = set()
    for lang in LANGUAGES:
        for word in wordfreq.top_n_list(lang, TOP):
            folded = fold(word)
            if folded.isalpha() and len(folded) >= MIN_LETTERS:
                words.add(folded)
    out = sorted(words, key=lambda w: w.encode())
    sys.stdout.write("".join(w + "\n" for w in out))
    print(f"{len(out)} words", file=sys.stderr)


if __name__ == "__main__":
    main()
