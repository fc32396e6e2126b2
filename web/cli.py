"""The operator's command line: ``topichub build | serve | search | stats``.

Errors are one line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from corpus.errors import CorpusError
from corpus.sources import DEFAULT_DIR
from index import store

DEFAULT_INDEX = Path(__file__).resolve().parent.parent / "instance" / "index"


def _index_option(func):
    return click.option(
        "--index-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=lambda: os.environ.get("TOPICHUB_INDEX_DIR") or str(DEFAULT_INDEX),
        show_default="instance/index (or $TOPICHUB_INDEX_DIR)",
        help="Folder holding the published index snapshots.",
    )(func)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Build, serve and query the topic hub's search index."""


def _build(sources: tuple[Path, ...], index_dir: Path, quiet: bool = False, procs: int = 1) -> None:
    from corpus.sources import load_corpus
    from index.build import build_corpus

    try:
        corpus = load_corpus(sources or (DEFAULT_DIR,))
        if quiet:
            report = build_corpus(corpus, index_dir, procs=procs)
        else:
            from tqdm import tqdm

            with tqdm(total=len(corpus.records), unit="doc", desc="indexing", file=sys.stderr,
                      disable=len(corpus.records) < 1000) as bar:
                report = build_corpus(corpus, index_dir, progress=bar.update, procs=procs)
    except (CorpusError, store.WriterBusy) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"built {report.doc_count} documents in {report.seconds:.2f} s "
        f"({report.docs_per_second:,.0f} documents/s, {report.size_bytes / 1e6:.1f} MB)"
        + (f"; {report.replaced_duplicates} repeated ids replaced" if report.replaced_duplicates else "")
        + f"\npublished snapshot {report.snapshot} in {index_dir}",
        err=quiet,
    )


@main.command()
@click.argument("sources", nargs=-1, type=click.Path(exists=True, path_type=Path))
@_index_option
@click.option("--procs", type=click.IntRange(1, 8), default=1, show_default=True, help="Indexing processes.")
def build(sources: tuple[Path, ...], index_dir: Path, procs: int) -> None:
    """Index SOURCES (topic pages, guides, JSONL files or folders; default: the bundled corpus)
    into a new snapshot and publish it; the live index is untouched if anything fails."""
    _build(sources, index_dir, procs=procs)


@main.command()
@_index_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=lambda: int(os.environ.get("PORT", "8000")),
              show_default="8000 (or $PORT)")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
def serve(index_dir: Path, host: str, port: int, workers: int) -> None:
    """Serve the search page and API under gunicorn, building the index first if there is none."""
    if store.current_id(index_dir) is None:
        click.echo(f"no index in {index_dir}: building it from {DEFAULT_DIR}", err=True)
        _build((), index_dir, quiet=True)
    os.environ["TOPICHUB_INDEX_DIR"] = str(index_dir.resolve())
    args = [
        sys.executable, "-m", "gunicorn",
        "--config", "python:web.gunicorn_conf",
        "--bind", f"{host}:{port}",
        "--workers", str(workers),
        "web:create_app()",
    ]
    click.echo(f"serving on http://{host}:{port}/ with {workers} workers", err=True)
    os.execv(sys.executable, args)


@main.command()
@click.argument("query", nargs=-1)
@_index_option
@click.option("--topic", multiple=True, help="Only this topic (repeatable).")
@click.option("--entity", multiple=True, help="Only this organisation (repeatable).")
@click.option("--kind", multiple=True, type=click.Choice(["event", "guide"]), help="Only this type.")
@click.option("--page", default="1", show_default=True)
@click.option("--per-page", default="10", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the API's JSON instead of text.")
def search(query: tuple[str, ...], index_dir: Path, topic, entity, kind, page, per_page, as_json: bool) -> None:
    """Search the index and print the results."""
    import re

    from werkzeug.datastructures import MultiDict

    from search.params import InvalidParameter, parse_params
    from search.service import SearchService

    args = MultiDict([("q", " ".join(query)), ("page", page), ("per_page", per_page)])
    for name, values in (("topic", topic), ("entity", entity), ("kind", kind)):
        for value in values:
            args.add(name, value)
    try:
        result = SearchService(index_dir).search(parse_params(args))
    except InvalidParameter as exc:
        raise click.UsageError(f"--{exc.param.replace('_', '-')}: {exc.message}") from None
    except store.IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        return

    def ansi(markup: str) -> str:
        import html

        text = re.sub(r"<mark>(.*?)</mark>", lambda m: click.style(m.group(1), bold=True, fg="yellow"), markup)
        return html.unescape(text)

    click.echo(f"{result.total} results in {result.took_ms:.1f} ms (page {result.page} of {result.pages})")
    for number, hit in enumerate(result.hits, start=(result.page - 1) * result.per_page + 1):
        click.echo(f"\n{number:>3}. [{hit.kind}] {ansi(hit.title_html)}  {click.style(hit.url, dim=True)}")
        click.echo(f"     {ansi(hit.snippet_html)}")


@main.command()
@_index_option
def stats(index_dir: Path) -> None:
    """Print the published snapshot's facts as JSON."""
    try:
        meta = store.read_meta(store.current_path(index_dir))
    except store.IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    meta["size_bytes"] = sum(p.stat().st_size for p in store.current_path(index_dir).iterdir())
    click.echo(json.dumps(meta, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
