"""The import rules of the README's developer's map, read from the library's sources with ast."""

import ast

from cases import ROOT

PATHS = {".".join(p.relative_to(ROOT / "lib").with_suffix("").parts).removesuffix(".__init__"): p
         for p in (ROOT / "lib/expressivity").rglob("*.py")}
PRIMITIVES = {"arguments", "ball_arithmetic", "fit", "io", "joblog", "plotting", "rng",
              "torch_runtime"}
#: Layer -> the layers it may import (a stage's experiments and claims: its own stage only).
ALLOWED = {"mathematics": {"mathematics", "primitive"}, "primitive": {"primitive"},
           "experiments": {"experiments", "mathematics", "primitive"},
           "claims": {"claims", "mathematics", "primitive"}, "reference": {"mathematics", "primitive"}}


def imported(module: str) -> set[str]:
    """Every module or package ``module`` imports (library modules by their full name)."""
    names = set()
    for node in ast.walk(ast.parse(PATHS[module].read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in names if name in PATHS} | {name.split(".")[0] for name in names}


GRAPH = {module: imported(module) for module in PATHS}


def layer(module: str) -> tuple[str, str | None]:
    """``(layer, stage)``: experiments, claims or reference (with the stage), primitive or
    mathematics."""
    parts = module.split(".")[1:] or ["expressivity"]
    if parts[0] in ("experiments", "claims", "reference"):
        return parts[0], parts[1] if len(parts) > 1 else None
    return ("primitive" if parts[0] in PRIMITIVES else "mathematics"), None


def test_each_layer_imports_only_what_the_map_allows():
    for module, names in GRAPH.items():
        assert not {"snakemake", "config_schema", "job_params"} & names, module
        (kind, stage) = layer(module)
        for other in names & PATHS.keys() - {"expressivity", module}:
            other_kind, other_stage = layer(other)
            assert other_kind in ALLOWED[kind], f"{module} ({kind}) imports {other} ({other_kind})"
            assert kind != other_kind or other_stage in (stage, None), f"{module} imports {other}"


def test_no_import_cycles():
    done = set()

    def visit(module, path):
        assert module not in path, " -> ".join([*path[path.index(module):], module])
        if module not in done:
            for other in sorted(GRAPH[module] & PATHS.keys() - {"expressivity", module}):
                visit(other, [*path, module])
            done.add(module)

    for module in sorted(GRAPH):
        visit(module, [])
