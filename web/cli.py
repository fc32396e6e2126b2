"""The operator's command line: ``topichub build | update | serve | search | stats | snapshots | publish | prune | rollback``.

Errors are one line on stderr and a non-zero exit code, never a traceback: 1 when the work failed
(bad corpus line, another writer busy, no index), 2 when the command line itself was wrong, 128 +
the signal when SIGTERM, SIGINT or SIGHUP stopped a build or update (143, 130, 129).
"""

from __future__ import annotations

import difflib
import errno
import json
import logging
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from corpus.errors import CorpusError, UnreadableSource, printable
from corpus.sources import DEFAULT_DIR
from index import store
from index.analysis import AUTO_LANGUAGE, DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES


if TYPE_CHECKING:
    from index.build import BuildReport, Dating, Undone
    from search.results import Hit, SearchResult, WayOut

DEFAULT_INDEX = store.DEFAULT_INDEX  # (the name tests and scripts read)
WAIT_HELP = "Seconds to wait for another writer (build, update, rollback, prune, publish) to finish before giving up (default: fail at once)."


def _counted(count: int, noun: str) -> str:
    """Return *count* and *noun*, the noun in the singular for 1: "1 document", "1,200 documents"."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _some_ids(ids: Sequence[str], shown: int = 3) -> str:
    """Return the first *shown* of *ids* and how many more, for a warning: "ids 'a', 'b', 'c' and 9 more"
    (quoted: an id may hold commas and spaces)."""
    more = f" and {len(ids) - shown:,} more" if len(ids) > shown else ""
    return f"{'id' if len(ids) == 1 else 'ids'} {', '.join(map(repr, ids[:shown]))}{more}"


def _warn_of_undone(undone: Undone | None) -> None:
    """Warn on stderr of what ``topichub update`` had changed in the index since its build and this build
    from the sources replaced (``index.build.undone_updates``): not refused, as such a build is how an
    index is reset, but said, with the ids, since an editor who forgot an update lost it without a word."""
    if undone is None:
        return
    keep = ("make the same changes in the sources, or build with the change files among them (their upserts); "
            "`topichub rollback` serves the updated snapshot again meanwhile")
    if undone.ids is None:  # an index updated before updates listed their ids
        _reported(f"warning: the index held the changes of {_counted(undone.updates, 'update')} by `topichub update` "
                  f"since its build (the latest at {undone.latest}); this build from the sources undid them unless "
                  f"the sources make them too: {keep}", err=True)
        return
    _reported(f"warning: the index held {_counted(len(undone.ids), 'document')} changed by `topichub update` since its "
              f"build ({_some_ids(undone.ids)}); this build from the sources undid "
              f"{'it' if len(undone.ids) == 1 else 'them'}: {keep}", err=True)


def _warn_of_dates(dates: Dating, doing: str) -> None:
    """Warn on stderr of the records a build or update (*doing*) dates where a reader would not expect
    (``index.build.Dating``): not refused, as a source may have no dates to give, but said, since
    otherwise the only sign is a listing out of order or a --since filter that lets them in."""
    if dates.undated and dates.dated:  # all undated (the bundled corpus): each in the order first indexed, as expected
        if dates.undated_now == dates.undated:
            when = f"this {doing}, which first indexed it, so it sorts as newest and falls into --since/--until filters"
        else:  # a rebuild: those indexed before keep the date they were first indexed
            when = (f"the build or update that first indexed it ({dates.undated_now:,} to this {doing}), and sorts "
                    "and falls into --since/--until filters by that date")
        _reported(f"warning: {_counted(dates.undated, 'record')} {'has' if dates.undated == 1 else 'have'} no date: "
                  f"each is dated to {when} (a JSONL line's 'published' dates a record)", err=True)
    for ids, when in ((dates.future, f"in the future (after this {doing})"), (dates.before_1970, "before 1970-01-01")):
        if ids:
            _reported(f"warning: {_counted(len(ids), 'record')} {'is' if len(ids) == 1 else 'are'} dated {when}: "
                      f"{_some_ids(ids)}", err=True)


class _OneLineError(click.ClickException):
    """A command line refused in one ``Error:`` line, with exit code 2 as click's own refusals, but
    without their Usage and Try lines: the operator typed nothing wrong on it (a bad environment
    variable), or the line holds all there is to say."""

    exit_code = 2


class _EnvOption(click.Option):
    """An option whose default an environment variable sets (``envvar``; empty counts as unset).

    A bad value from there is refused under the variable's name in one line: click said "Invalid
    value for '--port'", with its Usage lines, to an operator who never typed --port (``PORT=abc``)."""

    def process_value(self, ctx: click.Context, value: object) -> object:
        try:
            return super().process_value(ctx, value)
        except click.BadParameter as exc:
            if ctx.get_parameter_source(self.name or "") is not ParameterSource.ENVIRONMENT:
                raise
            raise _OneLineError(_env_refusal(str(self.envvar), str(value), exc.message, self.opts[0])) from None


def _env_refusal(variable: str, value: str, said: str, option: str) -> str:
    """Return the line refusing *variable*=*value*, which click refused as *said* for *option*:
    "PORT='abc' is not a valid integer range (PORT sets --port: correct it or unset it)"."""
    said = said.rstrip(".")
    for shown in (repr(value), value):  # click's words start with the value, most of them: said once
        if said.startswith(f"{shown} "):
            return f"{variable}={value!r} {said[len(shown) + 1:]} ({variable} sets {option}: correct it or unset it)"
    return f"{variable}={value!r}: {said} ({variable} sets {option}: correct it or unset it)"


class _Folder(click.Path):
    """A folder given by an option (--index-dir, --to); an empty one is refused: read as Path(""), it was
    the current folder, and `build --index-dir "$UNSET"` built there."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> object:
        if isinstance(value, str) and not value.strip():  # " " too: publish --to " " made a folder named " " (a review)
            self.fail("the folder is empty (write . for the current folder)", param, ctx)
        return super().convert(value, param, ctx)


class _Snapshot(click.ParamType):
    """A kept snapshot, ``rollback --to``'s, read as ``_snapshot_id`` reads it; an empty one is refused (a
    script's unset variable) as an empty folder option is: it was "no snapshot  is kept in IX", exit 1."""

    name = "snapshot"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> object:
        if isinstance(value, str) and not value.strip():
            self.fail("the snapshot is empty (name a kept one: its id in snapshots/)", param, ctx)
        return _snapshot_id(str(value))


# The settings read from the environment (docs/operations.md), and the names beside them that are
# not topichub's own: deploy/haproxy.cfg's addresses and the browser tests' switch.
SETTINGS = ("TOPICHUB_INDEX_DIR", "TOPICHUB_CORPUS", "TOPICHUB_WORKER_CLASS", "TOPICHUB_QUERY_BUDGET_S",
            "TOPICHUB_SEMANTIC", "TOPICHUB_TRUSTED_HOSTS")
_NOT_SETTINGS = re.compile(r"TOPICHUB_(?:LB_BIND|REPLICA_[0-9]+|SCREENSHOTS)")


def _check_setting_names() -> None:
    """Refuse a ``TOPICHUB_`` variable that is no setting, naming the one it is closest to: a misspelt
    one was ignored without a word (TOPICHUB_INDEX_DIRECTORY=/srv/… served the bundled corpus built
    into instance/index; TOPICHUB_SEMANTICS=0 left the meaning signal on)."""
    for name in sorted(os.environ):
        if not name.upper().startswith("TOPICHUB_") or name in SETTINGS or _NOT_SETTINGS.fullmatch(name):
            continue
        close = difflib.get_close_matches(name.upper(), SETTINGS, n=1, cutoff=0.75)
        meant = f" (did you mean {close[0]}?)" if close else f"; its settings are {', '.join(SETTINGS)}"
        raise _OneLineError(f"{name} is no setting of topichub{meant}: correct it or unset it")


def _index_folder(ctx: click.Context, param: click.Parameter, value: Path) -> Path:
    """Refuse an --index-dir inside an index's ``snapshots/`` (``IX/current``, ``IX/snapshots``): a build
    there wrote its ``current``, ``snapshots/`` and lock into the published snapshot being served, and
    a read said no index had been built in it.  And, as every command has this option, a misspelt
    setting (``_check_setting_names``), after --help: an operator reading the help is not refused."""
    _check_setting_names()
    given = (f"{param.envvar}={str(value)!r}" if ctx.get_parameter_source(param.name or "") is ParameterSource.ENVIRONMENT
             else f"--index-dir {value}")
    if (blocked := store.file_in_the_way(value)) is not None:
        # "/dev/null/x": stats, search, publish and serve printed a traceback (NotADirectoryError; a docs pass).
        raise _OneLineError(f"{given}: {blocked[0]} is {blocked[1]}, not a folder")
    root = store.index_holding(value)
    if root is not None:
        raise _OneLineError(f"{given} is inside the snapshots folder of the index {root}: name the index folder "
                            f"itself (--index-dir {root})")
    return value


def _index_option(func):
    return click.option(
        "--index-dir",
        cls=_EnvOption,
        envvar="TOPICHUB_INDEX_DIR",
        type=_Folder(),
        default=str(DEFAULT_INDEX),
        show_default="instance/index (or $TOPICHUB_INDEX_DIR)",
        callback=_index_folder,
        help="Folder holding the published index snapshots.",
    )(func)


class _Seconds(click.FloatRange):
    """A number of seconds from 0 to 3600: click's range let "nan" through (no comparison is true of
    it), and a writer given --wait nan waited with no limit (a QA pass)."""

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        seconds = super().convert(value, param, ctx)
        if seconds != seconds:
            self.fail(f"{value!r} is not a number of seconds from 0 to 3600.", param, ctx)
        return seconds


def _wait_option(func):
    return click.option("--wait", type=_Seconds(0, 3600), default=0.0, help=WAIT_HELP)(func)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """Print the installed version and the index schema this code builds and reads, and exit."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from index.schema import SCHEMA_VERSION

    click.echo(f"topichub {version('topichub-search')} (index schema {SCHEMA_VERSION})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
    help="Print the version and the index schema it builds and reads, and exit.",
)
def main() -> None:
    """Build, update, serve and query the topic hub's search index.

    A build or update writes a new snapshot beside the live one and switches to it atomically, so a
    running server keeps answering and picks the new snapshot up on its next request.
    """
    _warn_printably()


class _Printable(logging.Formatter):
    """A warning's line, ``warning: `` and its message, with what a terminal would act on escaped
    (``corpus.errors.printable``).

    The prefix is written here, for every warning the loaders and writers log, not by each message:
    some wrote it and some did not, so that of one build's warnings a JSONL file's repeated id read
    as a bare line among ``warning:`` ones, and a grep for ``^warning:`` missed it (a QA pass).  Only
    WARNING: errors reach the editor as click's ``Error:`` lines, and keep that form."""

    def format(self, record: logging.LogRecord) -> str:
        said = super().format(record)
        return printable(f"warning: {said}" if record.levelno == logging.WARNING else said)


def _warn_printably() -> None:
    """Print the loaders' warnings on stderr as Python's last resort did ("%(message)s", WARNING and
    up), each after ``warning:`` (``_Printable``) with its file's name and values escaped where a
    terminal would act on them."""
    root = logging.getLogger()
    if not root.handlers:  # (serve's gunicorn and the tests configure their own)
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(_Printable("%(message)s"))
        root.addHandler(handler)


def _default_corpus() -> tuple[Path, ...]:
    """Return the default SOURCES: $TOPICHUB_CORPUS, one path or several joined by os.pathsep (``:``;
    the bundled corpus and an editor's folder of a second topic: it took one), else the bundled corpus.
    A value that is a path as it stands is that one path, a ``:`` in its name and all."""
    value = os.environ.get("TOPICHUB_CORPUS")
    if not value:
        return (DEFAULT_DIR,)
    if Path(value).exists():
        return (Path(value),)
    return tuple(Path(part) for part in value.split(os.pathsep) if part) or (DEFAULT_DIR,)


class _Stopped(click.ClickException):
    """A command stopped by a signal (SIGTERM, SIGINT, SIGHUP) at a safe point: one ``Error:`` line, and the
    exit code of a process the signal ended, 128 + its number (143 for SIGTERM, 130 for SIGINT)."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.exit_code = 128 + signum


def _silenced(stream) -> None:  # type: ignore[no-untyped-def]
    """Point *stream*'s file descriptor at /dev/null: what it still holds is flushed there at exit,
    not raised again as "Exception ignored … BrokenPipeError" (Python's advice for a closed pipe)."""
    try:
        fileno = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return  # no descriptor (a test's captured output): nothing will be flushed to it
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fileno)
    finally:
        os.close(null)


def _reported(message: str, err: bool = False) -> None:
    """Print a writer's report of what it has done: an output that cannot be written (a full disk, a
    pipe its reader closed) loses the line, not the exit status.  After publishing, a build, update,
    rollback, publish or prune said exit 1 (with a traceback on a full disk), and a job would have
    retried or rolled back a snapshot that was published."""
    try:
        click.echo(message, err=err)
    except OSError:
        _silenced(sys.stderr if err else sys.stdout)


@contextmanager
def _printing(what: str) -> Iterator[None]:
    """Turn an output that cannot be written into one ``Error:`` line (a full disk was a traceback);
    a pipe its reader closed (``| head``) ends the command as click ends it, quietly."""
    try:
        yield
    except OSError as exc:
        _silenced(sys.stdout)
        if exc.errno == errno.EPIPE:
            raise
        raise click.ClickException(f"cannot write {what}: {exc}") from None


@contextmanager
def _writing(
    doing: str, stoppable: str | None = None, undone: str = "nothing was published", index_dir: Path | None = None
) -> Iterator[None]:
    """Turn what stops a write to an index folder into one ``Error:`` line: a refusal in its own
    words, a disk that is full or read-only as "cannot *doing*: …" (never a traceback).

    *stoppable* (the writer's name, "build"): SIGTERM, SIGINT and SIGHUP stop it at its next safe point
    (``store.stop_on_signals``) and say so; they killed it with exit 143 and no word, its temporary
    folder left behind.  With *index_dir*, a stop before any index was published there says so (a first
    build stopped has no live index to leave untouched)."""
    with store.stop_on_signals() if stoppable else nullcontext():  # before the imports: a second or more
        from index.build import BuildError
        from index.update import UpdateError

        try:
            store.check_stop()  # asked while the command started
            yield
        except store.Stopped as exc:
            first = index_dir is not None and store.current_id(index_dir) is None
            live = f"no index has been built in {index_dir} yet" if first else "the live index is untouched"
            raise _Stopped(f"{stoppable} stopped by {exc}; {live}, {undone}", exc.signum) from None
        except UnreadableSource as exc:  # exit 2, as click refuses a source file named itself that is not readable
            raise _OneLineError(str(exc)) from None
        except (CorpusError, store.WriterBusy, store.IndexUnavailable, UpdateError, BuildError) as exc:
            raise click.ClickException(str(exc)) from None
        except Exception as exc:
            found = store.os_error_in(exc)
            if found is None:
                raise
            raise click.ClickException(f"cannot {doing}: {found}") from None


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced stream without one, or a closed one
        return False


def _build(
    sources: tuple[Path, ...], index_dir: Path, procs: int = 1, wait: float = 0.0, semantic: bool | None = None,
    summary_err: bool = False, language: str | None = None,
) -> None:
    """Build *sources* into *index_dir* with a progress bar on stderr and a summary line (on stderr
    with *summary_err*: serve's stdout is the JSON access log, and `jq` stopped at "built 57 …").

    *language*: the language its words in Latin letters are stemmed as; None: the one ``--language``
    named for the published snapshot, else the one its texts tell; "auto": the one its texts tell."""
    sources = _check_sources(sources)
    told_by = "topichub build --language" if summary_err else "--language"  # serve has no such option
    with _writing(f"write the index in {index_dir}", stoppable="build", index_dir=index_dir):
        from tqdm import tqdm

        from corpus.sources import load_corpus
        from index.build import build_corpus

        # The lock before the sources are read: of two builds into one folder, the first started goes first.
        with store.write_lock(index_dir, wait=wait, writer="build"):
            # Absolute paths in the snapshot's record, so the health check finds them from anywhere.
            corpus = load_corpus(tuple(p.resolve() for p in sources or _default_corpus()))
            store.check_stop()  # a stop asked while the sources were read
            unique = len({record.id for record in corpus.records})
            # A bar only on a terminal: in a log or a pipe its carriage returns run into one long line.
            with tqdm(total=unique, unit="doc", desc="indexing", file=sys.stderr,
                      disable=unique < 1000 or not _is_terminal(sys.stderr), mininterval=0.5) as bar:
                def progress(count: int) -> None:
                    bar.update(count)
                    if bar.n == unique and not bar.disable:
                        bar.set_description("writing")  # the segments are written once every document is in

                report = build_corpus(corpus, index_dir, progress=progress, procs=procs, lock_held=True, semantic=semantic,
                                      language=language)
    _reported(
        f"built {_counted(report.doc_count, 'document')} in {report.seconds:.1f} s "
        f"({report.docs_per_second:,.0f} documents/s, {report.size_bytes / 1e6:.1f} MB)"
        + (f"; {_counted(report.replaced_duplicates, 'line')} replaced by a later one of the same id" if report.replaced_duplicates else "")
        + _language_said(report, told_by)
        + f"\npublished snapshot {report.snapshot} in {index_dir}",
        err=summary_err,
    )
    _warn_of_undone(report.undone)
    _warn_of_dates(report.dating, "build")


@main.command()
# A - passes click's check (allow_dash) to be refused by _check_sources in a line of its own.
@click.argument("sources", nargs=-1, type=click.Path(exists=True, allow_dash=True, path_type=Path))
@_index_option
@click.option(
    "--procs", type=click.IntRange(1, 8), default=lambda: default_procs(),
    show_default="the CPUs this process may run on, at most 8",
    help="Indexing processes (each writes its own segments; small corpora use one).",
)
@_wait_option
@click.option("--semantic/--no-semantic", default=None, show_default="on, unless TOPICHUB_SEMANTIC=0",
              help="Store document vectors for the semantic signal (the option wins over TOPICHUB_SEMANTIC).")
@click.option("--language", type=click.Choice([*sorted(LANGUAGES), AUTO_LANGUAGE]), default=None,
              show_default="the one named for the published snapshot, else the one its texts' function words tell",
              help="The language the corpus's words in Latin letters are stemmed as, and whose function words a "
                   "query drops; auto: the one its texts tell (Russian, Greek and Arabic words are stemmed as their "
                   "own, whatever it is; a Russian corpus's words in Latin letters as English).")
def build(sources: tuple[Path, ...], index_dir: Path, procs: int, wait: float, semantic: bool | None,
          language: str | None) -> None:
    """Index SOURCES into a new snapshot and publish it.

    SOURCES are topic pages, guides, JSONL files or folders of them, read with their subfolders
    (hidden ones such as .git aside; default: the bundled corpus, or $TOPICHUB_CORPUS, several paths
    joined by ':').  The live
    index is untouched if anything fails.

    A source's name says what it is: *.topic.txt (a topic page), *.guide.txt (a guide), *.jsonl,
    *.jsonl.gz, *.ndjson or *.ndjson.gz (JSONL), in any case.  A folder's other files are not read,
    and are named in a warning; a file named otherwise given itself is refused, and so is a folder
    that gives no source.
    """
    _check_semantic_switch()
    _build(sources, index_dir, procs=procs, wait=wait, semantic=semantic, language=language)


def _language_name(language: str) -> str:
    return f"{LANGUAGE_NAMES[language]} ({language})"


def _language_said(report: BuildReport, told_by: str) -> str:
    """Return the build summary's words on the language: a named one is confirmed (one kept from the
    published snapshot said so), a told one other than English is said with its evidence (its function
    words' count in the texts read, and English's)."""
    if report.kept:
        return (f"; words stemmed as {_language_name(report.language)}, as --language named for the published "
                f"snapshot ({told_by} to change it, or auto to have its texts tell)")
    if report.named:
        return f"; words stemmed as {_language_name(report.language)}, as {told_by} names"
    if report.language == DEFAULT_LANGUAGE or report.told is None:
        return ""
    own, english = report.told
    return (f"; words stemmed as {_language_name(report.language)}, which its texts tell (its function words "
            f"{own:,} times in the words read, English's {english:,}; {told_by} to name another)")


def default_procs() -> int:
    """Return build's default --procs: the CPUs this process may run on (its affinity: taskset, a
    container's cpuset), at most 8.  os.cpu_count() counts the host's: the help said "the CPU count",
    the code took min(8, cpu_count), and a build pinned to 2 of 64 CPUs forked 8 (a QA pass)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this system (macOS)
        usable = os.cpu_count() or 1
    return max(1, min(8, usable))


def _check_sources(sources: tuple[Path, ...]) -> tuple[Path, ...]:
    """Return *sources* (the default corpus when none), refused in one line when one is no file or
    folder, or when $TOPICHUB_CORPUS names nothing (it said "Error: /nonexist: does not exist", exit 1,
    not naming the variable; and a pipe, ``build <(zcat x.jsonl.gz)``, was said not to exist: a QA pass)."""
    corpus = os.environ.get("TOPICHUB_CORPUS")
    default = _default_corpus() if not sources and corpus else ()
    missing = [str(path) for path in default if not path.exists()]
    if missing and len(default) == 1:
        raise _OneLineError(f"TOPICHUB_CORPUS={corpus!r}: no such file or folder "
                            "(TOPICHUB_CORPUS sets the default SOURCES: correct it or unset it)")
    if missing:
        raise _OneLineError(f"TOPICHUB_CORPUS={corpus!r}: {', '.join(missing)}: no such file or folder "
                            f"(TOPICHUB_CORPUS sets the default SOURCES, several joined by {os.pathsep!r}: "
                            "correct it or unset it)")
    for source in sources:
        if str(source) == "-":  # click's "Path '-' does not exist.", where `update -` reads stdin (a new operator's pass)
            raise _OneLineError("SOURCES: - (standard input) is no file: a build reads its sources as files, and records "
                                "them to tell when they change; save it to a file first (topichub update reads "
                                "its change file from -)")
        if not (source.is_file() or source.is_dir()):
            raise _OneLineError(f"SOURCES: {source} is no file (a pipe or a device): a build reads its sources as files, "
                                "and records them to tell when they change; save it to a file first (topichub update "
                                "reads its change file from a pipe)")
    return sources


@main.command()
@click.argument("changes", type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@_index_option
@_wait_option
def update(changes: Path, index_dir: Path, wait: float) -> None:
    """Upsert or delete documents by id from a JSONL file, without a full rebuild.

    \b
    Each line of CHANGES is a document in the JSONL corpus format, which is
    added or replaces the document with its id, or
    {"id": "...", "delete": true}, which removes it.  See docs/operations.md.

    CHANGES is read as JSONL (gzipped or not) whatever its name, a pipe's too: unlike a build's
    sources, it can be nothing else.  A - reads it from standard input (as /dev/stdin does).
    """
    if str(changes) == "-":  # the convention: it was refused as "File '-' does not exist" (a QA pass)
        changes = Path("/dev/stdin")
    with _writing(f"update the index in {index_dir}", stoppable="update"):
        from index.update import update as apply_update

        report = apply_update(changes, index_dir, lock_wait=wait)
    if report.repeated:  # the later line won, as in a build: said, as an edit meant to win may not have
        _reported(f"warning: {changes} names {_counted(len(report.repeated), 'id')} on more than one line; "
                  f"the later line wins: {_some_ids(report.repeated)}", err=True)
    if not report.changed:
        why = (f"its {_counted(len(report.missing), 'id')} to delete {'is' if len(report.missing) == 1 else 'are'} "
               "not in the index") if report.missing else "it holds no changes"
        if report.unchanged:
            why = (f"its {_counted(report.unchanged, 'record')} {'says' if report.unchanged == 1 else 'say'} what the index "
                   "already holds" + (f", and {why}" if report.missing else ""))
        _reported(f"{changes}: {why}; snapshot {report.snapshot} stays published")
        return
    missing = (f" ({_counted(len(report.missing), 'id')} to delete {'was' if len(report.missing) == 1 else 'were'} "
               "not in the index)") if report.missing else ""
    _reported(
        f"updated in {report.seconds:.2f} s: {report.added} added, {report.replaced} replaced, "
        f"{report.deleted} deleted{missing}; {_counted(report.doc_count, 'document')}"
        f"\npublished snapshot {report.snapshot} in {index_dir}"
    )
    _warn_of_dates(report.dating, "update")


def _needs_build(index_dir: Path) -> tuple[str, tuple[Path, ...]] | None:
    """Return why and from what *index_dir* must be (re)built before serving, or None."""
    from index.schema import SCHEMA_VERSION
    from index.vectors import enabled as semantic_enabled, same_model
    from web.health import SourceWatch, replica_origin

    if store.current_id(index_dir) is None:
        if store.snapshot_ids(index_dir):
            # Not a first run: building the bundled corpus here replaced a site with the demo one.
            raise click.ClickException(str(store.no_current(index_dir)))
        return f"no index has been built in {index_dir} yet: building it from {', '.join(map(str, _default_corpus()))}", ()
    try:
        meta = store.read_meta(store.current_path(index_dir))
    except store.IndexUnavailable as exc:
        # Damaged or missing, not absent: building the bundled corpus in its place served 57 pages as
        # healthy on a replica of thousands.  The workers serve the newest older snapshot that
        # verifies and /healthz says degraded, as when it is found damaged while running.
        served = store.current_id(index_dir)
        if served is not None and store.stand_ins(index_dir, served):
            click.echo(f"warning: {exc}; serving the newest older snapshot that verifies, if any (/healthz says "
                       "degraded): publish a good copy, or run `topichub rollback`", err=True)
        else:  # rollback would find nothing to go back to (a QA pass: it was the advice all the same)
            click.echo(f"warning: {exc}; no older snapshot can stand in, so searches answer 503 (/healthz says "
                       f"degraded): rebuild with `topichub build SOURCES --index-dir {index_dir}`, or publish a good copy",
                       err=True)
        return None
    if replica_origin(store.current_path(index_dir)) is not None:
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise click.ClickException(
                f"the replica {index_dir} serves schema version {meta.get('schema_version')}, this code needs "
                f"{SCHEMA_VERSION}: publish a snapshot built by this code to it"
            )
        return None  # built elsewhere: its sources were never this host's to rebuild from
    recorded = meta.get("sources")
    sources = tuple(Path(str(p)) for p in recorded) if isinstance(recorded, list) else ()
    if meta.get("schema_version") != SCHEMA_VERSION:
        if sources and all(p.exists() for p in sources):
            return (f"the index has schema version {meta.get('schema_version')}, this code needs "
                    f"{SCHEMA_VERSION}: rebuilding it from its sources"), sources
        raise click.ClickException(
            f"the index in {index_dir} has schema version {meta.get('schema_version')}, this code needs "
            f"{SCHEMA_VERSION}, and its sources are gone: run `topichub build SOURCES --index-dir {index_dir}`"
        )
    # Built before vectors existed (no key), or with another model: rebuilt as for a schema change.
    stale_vectors = "semantic" not in meta or (meta["semantic"] is not None and not same_model(meta["semantic"]))
    changed = SourceWatch().changed(sources, meta.get("fingerprint"))
    # Served by a rollback, from sources changed since: a rebuild published them again, the build
    # rolled back from (a QA pass: the restart after a rollback undid it).  An explicit build still does.
    withdrawn = _rolled_back_from(index_dir) if changed else []
    if stale_vectors and semantic_enabled() and sources and all(p.exists() for p in sources) and not withdrawn:
        return "the index has no vectors of the installed model: rebuilding it from its sources", sources
    if changed:
        if not all(p.exists() for p in sources):
            click.echo("warning: some sources of the index are gone; serving it as it is", err=True)
        elif meta.get("updates"):
            click.echo("warning: the sources changed since the build, but updates were applied since; "
                       "serving it as it is (run `topichub build` to rebuild)", err=True)
        elif withdrawn:
            click.echo(f"warning: the sources changed since the build, but snapshot {store.current_id(index_dir)} "
                       f"was rolled back to (from {withdrawn[0]}); serving it as it is, not rebuilt (run "
                       f"`topichub build SOURCES --index-dir {index_dir}` to rebuild)", err=True)
        else:
            return "the sources changed since the index was built: rebuilding it", sources
    return None


def _rolled_back_from(index_dir: Path) -> list[str]:
    """Return the snapshots the served one was rolled back from, newest first: none unless it was
    reached by a rollback.  Its own note says so (``store.stepped_back``), also once a prune deleted
    what it was rolled back from; else the kept snapshots newer than it that were withdrawn."""
    served = store.current_id(index_dir) or ""
    note = store.stepped_back(store.snapshots_dir(index_dir) / served) if served else None
    withdrawn = [name for name in reversed(store.snapshot_ids(index_dir))
                 if name > served and store.withdrawn(store.snapshots_dir(index_dir) / name) is not None]
    if note is not None:
        return list(dict.fromkeys([*([str(note["from"])] if note.get("from") else []), *withdrawn])) or [served]
    return withdrawn


def _servable(index_dir: Path) -> bool:
    """Return whether *index_dir* has a published index this code can serve (of its schema version)."""
    from index.schema import SCHEMA_VERSION

    try:
        return store.read_meta(store.current_path(index_dir)).get("schema_version") == SCHEMA_VERSION
    except store.IndexUnavailable:
        return False


def _check_semantic_switch() -> None:
    """Fail with one line on a ``TOPICHUB_SEMANTIC`` naming neither on nor off, in every command that
    reads it (build, search, serve): build and search took "maybe" for on, which serve refused."""
    from index.vectors import SWITCH, switch

    try:
        switch(os.environ.get(SWITCH))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def _check_gunicorn_args() -> None:
    """Refuse a ``GUNICORN_CMD_ARGS`` in one line: gunicorn reads it over web/gunicorn_conf.py, so it could
    print plain-text access lines into the JSON log stream or set another timeout or worker class past
    the TOPICHUB_* checks, without a word (a QA pass).  Refused, not dropped with a warning: what it
    held (a certificate, a proxy's address) would be served without."""
    given = os.environ.get("GUNICORN_CMD_ARGS")
    if given and given.strip():
        raise _OneLineError(f"GUNICORN_CMD_ARGS={given!r} is not read by topichub serve, whose gunicorn settings are "
                            "web/gunicorn_conf.py's and the TOPICHUB_* settings (docs/operations.md): unset it (or run gunicorn "
                            "itself, --config python:web.gunicorn_conf)")


def _check_environment() -> None:
    """Fail with one line, before gunicorn starts, on a setting its workers could not use (they
    failed to boot, or printed gunicorn's traceback after "serving on")."""
    from gunicorn.util import load_class

    from web import WORKER_TIMEOUT_S, query_budget, trusted_hosts, worker_class as configured_worker_class

    worker_class = configured_worker_class()
    try:
        load_class(worker_class, section="gunicorn.workers")
    except (RuntimeError, ImportError, AttributeError):  # (gunicorn's message holds a whole traceback)
        raise click.ClickException(
            f"TOPICHUB_WORKER_CLASS={worker_class!r} is not a gunicorn worker class (gevent, the default; sync; gthread)"
        ) from None
    budget = os.environ.get("TOPICHUB_QUERY_BUDGET_S")
    try:
        query_budget(budget)
    except ValueError:
        raise click.ClickException(
            f"TOPICHUB_QUERY_BUDGET_S={budget!r} must be a number of seconds above 0 and below {WORKER_TIMEOUT_S} "
            "(the worker timeout)"
        ) from None
    try:
        trusted_hosts(os.environ.get("TOPICHUB_TRUSTED_HOSTS"))
    except ValueError as exc:
        raise click.ClickException(f"TOPICHUB_TRUSTED_HOSTS: {exc}") from None
    _check_semantic_switch()
    _check_forwarded_allow_ips(os.environ.get("FORWARDED_ALLOW_IPS"))
    metrics = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics:  # gunicorn's master empties it, or makes it, before any worker starts: a traceback if it cannot
        folder = Path(metrics)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.ClickException(f"PROMETHEUS_MULTIPROC_DIR={metrics!r} cannot be a folder: {exc.strerror or exc}") from None
        try:  # a file written, not os.access: root passes that check where the kernel refuses (/sys/kernel)
            probe = folder / f".topichub-probe-{os.getpid()}.db"
            probe.write_bytes(b"0")
            probe.unlink()
        except OSError as exc:
            raise click.ClickException(
                f"PROMETHEUS_MULTIPROC_DIR={metrics!r} is not a folder this user can write to: {exc.strerror or exc}"
            ) from None


# Each worker's metrics are three files of 64 KiB (prometheus_client), written through a mapping and
# doubled as they fill: room for each to double once is asked for before gunicorn starts.
METRICS_ROOM_PER_WORKER = 3 * 128 * 1024


def _check_metrics_room(workers: int) -> None:
    """Fail with one line when the metrics folder's disk has no room for the workers' files: on a full
    disk each worker died of SIGBUS at its first request and gunicorn started another, thousands a
    minute, no request answered and no word of why."""
    import tempfile

    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    folder = Path(given) if given else Path(tempfile.gettempdir())  # where gunicorn_conf makes its own
    probe = folder / f".topichub-room-{os.getpid()}"
    try:
        with probe.open("wb") as handle:
            os.posix_fallocate(handle.fileno(), 0, workers * METRICS_ROOM_PER_WORKER)
    except OSError as exc:
        where = f"PROMETHEUS_MULTIPROC_DIR={given!r}" if given else f"{folder} (the metrics folder's place without PROMETHEUS_MULTIPROC_DIR)"
        whose = "the worker's" if workers == 1 else f"the {workers} workers'"  # "the 1 workers'" (a QA pass)
        raise click.ClickException(
            f"{where} has no room for {whose} metrics files ({exc.strerror or exc}): free some "
            "space there, or point PROMETHEUS_MULTIPROC_DIR at a folder on a disk with room"
        ) from None
    finally:
        probe.unlink(missing_ok=True)


def _check_forwarded_allow_ips(allowed: str | None) -> None:
    """Fail with one line on a ``FORWARDED_ALLOW_IPS`` gunicorn would refuse: it did so after "serving
    on" (and after a build), in words naming no variable ("'proxy.lan' does not appear to be an IPv4
    or IPv6 network").  Read as gunicorn reads it: comma-separated, each an address, a network or *."""
    import ipaddress

    from gunicorn.config import validate_string_to_list

    for address in validate_string_to_list(allowed) if allowed is not None else ():
        try:
            if address != "*":
                ipaddress.ip_network(address)
        except ValueError:
            raise click.ClickException(
                f"FORWARDED_ALLOW_IPS={allowed!r}: {address!r} is no IP address or network (list the proxies' "
                "addresses or networks, comma-separated, such as 10.0.0.5,10.1.0.0/16, or * for any)"
            ) from None


def _check_listen(host: str, port: int) -> None:
    """Fail with one line, before gunicorn starts, when *host*:*port* cannot be listened on (in use)."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
            probe.bind(address)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


@main.command()
@_index_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", cls=_EnvOption, envvar="PORT", type=click.IntRange(1, 65535), default=8000,
              show_default="8000 (or $PORT)")
@click.option("--workers", cls=_EnvOption, envvar="WEB_CONCURRENCY", type=click.IntRange(1, 64), default=2,
              show_default="2 (or $WEB_CONCURRENCY)", help="gunicorn worker processes (each opens the index itself).")
@click.option("--threads", type=click.IntRange(1, 32), default=1, show_default=True, help="Threads per worker, for TOPICHUB_WORKER_CLASS=gthread; gevent workers (the default) ignore it.")
def serve(index_dir: Path, host: str, port: int, workers: int, threads: int) -> None:
    """Serve the search page and API under gunicorn.

    Builds the index first when there is none, when it was built with another schema version, or
    when its sources changed since the build (unless updates were applied to it since, or it was
    rolled back to).
    """
    _check_gunicorn_args()
    _check_environment()
    _check_metrics_room(workers)
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1], as a URL writes it
    _check_listen(host, port)  # before a rebuild that may take minutes
    # An IPv6 address in brackets, as gunicorn's --bind and a URL take it: ::1:8000 was read as host and an empty port.
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    with store.stop_on_signals():  # to the exec: a stop asked during or after a build is not served
        reason = _needs_build(index_dir)
        if reason is not None:
            message, sources = reason
            click.echo(message, err=True)
            if not _servable(index_dir):
                _build(sources, index_dir, wait=600, summary_err=True)  # nothing to serve until it is built: wait for a writer
            else:
                try:  # a published index this code can serve: a failed rebuild leaves it serving
                    _build(sources, index_dir, summary_err=True)
                except _Stopped:
                    raise
                except click.ClickException as exc:
                    click.echo(f"warning: the rebuild failed ({exc.format_message()}); serving the published index "
                               "as it is (/healthz says sources_changed)", err=True)
        _serve_unless_stopped(index_dir, address, workers, threads)


def _serve_unless_stopped(index_dir: Path, address: str, workers: int, threads: int) -> None:
    """Exec gunicorn on *address*, unless a stop signal came before (during serve's build, after its last check)."""
    try:
        store.check_stop()
    except store.Stopped as exc:
        raise _Stopped(f"serve stopped by {exc} before it started serving", exc.signum) from None
    os.environ["TOPICHUB_INDEX_DIR"] = str(index_dir.resolve())
    args = [
        sys.executable, "-m", "gunicorn",
        "--config", "python:web.gunicorn_conf",
        "--bind", address,
        "--workers", str(workers),
        "--threads", str(threads),
        "web:create_app()",
    ]
    # The pid that stops it: exec keeps this process's, so it is gunicorn's master.  `make run` runs
    # serve as make's child, and SIGTERM to make's pid (the one an operator sees) ended make alone:
    # "make: *** [Makefile:46: run] Terminated", the master and its workers serving on under pid 1, and
    # the next `make run` "cannot listen on 127.0.0.1:8000" (a new operator's pass).
    click.echo(f"serving on http://{address}/ with {_counted(workers, 'worker')} "
               f"(pid {os.getpid()}; Ctrl-C or SIGTERM to it stops the service)", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(sys.executable, args)
    except OSError as exc:  # (a noexec mount, a venv's python removed or made unreadable): it was a traceback (a QA pass)
        raise click.ClickException(f"cannot start gunicorn ({sys.executable} -m gunicorn): {exc.strerror or exc}; "
                                   "nothing is served") from None


@main.command()
@click.argument("query", nargs=-1)
@_index_option
@click.option("--topic", multiple=True, help="Only this topic (repeatable).")
@click.option("--entity", multiple=True, help="Only this organisation (repeatable).")
@click.option("--kind", multiple=True, type=click.Choice(["event", "guide"], case_sensitive=False), help="Only this type (repeatable).")
@click.option("--month", multiple=True, help="Only this month, YYYY-MM (repeatable).")
@click.option("--since", help="Only documents dated at or after this (an ISO 8601 date or date-time).")
@click.option("--until", help="Only documents dated at or before this (a date takes in its whole day).")
@click.option("--sort", type=click.Choice(["relevance", "newest", "listing"]), help="Default: relevance with a query, else newest.")
@click.option("--page", default="1", show_default=True, metavar="N", help="Which page of results (1 = first).")
@click.option("--per-page", default="10", show_default=True, metavar="N", help="Results a page (1 to 50).")
@click.option("--explain", is_flag=True, help="Show how each hit's score adds up (in the JSON: each hit's explanation).")
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON instead of text.")
def search(
    query: tuple[str, ...], index_dir: Path, topic, entity, kind, month, since, until, sort, page, per_page, explain: bool, as_json: bool
) -> None:
    """Search the index and print the results.

    Quote a query with syntax: `topichub search "python -doc"` (or `topichub search -- python -doc`),
    since a word starting with - is otherwise read as an option.  Options go before the --: every word
    after it is the query's (`topichub search --index-dir IX -- python -doc`)."""
    from werkzeug.datastructures import MultiDict

    from search.params import InvalidParameter, parse_params
    from search.service import SearchService

    _check_semantic_switch()
    _warn_of_options_as_words(query)
    args = MultiDict([("q", " ".join(query)), ("page", page), ("per_page", per_page)])
    for name, value in (("sort", sort), ("since", since), ("until", until), ("explain", "1" if explain else None)):
        if value:
            args.add(name, value)
    for name, values in (("topic", topic), ("entity", entity), ("kind", kind), ("month", month)):
        for value in values:
            args.add(name, value)
    try:
        service = SearchService(index_dir)
        asked = parse_params(args)
        inlined = service.snapshot().inline_filters(asked)
        result = service.search(inlined)
    except InvalidParameter as exc:
        if exc.param == "q":  # the query is the argument, not an option
            raise click.UsageError(f"QUERY: {exc.message.replace(chr(39) + 'q' + chr(39), 'the query')}") from None
        raise click.UsageError(f"--{exc.param.replace('_', '-')}: {exc.message}") from None
    except store.IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    except (OSError, MemoryError) as exc:  # out of open files or memory mid-search (Whoosh opens files as it reads)
        from search.snapshot import ResourceShortage

        if (short := ResourceShortage.of(exc, "the search cannot be answered now")) is None:
            raise
        raise click.ClickException(str(short)) from None
    with _printing("the results"):
        if not as_json:  # what the page says of filters typed in the query (it said nothing: a QA pass)
            result = _print_typed_filters(asked, inlined, result)
            _print_typed_dates(service.snapshot().typed_filters(asked), inlined)
        _print_results(result, as_json)


def _warn_of_options_as_words(query: tuple[str, ...]) -> None:
    """Warn in one line on stderr of the query's words that are this command's own options, and search them.

    Before a ``--`` click takes an option for what it is, so such a word came after it, where every
    word is the query's: `search -- python -doc --index-dir IX --per-page 2` searched the default
    index for "python -doc --index-dir IX --per-page 2" and printed "missing: index-dir, …" (a new
    operator's pass).  Still searched: a query may mean the words (`search -- --help`)."""
    context = click.get_current_context()
    help_option = context.command.get_help_option(context)
    names = {name for param in [*context.command.params, *([help_option] if help_option else [])]
             for name in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ()))
             if name.startswith("-")}
    typed = list(dict.fromkeys(word.split("=", 1)[0] for word in query if word.split("=", 1)[0] in names))
    if typed:
        said = " and ".join((", ".join(typed[:-1]), typed[-1])) if len(typed) > 1 else typed[0]
        _reported(f"warning: {said} after -- {'is' if len(typed) == 1 else 'are'} searched as "
                  f"{'a word' if len(typed) == 1 else 'words'}; put options before --", err=True)


def _print_typed_filters(asked, inlined, result: SearchResult) -> SearchResult:
    """Print which filters typed in the query (*asked*'s) were read as filters and which as words, and
    why, as the page does; return *result* without the words excluded in vain said so (its note
    named "topic:funding" again for ``-topic:funding``: ``search.params.in_vain_besides_filters``)."""
    from dataclasses import replace

    from search.params import MAX_FILTER_VALUES, in_vain_besides_filters, inline_operators, typed_as_words

    left = typed_as_words(inlined, result.excluded_in_vain)
    as_words = {(name, value) for name, value, _why, _words in left}
    if taken := [f"{name}:{value}" for _span, name, value, _apart in inline_operators(asked.q) if (name, value) not in as_words]:
        click.echo(f"Filtered as typed: {', '.join(taken)}")
    for name, value, why, in_vain in left:
        after = ""
        if why == "joined":
            said = "a filter is not left out, joined by OR or put in parentheses"
        elif why.startswith("excluded"):
            said = "a filter is not left out"
            if why == "excluded in vain":
                after = ": no document has them, so excluding them left nothing out"
            elif in_vain:
                after = f": no document has {', '.join(in_vain)}, so excluding {'it' if len(in_vain) == 1 else 'them'} left nothing out"
        elif why == "too many":
            chosen = len(getattr(inlined, name))
            said = f"more values than a filter takes ({MAX_FILTER_VALUES} at most{f', with the {chosen} chosen already' if chosen else ''})"
        else:
            said = "a filter this index cannot filter by"
        shown = f'"{value}"' if " " in value else value  # as typed: 'entity:"Mistral AI"', not 'entity:Mistral AI'
        click.echo(f"{name}:{shown}: {said}, so its words were searched{after}.")
    return replace(result, excluded_in_vain=in_vain_besides_filters(inlined.q, result.excluded_in_vain))


def _print_typed_dates(typed, inlined) -> None:
    """Print the days a phrase of time in the query was read as ("last week": ``search.when``): *typed*
    is the search with its typed filters read, *inlined* with its phrase of time too."""
    from search.when import time_phrase

    if (typed.since, typed.until) != (inlined.since, inlined.until):
        read = time_phrase(typed.q)  # (the same reading: for its words as typed)
        if inlined.until is None:
            days = f"from {inlined.since} on"
        else:  # "yesterday (2026-12-06, UTC)", not "2026-12-06 to 2026-12-06"
            days = inlined.since if inlined.since == inlined.until else f"{inlined.since} to {inlined.until}"
        # In place of the options' dates or month (a QA pass: --since and --until went unsaid).
        given = [f"--{name} {value}" for name in ("since", "until") if (value := getattr(typed, name))]
        given += [f"--month {value}" for value in typed.month]
        instead = f", in place of {' '.join(given)}" if given else ""
        click.echo(f"Dated as typed: {read.phrase + ' ' if read else ''}({days}, UTC){instead}")


def _print_results(result: SearchResult, as_json: bool) -> None:
    """Print *result* as ``search`` does: the API's JSON, or text with the page's notes."""
    import html

    from search.explain import summary

    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return

    def ansi(markup: str) -> str:
        text = re.sub(r"<mark>(.*?)</mark>", lambda m: click.style(m.group(1), bold=True, fg="yellow"), markup)
        return " ".join(html.unescape(text).split())  # a line break in the text would leave the indent

    where = f"page {result.page} of {result.pages}" if result.page <= result.pages else f"{result.pages} {'page' if result.pages == 1 else 'pages'}"
    click.echo(f"{_counted(result.total, 'result')} in {result.took_ms:.1f} ms ({where})")
    if result.reachable < result.total:  # the pages stop at the result window's end, as on the page
        click.echo(f"Only the first {result.reachable:,} of {result.total:,} results can be paged through "
                   f"(--page {result.pages} is the last); add a word or a filter to reach the others.")
    if result.suggestion and result.total:
        click.echo(f"Showing results for: {result.suggestion.text}")
    if result.offered and result.total:
        click.echo(f"Did you mean: {result.offered.text}")
    if result.short_prefixes:  # the page's notes, as the JSON's fields (QA pass AB: the CLI said neither)
        click.echo(f"A word needs two letters at least before a * to be a prefix: {', '.join(result.short_prefixes)} "
                   f"{'was' if len(result.short_prefixes) == 1 else 'were'} searched as "
                   f"{'its word' if len(result.short_prefixes) == 1 else 'their words'}.")
    if result.dropped_words:
        click.echo(f"Your query is long: it was searched by its most telling words; {result.dropped_words} others were left out: "
                   f"{result.left_out()}.")
    if result.ignored_syntax:
        click.echo(f"{', '.join(result.ignored_syntax)}: other search engines' syntax, which this search does not use; "
                   f"the words were searched without {'it' if len(result.ignored_syntax) == 1 else 'them'}.")
    if result.excluded_in_vain:  # the page's note: these exclusions left nothing out
        said = " or ".join([", ".join(result.excluded_in_vain[:-1]), result.excluded_in_vain[-1]] if len(result.excluded_in_vain) > 1 else result.excluded_in_vain)
        them = "it" if len(result.excluded_in_vain) == 1 else "them"
        click.echo(f"No document has {said}: excluding {them} left nothing out."
                   + (f" Did you mean: {result.excluded_suggestion.text}" if result.excluded_suggestion else ""))
    if not result.total and result.ways_out:  # the page's "Try instead", each with what it finds
        click.echo("Try instead:")
        for way in result.ways_out:
            click.echo(f"  {_way_text(way)}: {_counted(way.count, 'result')}")
    if result.total and result.page > result.pages:
        click.echo(f"There is no page {result.page}: the results end on page {result.pages} (--page {result.pages}).")
    if result.answer:  # the page's card: one of the results, shown first and not repeated below
        answer = result.answer
        click.echo(f"\nAnswer from the guide: {click.style(answer.title, bold=True)}  {click.style(answer.url, dim=True)}")
        click.echo(f"     {ansi(answer.snippet_html)}")
        if answer.explanation:
            click.echo(f"     {click.style(summary(answer.explanation), dim=True)}")
    why = {"name": "  (exact name)", "meaning": "  (found by meaning)", "organisation": "  (found by organisation)"}
    first = (result.page - 1) * result.per_page + (2 if result.answer else 1)  # the card is the page's first result
    for number, hit in enumerate(result.hits, start=first):
        click.echo(f"\n{number:>3}. [{hit.kind}] {ansi(hit.title_html)}  {click.style(hit.url, dim=True)}{why.get(hit.matched_by, '')}")
        click.echo(f"     {ansi(hit.snippet_html)}")
        if dated := _dated(hit):
            click.echo(f"     {click.style(dated, dim=True)}")
        if hit.missing:  # as the page says it: three words at most, then how many more
            more = f" and {len(hit.missing) - 3} more" if len(hit.missing) > 3 else ""
            click.echo(f"     {click.style('missing: ' + ', '.join(hit.missing[:3]) + more, dim=True)}")
        if hit.explanation:
            click.echo(f"     {click.style(summary(hit.explanation), dim=True)}")


def _dated(hit: Hit) -> str:
    """Return a hit's dates as its page says them ("published 1 May 2024", "added to the hub …",
    "· updated …"): sorted --sort newest or filtered by --since, the list showed no date to see why
    (a QA pass)."""
    from web.dates import exact

    said = f"published {exact(hit.published)}" if hit.published else f"added to the hub {exact(hit.first_seen)}" if hit.first_seen else ""
    return f"{said} · updated {exact(hit.revised)}" if said and hit.revised else said


def _way_text(way: WayOut) -> str:
    """Return a way out of an empty result as the page words it, with the option or query that takes it."""
    if way.kind == "close_value":
        return f"--{way.facet} {way.value} instead"
    if way.kind == "without":
        return f"without --{way.facet} {way.value}" if way.value is not None else f"without any --{way.facet}"
    if way.kind in ("no_filters", "no_dates"):
        # The dates as the page says them: given by --since and --until or typed as a time ("library last
        # month"), where "without --since and --until" named options never given (a QA pass).
        return "without any filters" if way.kind == "no_filters" else "without the dates"
    if way.kind == "no_query":
        return "without the query: everything, newest first"
    said = {"suggestion": "did you mean", "no_exclusions": "without the excluded words", "no_quotes": "without the quotes",
            "any_words": "any of these words"}
    return f"{said.get(way.kind, way.kind)}: {way.params.q!r}"


@main.command()
@_index_option
def stats(index_dir: Path) -> None:
    """Print the published snapshot's facts as JSON: its single values first, then its lists."""
    try:
        path = store.current_path(index_dir)
        meta = store.read_meta(path)
    except store.IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    meta["size_bytes"] = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    with _printing("the facts"):
        click.echo(json.dumps(_summary_first(meta), indent=2, ensure_ascii=False))


def _summary_first(meta: dict[str, object]) -> dict[str, object]:
    """Return *meta* with its single values first (by name), then its lists and objects, shortest first.
    In name order the facts an operator asks for came among the analysis's lists (the four synonym
    lists, 1,460 lines of the 1,483 at 64k): `updated_at` at line 1,824 of the seed index's 1,836 and
    `size_bytes` last, `schema_version` and `snapshot` past the 175 lines of its organisations."""
    single = sorted((key, value) for key, value in meta.items() if not isinstance(value, (dict, list)))
    listed = sorted(((key, value) for key, value in meta.items() if isinstance(value, (dict, list))),
                    key=lambda item: (len(json.dumps(item[1], ensure_ascii=False)), item[0]))
    return dict(single + listed)


@main.command()
@_index_option
@click.option("--to", "targets", multiple=True, required=True, type=_Folder(),
              help="A replica's index folder, local or mounted (repeatable: published to each in turn).")
@_wait_option
def publish(index_dir: Path, targets: tuple[Path, ...], wait: float) -> None:
    """Copy the published snapshot of --index-dir into each --to folder and switch that folder to it.

    Each copy is verified against the snapshot's manifest (sizes and SHA-256) before its folder's
    `current` moves; a copy cut short or altered is never published.  Running it again is safe: a
    complete copy already there is not copied twice.
    """
    for target in targets:  # all of them before any is written to
        # A new replica's folder is made, as its first publish makes it; a missing parent is a typo or
        # a share not mounted: /nonexistent/deep/dir was made, path and all, and said published (a QA pass).
        if not target.exists() and not target.parent.is_dir():
            raise _OneLineError(f"--to {target}: its parent folder {target.parent} does not exist (a typo, or a share "
                                "not mounted?): make it first; publish makes only the replica's folder itself")
        try:
            store.check_target(target)
        except store.NotAReplicaFolder as exc:
            raise _OneLineError(str(exc)) from None
    try:  # the index published from, before any replica: its error came as "REPLICA: …", blaming the replica
        store.publishable(index_dir)
    except store.IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    with store.stop_on_signals():  # a copy of a large snapshot takes a while: SIGTERM ended it without a word
        for target in targets:
            try:
                report = store.publish_to(index_dir, target, lock_wait=wait)
            except store.Stopped as exc:
                raise _Stopped(f"publish stopped by {exc}; {target} serves what it served, nothing was published "
                               "there", exc.signum) from None
            except (store.IndexUnavailable, store.WriterBusy) as exc:
                raise click.ClickException(f"{target}: {exc}") from None
            except OSError as exc:
                raise click.ClickException(f"cannot publish to {target}: {exc}") from None
            moved = "already served" if report.previous == report.snapshot else f"was {report.previous or 'nothing'}"
            _reported(f"published snapshot {report.snapshot} in {target} ({moved}; "
                      f"{report.copied_bytes / 1e6:.1f} MB copied in {report.seconds:.2f} s)")


@main.command()
@_index_option
@click.option("--keep", type=click.IntRange(0, 1000), default=store.KEEP_OLD, show_default=True,
              help="Snapshots to keep besides the one being served, newest first.")
@_wait_option
def prune(index_dir: Path, keep: int, wait: float) -> None:
    """Delete old snapshots; the one being served is never deleted.

    Also deletes what killed writers left (a build's .tmp- folder, a snapshot never served), where
    nothing is served yet too."""
    # A signal while it waits for another writer (--wait) stops it, as it stops a build; once it holds
    # the lock it finishes (it died by SIGTERM without a word, a QA pass).
    with _writing(f"prune {index_dir}", stoppable="prune", undone="nothing was removed"):
        removed, leftovers, unpublished = store.prune(index_dir, keep, lock_wait=wait)
    left = ", ".join(_leftover_said(leftover) for leftover in leftovers)
    if unpublished is not None:  # nothing published: what killed writers left was all there was to prune
        _reported(f"removed what unfinished writers left: {left}; no snapshot was pruned: {unpublished}")
        return
    _reported(f"removed {_counted(len(removed), 'snapshot')}" + (f": {', '.join(removed)}" if removed else "")
              + (f"; also removed what unfinished writers left: {left}" if leftovers else ""))


def _leftover_said(leftover: store.Leftover) -> str:
    """Return how ``prune`` names what an unfinished writer left and it removed: its name and size, and
    for a snapshot moved into place and never served, that it never served.  It was no snapshot in
    the count ("removed 0 snapshots") and removed only in a warning, "warning: removed snapshot ID"
    (a QA pass); ``topichub snapshots`` lists it with the ``.tmp-`` folders, not the snapshots, too."""
    return f"{leftover.name} ({'never served, ' if leftover.never_served else ''}{_size_said(leftover.size)})"


def _size_said(size: int) -> str:
    """Return *size* bytes as ``topichub snapshots`` and ``prune`` show sizes: in MB to a tenth, and in
    bytes where that would say 0.0 MB.  A 3-byte file showed as "0.0 MB", as an empty folder would; a
    size is a disk to free, and none of it is nothing (a QA pass).  ``--json`` gives the bytes."""
    megabytes = f"{size / 1e6:.1f}"
    return f"{size:,} B" if megabytes == "0.0" else f"{megabytes} MB"


@main.command()
@_index_option
@_wait_option
@click.option("--to", "to", type=_Snapshot(), metavar="SNAPSHOT", default=None,
              help="Serve this kept snapshot instead (an id in snapshots/, older or newer: forward again after a "
                   "rollback); also as `readlink current` prints it, snapshots/ID.")
def rollback(index_dir: Path, wait: float, to: str | None) -> None:
    """Serve the snapshot before the current one again (after checking its files).

    One rolled back from is passed over by later rollbacks; --to SNAPSHOT serves any kept one.
    """
    with _writing(f"roll back {index_dir}", stoppable="rollback", undone="nothing was rolled back"):
        served, target = store.rollback(index_dir, lock_wait=wait, to=to)
    if not served:
        _reported(f"now serving snapshot {target} in {index_dir} (none was current)")
        return
    moved = "rolled back" if target < served else "moved forward"
    _reported(f"{moved} from snapshot {served} to {target} in {index_dir}")


def _snapshot_facts(root: Path, snap_id: str, served: str | None) -> dict[str, object] | None:
    """Return what *root* records of its snapshot *snap_id* (its snapshot.json's build time, count,
    schema and language; whether it was withdrawn by a rollback; its size), or None when its folder
    is gone (a prune in between).  Files are checked by their sizes only (no checksum is read: at 64k
    a snapshot is 110 MB; ``rollback`` verifies the one it serves)."""
    folder = store.snapshots_dir(root) / snap_id
    facts: dict[str, object] = {"snapshot": snap_id, "served": snap_id == served, "built_at": None,
                                "updated_at": None, "doc_count": None, "schema_version": None, "language": None,
                                "size_bytes": None, "withdrawn": None, "problem": None, "kind": "snapshot",
                                "note": None}
    if not folder.is_dir():
        if snap_id != served:
            return None
        facts["problem"] = f"missing: current names it and {folder} is gone"
        return facts
    try:
        facts["size_bytes"] = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
        meta = json.loads((folder / store.META_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if not folder.is_dir():
            return None
        meta = None
        facts["problem"] = f"damaged: it has no {store.META_FILE}"
    except (OSError, ValueError) as exc:
        meta = None
        facts["problem"] = f"damaged: its {store.META_FILE} cannot be read ({exc})"
    if isinstance(meta, dict):
        facts.update(_recorded(meta))
        try:
            store.check_files(folder, snap_id, sums=False)
        except store.IndexUnavailable as exc:
            facts["problem"] = str(exc).replace(f"snapshot {snap_id} ", "", 1)
    elif meta is not None:
        facts["problem"] = f"damaged: its {store.META_FILE} holds no object"
    facts["withdrawn"] = store.withdrawn(folder)
    return facts


def _other_folders(root: Path, listed: set[str]) -> list[dict[str, object]]:
    """Return the facts of each entry in *root*'s ``snapshots/`` that is not one of the snapshots
    *listed*, by name, newest first: its size (all it holds, the disk deleting it frees), what it is
    (``note``: the table's state) and, when it needs an operator, ``problem`` (else None), with
    ``kind`` saying which of these it is:

    - ``temporary``: a ``.tmp-`` folder, where a build, update or publish writes before its snapshot
      is moved into place, and a prune renames a snapshot before deleting it.  While a writer holds
      the write lock (``store.writer_at_work``) it is that writer's work: no problem.  With none, it
      was left by one that was killed (each removes its own otherwise; the next writer deletes every
      one it finds): a problem, holding its disk until the next writer or ``prune``.  It was a problem
      either way, and a monitor alerting on any problem fired on every build while it ran; the lock
      tells them apart, not the folder's age (a guess at how long a build's slowest step writes nothing).
    - ``unserved``: a snapshot moved into place and not served yet (its ``.publishing-`` marker): its
      writer is about to switch ``current`` to it (no problem), or died first (a problem: the next
      writer deletes it).  ``snapshot_ids`` leaves it out, so no rollback, fallback or prune takes it
      for a snapshot.  It is whole (moved into place once written), so what its snapshot.json
      records is shown: the table said "-" for its build time and document count.
    - ``other``: anything else, such as a copy made by hand under a name no build gives (whole or not),
      or one under a snapshot's name cut short, with no ``snapshot.json`` or
      ``files.json``: no snapshot, so ``prune`` and ``rollback`` leave it alone, for ever: a problem.
    - ``file``: a file (nothing writes one there: a tarball or a log put there by hand), with its
      size; no command deletes it either: a problem.

    They were passed over in silence, and ``snapshots`` summed to less than ``du`` said: an operator
    saw no trace of a 108 MB ``.tmp-`` folder of a killed 64k build, or of ``cp -r`` cut short; and
    files were left out altogether (a 3 MB ``backup.tar.gz`` put there by hand).  Links are left out
    (a link holds no snapshot's disk)."""
    base = store.snapshots_dir(root)
    try:
        entries = sorted((p for p in base.iterdir() if p.name not in listed), key=lambda p: p.name, reverse=True)
    except OSError:  # no snapshots/, or a file of that name
        return []
    unserved = {marker.name[len(store.PUBLISHING):] for marker in root.glob(f"{store.PUBLISHING}*")}
    # Asked after listing: a folder listed while no writer holds the lock is a dead writer's (a
    # writer finishing meanwhile moved its own into place: gone, passed over below).
    holder, unknown, at_work = None, None, ""
    if any(p.name.startswith(".tmp-") or p.name in unserved for p in entries):
        try:
            holder = store.writer_at_work(root)
        except OSError as exc:  # the lock file unreadable by this user: said, as needing an operator
            unknown = f"whether a writer runs cannot be told: {exc}"
    if holder is not None:
        pid, _, writer = holder.partition(" ")
        at_work = f"{writer or 'a writer'}, process {pid}, holds the write lock" if pid.isdigit() else "a writer holds the write lock"
    found: list[dict[str, object]] = []
    for folder in entries:
        name = folder.name
        if folder.is_symlink():
            continue
        recorded: dict[str, object] = {}
        if not folder.is_dir():
            try:
                status = folder.lstat()
            except OSError:
                continue  # gone meanwhile
            found.append(_other_facts(name, "file", status.st_size if stat.S_ISREG(status.st_mode) else 0,
                                      "a file: nothing writes one here, and no command deletes it (delete it by hand)",
                                      problem=True))
            continue
        if name.startswith(".tmp-"):
            kind, pruned = "temporary", name.startswith(".tmp-pruned-")
            doing = "a prune deleting it" if pruned else "a build, update or publish writing it"
            if holder is not None:
                note, problem = f"temporary: {doing} ({at_work})", False
            elif unknown is not None:
                note, problem = f"temporary: {doing}, or left by one that stopped ({unknown})", True
            else:
                left = ("a prune that could not finish deleting it" if pruned
                        else "a build, update or publish that was killed or crashed")
                note, problem = (f"temporary, left by {left} (no writer holds the write lock): `topichub prune` "
                                 f"deletes it, as the next build, update or publish does"), True
        elif name in unserved:
            kind, recorded = "unserved", _recorded_in(folder)
            if holder is not None:
                note, problem = f"not served yet: moved into place by a writer about to serve it ({at_work})", False
            elif unknown is not None:
                note, problem = f"not served: moved into place by a writer about to serve it, or that stopped ({unknown})", True
            elif not (root / f"{store.PUBLISHING}{name}").exists() or store.current_id(root) == name:
                continue  # served since the markers were read: its writer finished
            else:
                note, problem = ("not served: moved into place by a writer that stopped before serving it (no writer "
                                 "holds the write lock); no rollback picks it, and `topichub prune` deletes it, as the "
                                 "next build, update or publish does"), True
        elif store.is_snapshot(folder):
            continue  # a snapshot published since the list was read
        else:
            if name.startswith("."):
                why = "its name begins with a dot"
            elif not store.SNAPSHOT_ID.fullmatch(name):  # a copy made by hand: ids are a build's time
                why = "a name no build gives (a snapshot's is its build time, as 20250101T000000-000000-1)"
            elif (recorded_id := store.recorded_as(folder)) not in (None, name):
                why = f"a copy of snapshot {recorded_id} under another id"
            else:
                why = f"incomplete: no {store.META_FILE}"
            kind, note, problem = "other", f"{why}; no snapshot, so prune and rollback leave it alone (delete it by hand)", True
        size = _folder_bytes(folder)
        if size is None:
            continue  # gone meanwhile: its writer finished
        found.append(_other_facts(name, kind, size, note, problem=problem, recorded=recorded))
    return found


def _other_facts(name: str, kind: str, size: int, note: str, *, problem: bool,
                 recorded: dict[str, object] | None = None) -> dict[str, object]:
    """Return the facts ``topichub snapshots`` lists of *name* in ``snapshots/``, which is no snapshot
    (``_other_folders``), under a snapshot's keys (``_snapshot_facts``): *note* says what it is, and
    is its ``problem`` too when *problem* (an operator is needed); what its snapshot.json records
    (*recorded*: an unserved snapshot's), else None."""
    return {"snapshot": name, "served": False, "built_at": None, "updated_at": None, "doc_count": None,
            "schema_version": None, "language": None, **(recorded or {}), "size_bytes": size, "withdrawn": None,
            "problem": note if problem else None, "kind": kind, "note": note}


# What snapshot.json records that ``topichub snapshots`` shows.
_RECORDED = ("built_at", "updated_at", "doc_count", "schema_version", "language")


def _recorded(meta: dict[str, object]) -> dict[str, object]:
    """Return what a snapshot.json's facts *meta* record that ``topichub snapshots`` shows."""
    facts = {key: meta.get(key) for key in _RECORDED}
    facts["language"] = facts["language"] or DEFAULT_LANGUAGE  # recorded since languages were told
    return facts


def _recorded_in(folder: Path) -> dict[str, object]:
    """Return what *folder*'s snapshot.json records that ``topichub snapshots`` shows ({} when unreadable)."""
    try:
        meta = json.loads((folder / store.META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return _recorded(meta) if isinstance(meta, dict) else {}


def _folder_bytes(folder: Path) -> int | None:
    """Return the bytes the files under *folder* hold, or None when it is gone; files that go while it
    is read (a build's, a prune's) are passed over, not an error."""
    total = 0
    for top, _folders, names in os.walk(folder):  # a folder gone meanwhile is passed over by os.walk
        for name in names:
            try:
                status = os.lstat(os.path.join(top, name))
            except OSError:
                continue
            if stat.S_ISREG(status.st_mode):
                total += status.st_size
    return total if folder.is_dir() else None


def _snapshot_line(facts: dict[str, object]) -> list[str]:
    """Return the columns of one snapshot's line of ``topichub snapshots``."""
    from index.schema import SCHEMA_VERSION

    def shown(value: object) -> str:
        return "-" if value is None else str(value)

    withdrawn = facts["withdrawn"]
    if facts["kind"] != "snapshot":  # no snapshot (``_other_folders``): what it is says it all, its problem too
        state = [str(facts["note"])]
    elif facts["served"]:
        state = ["served"]
    elif isinstance(withdrawn, dict):  # {} when its note is unreadable: withdrawn all the same
        when = f" {withdrawn['withdrawn_at']}" if isinstance(withdrawn.get("withdrawn_at"), str) else ""
        for_ = f", rolled back to {withdrawn['for']}" if isinstance(withdrawn.get("for"), str) else ""
        state = [f"withdrawn{when}{for_}"]
    else:
        state = ["kept"]
    schema = facts["schema_version"]
    if schema is not None and schema != SCHEMA_VERSION:
        state.append(f"schema {schema}: this code reads {SCHEMA_VERSION}, it cannot be served")
    if facts["problem"] and facts["kind"] == "snapshot":
        state.append(str(facts["problem"]))
    count = facts["doc_count"]
    size = facts["size_bytes"]
    return ["*" if facts["served"] else " ", str(facts["snapshot"]), shown(facts["built_at"]), shown(facts["updated_at"]),
            f"{count:,}" if isinstance(count, int) else "-", shown(schema), shown(facts["language"]),
            _size_said(size) if isinstance(size, int) else "-", "; ".join(state)]


@main.command()
@_index_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list, newest first, instead of text.")
def snapshots(index_dir: Path, as_json: bool) -> None:
    """List the snapshots the index folder keeps, newest first, the one served marked *.

    Each with its build time, last update, document count, schema version, language and size, and
    whether a rollback withdrew it (a later rollback passes over it) or its files are damaged (sizes
    checked; `rollback` checks the checksums of the one it serves).  Then any other folder or file
    in snapshots/ with its size: a build's temporary one, or one that is no snapshot.  In --json,
    `problem` is null unless an operator is needed (a build's folder while it runs is none); the
    list is printed also when there is nothing to list ([], exit 1 as no index has been built).
    """
    served = store.current_id(index_dir)
    ids = list(reversed(store.snapshot_ids(index_dir)))
    if served is not None and served not in ids:  # current names a folder that is gone: say so, first
        ids = sorted({*ids, served}, reverse=True)
    listed = [facts for snap_id in ids if (facts := _snapshot_facts(index_dir, snap_id, served)) is not None]
    # After the snapshots (the first lines stay the newest ones): what else holds disk there.
    others = _other_folders(index_dir, {str(facts["snapshot"]) for facts in listed})
    # With --json, stdout is a JSON list whatever the folder holds, [] for nothing: a monitor parses it.
    # A first build reading its sources (no snapshots/ yet) printed no JSON, only this line (a QA pass).
    if as_json or listed or others:
        with _printing("the list"):
            _print_snapshots([*listed, *others], served, index_dir, as_json)
    if not listed:  # nothing built, or a first build running or killed (its folder shown): no index all the same
        raise click.ClickException(f"no index has been built in {index_dir} yet")


def _print_snapshots(listed: list[dict[str, object]], served: str | None, index_dir: Path, as_json: bool) -> None:
    """Print ``topichub snapshots``'s list, as JSON or as a table (the hint naming ``rollback --to`` when
    snapshots are kept and none is served)."""
    if as_json:
        click.echo(json.dumps(listed, indent=2, ensure_ascii=False))
        return
    # A folder's name is told, never acted on: a tab or a line break in one broke the table (a regression pass).
    rows = [["", "SNAPSHOT", "BUILT", "UPDATED", "DOCUMENTS", "SCHEMA", "LANGUAGE", "SIZE", "STATE"],
            *([printable(cell) for cell in _snapshot_line(facts)] for facts in listed)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    right = {4, 7}  # counts and sizes line up on their last digit
    for row in rows:
        cells = [cell.rjust(width) if column in right else cell.ljust(width)
                 for column, (cell, width) in enumerate(zip(row, widths))]
        click.echo("  ".join([*cells, row[-1]]).rstrip())
    if served is None and any(facts["kind"] == "snapshot" for facts in listed):
        click.echo(f"none is served: no current link; choose one with `topichub rollback --to SNAPSHOT --index-dir {index_dir}`")


def _snapshot_id(value: str) -> str:
    """Return the snapshot id that ``rollback --to`` *value* names: the id, or its folder as an operator
    copies it, ``snapshots/ID`` (what ``readlink current`` prints in the index folder), ``…/snapshots/ID``
    or ``ID/`` (a shell completes a folder with a slash).  These were refused as "no snapshot
    snapshots/ID is kept", the list that followed naming ID.  Anything else is passed on as it is,
    for the store to refuse with the ids it keeps.

    Only the id is read from a longer path: a folder of another index names a snapshot kept here
    only if it is a copy of it (``publish`` copies under the builder's id, verified before it serves).
    """
    head, slash, name = value.rstrip("/").rpartition("/")
    if name and (not slash or head == "snapshots" or head.endswith("/snapshots")):
        return name
    return value


if __name__ == "__main__":
    main()
