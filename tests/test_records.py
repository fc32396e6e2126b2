"""Records: slugs (ids of topic pages' events, anchors of guide sections)."""

from __future__ import annotations

import random
import re
import string

import pytest

from corpus.records import slugify


def test_an_accented_letter_is_its_base_letter_in_a_slug():
    # NFKD splits the accent off, and it was taken for a separator: "donne-es", "u-berblick".
    assert slugify("Données personnelles & RGPD") == "donnees-personnelles-rgpd"
    assert slugify("Qu'est-ce qu'un robot humanoïde ?") == "qu-est-ce-qu-un-robot-humanoide"
    assert slugify("Überblick") == "uberblick"
    assert slugify("cafe\u0301 noir") == slugify("café noir") == "cafe-noir"  # decomposed as a Mac writes it


def _ascii_slug_before(text: str, max_length: int = 80) -> str:
    """The slug of ASCII text as it was written before accents were folded."""
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"[^\w]+", " ", text).lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "item"


def test_the_slug_of_ascii_text_is_unchanged():
    pick = random.Random(20261203)
    texts = ["Calendrier de l'AI Act", "GPUs & TPUs: 2x", "__init__", "", "---", "a" * 100, "word " * 30]
    texts += ["".join(pick.choice(string.printable) for _ in range(pick.randrange(1, 120))) for _ in range(2000)]
    for text in texts:
        assert slugify(text) == _ascii_slug_before(text), text
        assert slugify(text, max_length=10) == _ascii_slug_before(text, 10), text


@pytest.mark.parametrize(("title", "slug"), [("Straße", "strasse"), ("Ørsted", "orsted"), ("Æon", "aeon"), ("Łódź", "lodz"),
                                             ("Þingvellir", "thingvellir"), ("Œuvre", "oeuvre"), ("İstanbul", "istanbul")])
def test_a_slug_writes_a_letter_without_an_accent_to_split_off_as_readers_type_it(title, slug):
    # A guide section "Ørsted" was anchored at #rsted, "Straße" at #strae and "Æon" at #on: the letter was dropped.
    assert slugify(title) == slug
