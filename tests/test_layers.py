"""The layers' dependencies point one way: web → search → index → corpus (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(package: str) -> dict[str, set[str]]:
    """Return, for each module file of *package*, the project modules and names it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[path.name] = names
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("search", ("corpus", "web")), ("index", ("search", "web")), ("corpus", ("search", "web"))],
)
def test_no_package_imports_a_layer_above_it(package, forbidden):
    offenders = {
        module: sorted(name for name in names if name.split(".")[0] in forbidden)
        for module, names in imported_modules(package).items()
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_corpus_takes_only_the_date_formats_from_the_index():
    uses = {
        module: sorted(name for name in names if name.split(".")[0] == "index")
        for module, names in imported_modules("corpus").items()
    }
    assert {name.split(".")[1] for names in uses.values() for name in names} <= {"dates"}


def test_only_the_service_module_knows_the_service():
    knows = [module for module, names in imported_modules("search").items()
             if any(name.endswith(".SearchService") for name in names)]
    assert knows == []
