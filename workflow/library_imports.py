"""Which library files a Python file imports: the inputs that make an edit to the mathematics rerun
exactly the jobs that use it (``workflow/rules/common.smk``: ``lib_deps``).

Every Snakemake start (a run, a dry run, a ``make`` with nothing to do) follows the imports of each
job's script through the library, about 200 files. They are read with one regular expression over
the import statements at the start of a line, not parsed (``ast.parse`` took 1.8 s of a start on
this machine, the expression 0.1 s); a test checks that both find the same names in every file of
the library and the scripts. Relative imports are not followed: the library imports absolutely.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

#: ``from expressivity.a.b import x, y`` (also parenthesised over several lines) or ``import
#: expressivity.a, expressivity.b``, at the start of a line.
STATEMENT = re.compile(r"^[ \t]*(?:from[ \t]+(expressivity(?:\.\w+)*)[ \t]+import[ \t]*"
                       r"(\([^)]*\)|[^\n]*)|import[ \t]+(expressivity[^\n]*))", re.M)


def imported_names(text: str) -> set[str]:
    """The dotted names under ``expressivity`` that the source ``text`` imports: each module of a
    ``from`` statement and each name it imports under it (a name may be a submodule)."""
    names = set()
    for statement in STATEMENT.finditer(text):
        module, imported, plain = statement.groups()
        if module:
            names.add(module)
            items = re.sub(r"#[^\n]*", "", imported).strip().strip("()").split(",")
            names.update(f"{module}.{item.split()[0]}" for item in items if item.strip())
        else:
            items = plain.split("#")[0].split(",")
            names.update(item.split()[0] for item in items if item.strip())
    return {name for name in names if name.split(".")[0] == "expressivity"}


@functools.cache
def library_imports(path: Path, lib: Path) -> frozenset[Path]:
    """The files of the library at ``lib`` (the ``expressivity`` package's folder) that the Python
    file at ``path`` imports, its ``__init__.py`` always among them."""
    found = {lib / "__init__.py"}
    for name in imported_names(Path(path).read_text()):
        parts = name.split(".")
        for i in range(2, len(parts) + 1):
            base = lib.joinpath(*parts[1:i])
            found.update(c for c in (base.with_suffix(".py"), base / "__init__.py") if c.is_file())
    return frozenset(found)


def library_closure(paths, lib: Path) -> list[str]:
    """The given files and the library files they use, followed transitively, sorted."""
    todo = [Path(p) for p in paths]
    seen = set(todo)
    while todo:
        for dep in library_imports(todo.pop(), lib):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(str(p) for p in seen)
