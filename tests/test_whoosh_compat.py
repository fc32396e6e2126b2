"""The seam to Whoosh's internals refuses any Whoosh but the pinned one."""

from __future__ import annotations

import pytest
import whoosh

from index.whoosh_compat import PINNED, check_version


def test_the_installed_whoosh_is_the_pinned_one():
    assert tuple(whoosh.__version__[:3]) == PINNED
    check_version()


@pytest.mark.parametrize("other", [(2, 7, 3), (2, 7, 5), (2, 8, 0), (3, 0, 0)])
def test_another_whoosh_version_is_refused_with_what_to_do(other):
    with pytest.raises(RuntimeError, match="pin it"):
        check_version(other)
