"""Which config keys a job gets, derived once from the signature of the function it calls.

A job's experiments function (``expressivity.experiments.<stage>...``) takes its settings by
keyword, under the config's names: its signature is the one list of what the job reads. The rules'
``params:``, the arguments of the cost models behind their ``runtime`` and ``mem_mb``, and the
cases of ``tests/cases.py`` are all derived from it here. Each keyword is looked up in the job's
config sections, the most specific first: the sections named (relative to the stage), then the
stage, then the config's top level (``seed``); the first that holds the key gives its value.
A rule names three kinds of exception: ``supplied`` keywords its script passes itself (the job's
wildcards, the tables it reads), ``keys`` read from another place or under another name
(``{"kind": "sparse_approximation.module.example_kind"}``), and ``given`` values computed from the
config (a list filtered by another key).

The signature is read from the source with ``ast``, so building the DAG imports neither the library
nor torch (the no-op ``make`` stays fast). A keyword no section holds, or a ``supplied``, ``keys``
or ``given`` name the function does not take, is refused with a message naming both, so that a
signature and the config cannot drift apart silently.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
#: Keywords that are never settings: the job's log.
NOT_SETTINGS = frozenset({"log"})


class SignatureError(ValueError):
    """A rule's declaration and its function's signature disagree (a developer's error)."""


@functools.cache
def _functions(path: Path) -> dict[str, ast.FunctionDef]:
    """The top-level functions of the Python file at ``path`` (parsed once)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


@functools.cache
def keywords(function: str) -> tuple[tuple[str, bool], ...]:
    """``(name, has a default)`` of every parameter of ``function`` (dotted, e.g.
    ``expressivity.experiments.memorization.regimes.theory_rows``), read from its source file under
    ``lib/`` with ``ast``; positional-only parameters and ``*args``/``**kwargs`` are not settings."""
    module, name = function.rsplit(".", 1)
    base = LIB.joinpath(*module.split("."))
    path = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
    node = _functions(path).get(name)
    if node is not None:
        args = node.args
        plain = [(a.arg, i >= len(args.args) - len(args.defaults)) for i, a in enumerate(args.args)]
        keyword = [(a.arg, d is not None)
                   for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
        return tuple(plain + keyword)
    raise SignatureError(f"{function}: no function {name} in {path}")


def lookup(config: Mapping, dotted: str):
    """The value of the dotted key (``""`` is the whole config); ``KeyError`` when absent."""
    node = config
    for part in filter(None, dotted.split(".")):
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(dotted)
        node = node[part]
    return node


def scopes(stage: str, sections: Iterable[str]) -> list[str]:
    """Where a job's keywords are looked up, in order: ``<stage>.<section>`` for each section
    named, the stage, the top level."""
    return [f"{stage}.{section}" for section in sections] + [stage, ""]


def find(config: Mapping, name: str, places: Iterable[str]) -> str | None:
    """The dotted key of ``name`` in the first of ``places`` that holds it, or None."""
    for place in places:
        node = lookup(config, place) if place else config
        if isinstance(node, Mapping) and name in node:
            return f"{place}.{name}" if place else name
    return None


@dataclass(frozen=True)
class JobSettings:
    """What a job's function gets from the config: ``values`` (keyword -> value, the rule's
    params), ``keys`` (keyword -> the dotted config key it was read from) and ``supplied`` (the
    keywords the job passes itself)."""

    function: str
    values: dict
    keys: dict
    supplied: tuple[str, ...]


def job_settings(config: Mapping, stage: str, function: str, *sections: str,
                 supplied: Iterable[str] = (), keys: Mapping[str, str] | None = None,
                 given: Mapping | None = None) -> JobSettings:
    """The settings of a job that calls ``expressivity.experiments.<stage>.<function>``.

    Every keyword of its signature but ``log`` is ``supplied`` by the job, ``given``, read from the
    dotted key of ``keys``, or looked up in ``scopes(stage, sections)``; a keyword with a default
    that no section holds keeps its default. ``SignatureError`` names a keyword found nowhere and a
    declared name the function does not take."""
    function = f"expressivity.experiments.{stage}.{function}"
    supplied, keys, given = tuple(supplied), dict(keys or {}), dict(given or {})
    params = dict(keywords(function))
    for kind, names in (("supplied", supplied), ("keys", keys), ("given", given)):
        unknown = sorted(set(names) - set(params))
        if unknown:
            raise SignatureError(f"{function} takes no keyword {', '.join(unknown)} (declared as "
                                 f"{kind}); it takes {', '.join(params)}")
    places = scopes(stage, sections)
    values, found = {}, {}
    for name, has_default in params.items():
        if name in NOT_SETTINGS or name in supplied:
            continue
        if name in given:
            values[name] = given[name]
            continue
        key = keys.get(name) or find(config, name, places)
        if key is None:
            if has_default:
                continue
            where = ", ".join(p or "the top level" for p in places)
            raise SignatureError(f"{function} takes {name}, which no config section of the job "
                                 f"holds (looked in {where}): add it to the config and its "
                                 "schema, or declare it in the rule")
        values[name], found[name] = lookup(config, key), key
    return JobSettings(function, values, found, supplied)


def lowered(value):
    """A smaller value of a setting, as a user would lower it: half a number (an integer at least
    1), a list without its largest entry (or its last); None when there is nothing to lower."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value // 2 if value > 1 else None
    if isinstance(value, float):
        return value / 2 if value > 0 else None
    if isinstance(value, list) and len(value) > 1:
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        rest = list(value)
        rest.remove(max(value) if numbers else value[-1])
        return rest
    return None


def _leaves(node: Mapping, path: tuple = ()):
    """``(path, value)`` of every setting below the mapping ``node`` (sections recursed)."""
    for key, value in node.items():
        if isinstance(value, Mapping):
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def what_lowers(section: dict, prefix: str, estimate) -> list[tuple[str, object, float]]:
    """``(dotted key, its value, the estimate with it lowered)`` for every setting below the
    config ``section`` (named ``prefix``) whose ``lowered`` value makes ``estimate()`` smaller, the
    largest effect first. Each setting is lowered in place and restored; a lowered value the cost
    model refuses is skipped."""
    base, found = estimate(), []
    for path, value in list(_leaves(section)):
        smaller = lowered(value)
        if smaller is None:
            continue
        parent = section
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = smaller
        try:
            amount = estimate()
        except (ValueError, TypeError, ArithmeticError, KeyError):
            continue  # the lowered value is not a valid setting of the cost model
        finally:
            parent[path[-1]] = value
        if amount < base:
            found.append((".".join((prefix, *map(str, path))), value, amount))
    return sorted(found, key=lambda item: item[2])
