"""A guide's headings as its rule reads them (docs/topics.md, "The guide"), and the slips it warns of."""

from __future__ import annotations

import pytest

from corpus.seeds import load_guide
from tests.conftest import DATA, GUIDE

WARNED = "reads as a section heading, but comes right under the heading"


def test_a_short_line_without_its_period_that_takes_the_next_heading_as_its_text_is_warned_of(tmp_path, caplog):
    # QA: "See the glossary below" (no final period) after a paragraph became a section, and the next
    # heading its paragraph: the section "Why inference differs" and its anchor gone without a word.
    guide = tmp_path / "chips.guide.txt"
    guide.write_text("What this covers\nChips that serve models.\nSee the glossary below\nWhy inference differs\n"
                     "Inference is many short jobs.\n", encoding="utf-8")
    sections = load_guide(guide, "chips")
    assert [s.heading for s in sections] == ["What this covers", "See the glossary below"]  # the rule, as documented
    warned = [r.getMessage() for r in caplog.records if WARNED in r.getMessage()]
    assert len(warned) == 1 and warned[0].startswith(f"{guide}:4: 'Why inference differs' {WARNED} "
                                                     "'See the glossary below' (line 3)")


@pytest.mark.parametrize("path", [GUIDE, *sorted(DATA.glob("*/*.guide.txt"))], ids=lambda p: p.name)
def test_a_guide_written_by_the_rule_is_not_warned_of(path, caplog):
    load_guide(path, "topic")
    assert not [r for r in caplog.records if WARNED in r.getMessage()]
