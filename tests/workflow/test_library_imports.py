"""The library files a job's script imports (workflow/library_imports.py), read with a regular
expression: the same names as Python's own parser finds, in every file it is used on."""

import ast

import pytest
from cases import ROOT
from library_imports import imported_names, library_closure

LIB = ROOT / "lib/expressivity"
SOURCES = sorted([*(ROOT / "lib").rglob("*.py"), *(ROOT / "workflow").rglob("*.py")])


def parsed_names(text: str) -> set[str]:
    """What ``ast`` finds: every module of an import and every name a ``from`` statement imports
    under its module, under ``expressivity``."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update([node.module, *(f"{node.module}.{a.name}" for a in node.names)])
    return {n for n in names if n.split(".")[0] == "expressivity"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_expression_finds_what_the_parser_finds(path):
    text = path.read_text()
    assert imported_names(text) == parsed_names(text)


@pytest.mark.parametrize("text, names", [
    ("from expressivity.a import (\n    b,  # why\n    c as d,\n)\n",
     {"expressivity.a", "expressivity.a.b", "expressivity.a.c"}),
    ("import expressivity.a, expressivity.b as e  # both\n", {"expressivity.a", "expressivity.b"}),
    ("def f():\n    from expressivity import x\n", {"expressivity", "expressivity.x"}),
    ("from expressivityx import y\nimport numpy\nfrom . import z\n", set()),
])
def test_import_statements_of_every_shape(text, names):
    assert imported_names(text) == parsed_names(text) == names


def test_the_closure_follows_imports_through_the_library(tmp_path):
    script = tmp_path / "job.py"
    script.write_text("from expressivity.experiments import trial_chunks\n")
    closure = library_closure([script], LIB)
    assert str(script) in closure and str(LIB / "__init__.py") in closure
    assert str(LIB / "experiments/__init__.py") in closure
