"""Write search/data/common_words.txt: ``python -m bench.common_words`` (see ``search.spell.derive_common_words``).

Run it after a change of the packaged model, of Webster's list or of wordfreq's; tests/test_service.py checks that
the file is what the derivation gives.
"""

from __future__ import annotations

from search.spell import COMMON_WORDS, derive_common_words


def main() -> int:
    words = derive_common_words()
    COMMON_WORDS.write_text(
        "# Common English words: Webster's Second's words that English text uses often (wordfreq) or that the packaged model holds whole.\n"
        "# Made by python -m bench.common_words; read by search.spell.common_word.\n" + "\n".join(words) + "\n",
        encoding="utf-8",
    )
    print(f"{len(words):,} words written to {COMMON_WORDS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
