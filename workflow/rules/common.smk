# Shared helpers: config validation, library dependencies of scripts, stage registry.
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))
from config_schema import ConfigError, check_config  # noqa: E402

LIB = Path("lib/expressivity")
#: The software of every job (relative to workflow/rules/): the pinned packages, for --use-conda.
ENV = "../../environment.yml"

try:
    _checked = check_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except ConfigError as err:
    raise WorkflowError(f"{err}\nNothing was run; fix the config and start again.") from None


def _canonical(node):
    """The config with keys sorted at every level: params compare equal whatever the key order."""
    if isinstance(node, dict):
        return {k: _canonical(node[k]) for k in sorted(node)}
    return node


config.clear()
config.update(_canonical(_checked))


def _lib_imports(path):
    """Library modules (as files) imported by the Python file at ``path``."""
    found = set()
    for node in ast.walk(ast.parse(Path(path).read_text(), filename=str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != "expressivity":
                continue
            for i in range(1, len(parts) + 1):
                base = LIB.joinpath(*parts[1:i])
                for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                    if i > 1 and candidate.is_file():
                        found.add(candidate)
    found.add(LIB / "__init__.py")
    return found


def lib_deps(*paths):
    """The library files that the given scripts or modules use, followed transitively.

    A rule lists them as inputs, so an edit to the mathematics reruns exactly the jobs that use it.
    """
    todo = [Path(p) for p in paths]
    seen = set()
    while todo:
        for dep in _lib_imports(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(str(p) for p in seen)


def script_deps(name):
    """``workflow/scripts/<name>`` itself and the library files it uses.

    The script is an input so that its checksum, not its modification time, decides whether an
    edit reruns the job (the default profile drops Snakemake's mtime-based ``code`` trigger, which
    would rerun everything after a fresh ``git clone``)."""
    script = f"workflow/scripts/{name}"
    return [script, *lib_deps(script)]


def claims_module(stage):
    """The claims module of a stage (as a path), an input of the job evaluating its claims."""
    return str(LIB / "claims" / f"{stage}.py")


#: Tables each stage's claims are evaluated from: {stage: [csv paths]}; filled by the stage rules.
STAGE_TABLES = {}
#: Figures and tables each stage produces (the default target builds all): {stage: [paths]}.
STAGE_OUTPUTS = {}


def figure(stage, name):
    """PNG and PDF paths of one figure."""
    return [f"figures/{stage}/{name}.png", f"figures/{stage}/{name}.pdf"]
