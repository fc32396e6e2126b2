"""Benchmarks: speed (bench.run) and relevance (bench.relevance)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def positional(argv: Sequence[str], usage: str, needed: int = 1) -> list[str]:
    """Return *argv* when it holds the *needed* arguments at least; else print *usage* and exit 2, as
    argparse does (a bare ``python -m bench.X`` printed an IndexError's traceback)."""
    if len(argv) < needed:
        print(f"usage: python -m {usage}", file=sys.stderr)
        raise SystemExit(2)
    return list(argv)
