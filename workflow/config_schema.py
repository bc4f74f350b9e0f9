"""Check a workflow config before any job runs: the files, every key, and the relations between keys.

The schema is JSON Schema written in YAML. Each stage's section lives in its own file,
``workflow/schemas/<stage>.schema.yaml``, referenced from the top-level schema with
``$ref: <file>``; ``load_schema`` inlines those references. Missing keys inside a section take the
schema's ``default``. Refused, all in one ``ConfigError`` whose message names each offending key
(dotted path), the file and line where it is written (a value given on Snakemake's command line,
``--config``, is in no file), its value and what is allowed:

- in a config file: a missing file, a directory, malformed YAML or an unreadable file (with line
  and column), an empty file, a top level that is not a mapping, a key given twice in one mapping
  (with both lines: YAML would silently keep only the last), a number written with a leading zero
  (YAML 1.1 reads ``seed: 0012345`` as the octal number 5349, and ``0123489`` as a string);
- of one key: a wrong type, an out-of-range value, an unknown key, a missing section (JSON
  Schema), NaN or an infinity (every comparison with NaN is false, so JSON Schema lets NaN through
  every range), and an integral float such as ``400.0`` where an integer is asked (JSON Schema
  counts it as an integer; the jobs would get a float);
- between keys: the relations of ``config_relations`` (its table ``RELATIONS``, and two keywords
  of our own in the schema, ``x-at-most: <sibling key>`` and ``x-increasing: true``).

Snakemake reads the config files itself and refuses malformed ones before this module runs, with a
message that names neither file nor line; ``make`` therefore runs this module on ``CONFIG`` first:
``python workflow/config_schema.py [CONFIG ...]``.
"""

from __future__ import annotations

import copy
import functools
import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml
from config_relations import RELATIONS, check_relations, schema_relations, show

SCHEMA = Path(__file__).resolve().parent / "schemas" / "config.schema.yaml"
#: A plain YAML scalar that is a number with a leading zero: octal in YAML 1.1, or a string when it
#: holds an 8 or a 9; either way not the decimal number it looks like.
LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")


class ConfigError(ValueError):
    """The config is refused; ``problems`` lists every problem, each naming its key or file."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid configuration ({len(problems)} problem(s)):\n{lines}")


#: libyaml's loader where PyYAML was built with it (about ten times faster on the schema files,
#: which every Snakemake start reads); the same documents as the pure-Python SafeLoader.
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_schema(path: str | Path) -> dict:
    """Read the schema at ``path`` and inline every ``$ref`` to a sibling file.

    Every sub-section (a property of type ``object``) is made required, so a config that lacks a
    section is refused rather than silently filled."""
    path = Path(path)

    def inline(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return inline(yaml.load((path.parent / ref).read_text(), Loader=FAST_LOADER))
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

    return require_sections(inline(yaml.load(path.read_text(), Loader=FAST_LOADER)))


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


def _error_keys(err: jsonschema.ValidationError) -> list[str]:
    """The dotted paths a schema error is about: the missing or unknown keys, else its own path."""
    if err.validator == "required":
        return [_key([*err.absolute_path, k]) for k in err.validator_value if k not in err.instance]
    if err.validator == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        return [_key([*err.absolute_path, k]) for k in extra]
    return [_key(err.absolute_path)]


def _message(err: jsonschema.ValidationError) -> str:
    keys = ", ".join(_error_keys(err))
    if err.validator == "additionalProperties":
        return f"unknown key {keys}; allowed keys here: {', '.join(err.schema.get('properties', {}))}"
    if err.validator == "required":
        return f"missing section or key {keys}"
    desc = err.schema.get("description", "")
    tail = f" ({desc})" if desc else ""
    return f"key {keys}: got {show(err.instance)}; allowed: {describe(err.schema)}{tail} [{err.message}]"


def _number_problems(value, node: dict, path: tuple) -> list[tuple[str, str]]:
    """``(dotted path, message)`` for every number below ``value`` that JSON Schema lets through
    but ``node`` refuses: NaN or an infinity, or an integral float where an integer is asked.
    Keys the schema does not know are left to its "unknown key" message."""
    if isinstance(value, dict) and "properties" in node:
        props = node["properties"]
        return [p for key, sub in value.items() if key in props
                for p in _number_problems(sub, props[key], (*path, key))]
    if isinstance(value, list) and "items" in node:
        return [p for i, sub in enumerate(value) for p in _number_problems(sub, node["items"], (*path, i))]
    if not isinstance(value, float):
        return []
    where = _key(path)
    if not math.isfinite(value):
        return [(where, f"key {where}: got {value!r}; allowed: {describe(node)} "
                        "(NaN and infinities are refused)")]
    if node.get("type") == "integer" and value.is_integer():
        return [(where, f"key {where}: got {value!r}; allowed: {describe(node)} "
                        f"(write {int(value)}, not {value!r})")]
    return []


def _shown(path: str | Path) -> str:
    """``path`` relative to the working directory when it lies below it (messages stay short)."""
    path = Path(path)
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _nodes(node: yaml.Node, path: tuple = (), seen: set[int] | None = None):
    """``(dotted path, node)`` of ``node`` and of every node below it, each once (an alias's node
    is walked where it is defined, and may contain itself)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    yield path, node
    if isinstance(node, yaml.MappingNode):
        # Keys are scalars: the safe loader refused a list or mapping as key (unhashable) already.
        for key, value in node.value:
            yield from _nodes(value, (*path, key.value), seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _nodes(item, (*path, i), seen)


def _duplicate_keys(root: yaml.Node, name: str) -> list[str]:
    """Messages for every key given twice in one mapping below the YAML node ``root``."""
    problems = []
    for path, node in _nodes(root):
        if not isinstance(node, yaml.MappingNode):
            continue
        first = {}  # (tag, text) of each key -> its line; `1` and `"1"` are different keys
        for key, _ in node.value:
            line = key.start_mark.line + 1
            if (key.tag, key.value) in first:
                problems.append(f"config file {name}, line {line}: duplicate key {_key([*path, key.value])} "
                                f"(first at line {first[key.tag, key.value]}); YAML would silently keep "
                                "only the last")
            first.setdefault((key.tag, key.value), line)
    return problems


def _leading_zeros(root: yaml.Node, name: str) -> list[str]:
    """Messages for every value below ``root`` written as a number with a leading zero."""
    problems = []
    for path, node in _nodes(root):
        if isinstance(node, yaml.ScalarNode) and node.style is None \
                and LEADING_ZERO.fullmatch(node.value):
            text = node.value.replace("_", "")
            read = (f"the octal number {int(text, 8)}" if node.tag.endswith(":int")
                    else f"the string {node.value!r}")
            decimal = int(text, 10)
            problems.append(f"config file {name}, line {node.start_mark.line + 1}: key {_key(path)}: "
                            f"{node.value} is written with a leading zero, which YAML reads as {read}; "
                            f"write {decimal}")
    return problems


def _yaml_error(err: yaml.YAMLError, name: str, text: str) -> str:
    """``err`` as ``config file <name>, line L, column C: malformed YAML: ...``."""
    if isinstance(err, yaml.MarkedYAMLError):
        mark, context = err.problem_mark, err.context_mark
        line, column = mark.line + 1, mark.column + 1
        what = err.problem
        if err.context:
            where = f" at line {context.line + 1}, column {context.column + 1}" if context else ""
            what += f" ({err.context}{where})"
    else:  # yaml.reader.ReaderError: a character YAML does not allow, at a position in the text
        pos = err.position
        line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
        what = f"character #x{err.character:04x}: {err.reason}"
    return f"config file {name}, line {line}, column {column}: malformed YAML: {what}"


def _key_lines(node: yaml.Node, path: tuple, lines: dict[tuple, int]) -> dict[tuple, int]:
    """``lines`` filled with the line of every key (and list item) below the YAML ``node``, by
    its path of keys and indices; a key given twice keeps its last line, the value YAML keeps."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                sub = (*path, yaml.SafeLoader(key.value).get_single_data()
                       if key.tag != "tag:yaml.org,2002:str" else key.value)
                lines[sub] = key.start_mark.line + 1
                _key_lines(value, sub, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            _key_lines(item, (*path, i), lines)
    return lines


@dataclass(frozen=True)
class ConfigFile:
    """One config file as read: its name in messages, its content (``None`` when it could not be
    read), the problems found reading it, and the line of every key and list item in it."""

    name: str
    data: dict | None
    problems: list[str]
    lines: dict[tuple, int]


def load_config_file(path: str | Path) -> ConfigFile:
    """Read the config file at ``path``: see ``read_config_file``; also the line of every key."""
    name = _shown(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ConfigFile(name, None, [f"config file {name} does not exist"], {})
    except IsADirectoryError:
        return ConfigFile(name, None, [f"config file {name} is a directory, not a file"], {})
    except UnicodeDecodeError as err:
        return ConfigFile(name, None, [f"config file {name} is not UTF-8 text (byte {err.start})"], {})
    except OSError as err:
        return ConfigFile(name, None, [f"config file {name} cannot be read: {err.strerror}"], {})
    try:
        loader = yaml.SafeLoader(text)  # refuses characters YAML does not allow
        node = loader.get_single_node()
        if node is None:
            return ConfigFile(name, None, [f"config file {name} is empty"], {})
        # before construction, which merges the keys of `<<: *anchor` into the node
        found = _duplicate_keys(node, name) + _leading_zeros(node, name)
        lines = _key_lines(node, (), {})
        data = loader.construct_document(node)
    except yaml.YAMLError as err:
        return ConfigFile(name, None, [_yaml_error(err, name, text)], {})
    if not isinstance(data, dict):
        return ConfigFile(name, None, [f"config file {name}: the top level must be a mapping of "
                                       f"sections (seed, hardmax_vs_softmax, ...), got {show(data)}"], {})
    return ConfigFile(name, data, found, lines)


def read_config_file(path: str | Path) -> tuple[dict | None, list[str]]:
    """The content of the config file at ``path`` and the problems found reading it (each naming
    the file, and the line where there is one). The content is ``None`` when the file cannot be
    read: missing, a directory, not UTF-8, malformed YAML, empty, or not a mapping at the top."""
    read = load_config_file(path)
    return read.data, read.problems


_MISSING = object()


def _at(node, path: tuple):
    """The value at ``path`` (keys and list indices) below ``node``, or ``_MISSING``."""
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


def _same(a, b) -> bool:
    """Equal values, NaN equal to NaN (a NaN from the file is the NaN the config holds)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _where(config, files: list[ConfigFile], path: tuple) -> tuple[str, int | None] | None:
    """``(file, line)`` where the key at ``path`` of ``config`` was written: the last file that
    holds it, when it holds the value ``config`` has (a value given on Snakemake's command line,
    ``--config``, is in no file). A key no file holds (a missing one) is placed at its nearest
    section that a file holds, or in the file itself (line ``None``) when there is one file."""
    for file in reversed(files):
        if path in file.lines:
            value = _at(config, path)
            if isinstance(value, dict | list) or _same(value, _at(file.data, path)):
                return file.name, file.lines[path]
            return None
    if path:
        return _where(config, files, path[:-1])
    return (files[0].name, None) if len(files) == 1 else None


def _located(config, files: list[ConfigFile], keys: Iterable[str], message: str) -> str:
    """``message`` prefixed with the file and line(s) of the dotted ``keys``, where known."""
    found = {}
    for key in keys:
        path = tuple(int(p) if p.isdigit() else p for p in key.split(".")) if key != _key(()) else ()
        where = _where(config, files, path)
        if where is not None:
            found.setdefault(where[0], [])
            if where[1] is not None and where[1] not in found[where[0]]:
                found[where[0]].append(where[1])
    if not found:
        return message
    places = []
    for name, lines in found.items():
        lines = sorted(lines)
        if not lines:
            places.append(f"config file {name}")
        else:
            which = "line" if len(lines) == 1 else "lines"
            places.append(f"config file {name}, {which} {', '.join(map(str, lines))}")
    return f"{'; '.join(places)}: {message}"


@functools.cache
def _checker(schema_path: Path, stamp: tuple):
    schema = load_schema(schema_path)
    relations = [*schema_relations(schema), *RELATIONS]
    return schema, jsonschema.Draft202012Validator(schema), relations


def _check(config, schema_path: str | Path, files: list[ConfigFile]) -> dict:
    """``config`` with defaults applied, or ``ConfigError`` with the problems found reading
    ``files`` (the config files ``config`` was read from) and every problem of a key or between
    keys, each with the file and line where the key was written."""
    schema_path = Path(schema_path).resolve()
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(schema_path.parent.glob("*.yaml")))
    schema, validator, relations = _checker(schema_path, stamp)
    full = apply_defaults(config, schema)
    numbers = _number_problems(full, schema, ())
    said = {path for path, _ in numbers}
    bad, keyed = set(said), set(numbers)  # a set: "required" fails once per missing key
    for err in validator.iter_errors(full):
        keys = _error_keys(err)
        if said.isdisjoint(keys):  # else a non-finite number or an integral float, said already
            keyed.add((keys[0], _message(err)))
            bad.update(keys)
    problems = [p for file in files for p in file.problems]
    problems += [_located(config, files, [key], message) for key, message in sorted(keyed)]
    if isinstance(full, dict):
        problems += [_located(config, files, keys, message)
                     for keys, message in check_relations(full, relations, bad)]
    if problems:
        raise ConfigError(problems)
    return full


def check_config(config, schema_path: str | Path = SCHEMA,
                 config_files: Iterable[str | Path] = ()) -> dict:
    """Return ``config`` with defaults applied, or raise ``ConfigError`` naming every problem.

    ``config_files`` are the files ``config`` was read from (Snakemake's ``workflow.configfiles``):
    they are read again for what the loaded ``config`` can no longer show, keys given twice and
    the line of each key."""
    return _check(config, schema_path, [load_config_file(f) for f in config_files])


def _merge(base: dict, new: dict) -> None:
    """Update ``base`` with ``new``, recursing into mappings (as Snakemake merges config files)."""
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def check_config_files(paths: Iterable[str | Path], schema_path: str | Path = SCHEMA) -> dict:
    """Read and merge the config files ``paths`` (later ones override earlier ones, as with
    Snakemake's ``--configfile``) and check the result; raise ``ConfigError`` naming every problem.
    When a file cannot be read at all, only the file problems are reported."""
    config, files = {}, [load_config_file(path) for path in paths]
    if any(file.data is None for file in files):
        raise ConfigError([p for file in files for p in file.problems])
    for file in files:
        _merge(config, file.data)
    return _check(config, schema_path, files)


def main(argv: list[str]) -> int:
    """``python workflow/config_schema.py [CONFIG ...]``: check the config files (default
    ``config/config.yaml``); print every problem and return 1 when there is any."""
    try:
        check_config_files(argv or ["config/config.yaml"])
    except ConfigError as err:
        print(f"{err}\nNothing was run; fix the config and start again.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
