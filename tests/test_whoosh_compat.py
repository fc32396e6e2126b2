"""The seam to Whoosh's internals refuses any Whoosh but the pinned one."""

from __future__ import annotations

import pytest
import whoosh
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.formats import Positions

from index.whoosh_compat import PINNED, check_version, positions_decoder, read_positions


def test_the_installed_whoosh_is_the_pinned_one():
    assert tuple(whoosh.__version__[:3]) == PINNED
    check_version()


@pytest.mark.parametrize("other", [(2, 7, 3), (2, 7, 5), (2, 8, 0), (3, 0, 0)])
def test_another_whoosh_version_is_refused_with_what_to_do(other):
    with pytest.raises(RuntimeError, match="pin it"):
        check_version(other)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**20), max_size=40).map(sorted), st.booleans())
def test_positions_are_decoded_as_whoosh_decodes_them(positions, stop_cut):
    # Phrases read positions with a decoder of their own (deltas added in C); it must give Whoosh's.
    fmt = Positions()
    value = fmt.encode(positions)
    if stop_cut:  # W3 blocks may store a value without its pickle STOP byte
        value = value[:-1]
    assert positions_decoder(fmt)(value) == fmt.decode_positions(value) == positions


def test_positions_read_a_block_at_a_time_are_whooshs_for_every_word_of_the_seed_index(service):
    snap = service.snapshot()
    searcher = snap.searcher()
    for leaf, _ in searcher.leaf_searchers():
        reader = leaf.reader()
        for fieldname in ("title", "body"):
            for text in list(reader.lexicon(fieldname)):
                expected = {}
                matcher = reader.postings(fieldname, text)
                while matcher.is_active():
                    expected[matcher.id()] = matcher.value_as("positions")
                    matcher.next()
                wanted = sorted(expected)[::2]  # every other document: blocks are skipped and read
                got = read_positions(reader, fieldname, text, wanted)
                assert got == {d: expected[d] for d in wanted}, (fieldname, text)
