"""The one error a corpus source raises: it names the file and the line."""

from __future__ import annotations

from pathlib import Path


def printable(text: str) -> str:
    """Return *text* with each character a terminal would act on (controls, C1 controls such as CSI,
    bidi overrides, other format characters) written as its escape, ``\\x1b``, ``\\u202e``: a file's
    name or a line's value is told to the operator, never run by their terminal (a QA pass: a file
    named with OSC 0 retitled the window and cleared the screen on every warning naming it)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


class CorpusError(ValueError):
    """A source file that cannot be read into records."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(printable(f"{where}: {message}"))


class UnreadableSource(CorpusError):
    """A source file (or folder) named on the command line, or found in a folder named there, that this
    user may not read: refused as a command-line error (exit 2), as click refuses such a file named itself."""
