"""Validate a workflow config against ``workflow/schemas/config.schema.yaml`` before any job runs.

The schema is JSON Schema written in YAML. Each stage's section lives in its own file,
``workflow/schemas/<stage>.schema.yaml``, referenced from the top-level schema with
``$ref: <file>``; ``load_schema`` inlines those references. Missing keys inside a section take the
schema's ``default``; a wrong type, an out-of-range value, an unknown key or a missing section is an
error. Two keywords of our own express relations JSON Schema cannot:

- ``x-at-most: <sibling key>``: the value must not exceed the sibling's value;
- ``x-increasing: true``: a list must be strictly increasing.

All errors are gathered into one ``ConfigError`` whose message names each offending key
(dotted path) and says what is allowed.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import jsonschema
import yaml


class ConfigError(ValueError):
    """The config does not satisfy the schema; the message names every offending key."""


def load_schema(path: str | Path) -> dict:
    """Read the schema at ``path`` and inline every ``$ref`` to a sibling file.

    Every sub-section (a property of type ``object``) is made required, so a config that lacks a
    section is refused rather than silently filled."""
    path = Path(path)

    def inline(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return inline(yaml.safe_load((path.parent / ref).read_text()))
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    def require_sections(node):
        if isinstance(node, dict):
            sections = [k for k, v in node.get("properties", {}).items()
                        if isinstance(v, dict) and v.get("type") == "object"]
            if sections:
                node["required"] = sorted(set(node.get("required", [])) | set(sections))
            for value in node.get("properties", {}).values():
                require_sections(value)
        return node

    return require_sections(inline(yaml.safe_load(path.read_text())))


def apply_defaults(config: dict, schema: dict) -> dict:
    """A copy of ``config`` with every missing key that has a ``default`` filled in (recursively,
    inside sections that are present; a missing section stays missing and is reported)."""
    config = copy.deepcopy(config)

    def fill(node: dict, sub: dict) -> None:
        for key, prop in sub.get("properties", {}).items():
            if key not in node and "default" in prop:
                node[key] = copy.deepcopy(prop["default"])
            if isinstance(node.get(key), dict) and prop.get("type") == "object":
                fill(node[key], prop)

    if isinstance(config, dict):
        fill(config, schema)
    return config


def describe(node: dict) -> str:
    """What a schema node allows, in words: ``"an integer in [1, 5]"``."""
    kind = node.get("type", "value")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if "enum" in node:
        return "one of " + ", ".join(repr(v) for v in node["enum"])
    lo = node.get("minimum", node.get("exclusiveMinimum"))
    hi = node.get("maximum", node.get("exclusiveMaximum"))
    text = {"integer": "an integer", "number": "a number", "boolean": "true or false",
            "string": "a string", "array": "a list", "object": "a mapping"}.get(kind, kind)
    if lo is not None or hi is not None:
        left = "(" if "exclusiveMinimum" in node else "["
        right = ")" if "exclusiveMaximum" in node else "]"
        text += f" in {left}{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}{right}"
    if kind == "array":
        if "items" in node:
            text += " of " + describe(node["items"]).replace("an integer", "integers").replace(
                "a number", "numbers")
        if "minItems" in node or "maxItems" in node:
            text += f" with {node.get('minItems', 0)} to {node.get('maxItems', 'any number of')} items"
    if kind == "object" and node.get("additionalProperties") is False:
        text += " with keys " + ", ".join(node.get("properties", {}))
    return text


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


def _message(err: jsonschema.ValidationError) -> str:
    where = _key(err.absolute_path)
    node = err.schema
    if err.validator == "additionalProperties":
        allowed = ", ".join(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        keys = ", ".join(_key([*err.absolute_path, k]) for k in extra)
        return f"unknown key {keys}; allowed keys here: {allowed}"
    if err.validator == "required":
        missing = [k for k in err.validator_value if k not in err.instance]
        keys = ", ".join(_key([*err.absolute_path, k]) for k in missing)
        return f"missing section or key {keys}"
    desc = node.get("description", "")
    got = repr(err.instance)
    if len(got) > 60:
        got = got[:57] + "..."
    allowed = describe(node)
    tail = f" ({desc})" if desc else ""
    return f"key {where}: got {got}; allowed: {allowed}{tail} [{err.message}]"


def _relations(node, sub: dict, path: list) -> list[str]:
    """Messages for ``x-at-most`` and ``x-increasing`` violations below ``node``."""
    if not isinstance(node, dict):
        return []
    problems = []
    for key, prop in sub.get("properties", {}).items():
        if key not in node:
            continue
        value, where = node[key], _key([*path, key])
        other = prop.get("x-at-most")
        if other is not None and isinstance(node.get(other), (int, float)) and value > node[other]:
            problems.append(f"key {where}: got {value!r}; allowed: at most "
                            f"{_key([*path, other])} = {node[other]!r}")
        if prop.get("x-increasing") and isinstance(value, list):
            if any(not b > a for a, b in zip(value, value[1:], strict=False)):
                problems.append(f"key {where}: got {value!r}; allowed: a strictly increasing list")
        if prop.get("type") == "object":
            problems += _relations(value, prop, [*path, key])
    return problems


@functools.cache
def _validator(schema_path: Path, stamp: tuple) -> tuple[dict, jsonschema.Draft202012Validator]:
    schema = load_schema(schema_path)
    return schema, jsonschema.Draft202012Validator(schema)


def check_config(config: dict, schema_path: str | Path) -> dict:
    """Return ``config`` with defaults applied, or raise ``ConfigError`` naming every bad key."""
    schema_path = Path(schema_path).resolve()
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(schema_path.parent.glob("*.yaml")))
    schema, validator = _validator(schema_path, stamp)
    full = apply_defaults(config, schema)
    errors = sorted(
        validator.iter_errors(full),
        key=lambda e: (list(map(str, e.absolute_path)), e.validator),
    )
    problems = [_message(e) for e in errors] or _relations(full, schema, [])
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise ConfigError(f"invalid configuration ({len(problems)} problem(s)):\n{lines}")
    return full
