"""The one error a corpus source raises: it names the file and the line."""

from __future__ import annotations

from pathlib import Path


class CorpusError(ValueError):
    """A source file that cannot be read into records."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")
