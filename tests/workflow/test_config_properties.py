"""Property-based: every broken config (wrong type, out of range, NaN or an infinity, a float for an
integer, unknown key, missing section without a default) is refused with a message naming the key,
whatever key is broken."""

import copy
import math
from functools import cache

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from config_schema import ConfigError, check_config, load_schema

from .test_config_schema import leaves


@cache
def setup(root):
    schema_path = root / "workflow/schemas/config.schema.yaml"
    good = yaml.safe_load((root / "config/config.yaml").read_text())
    schema = load_schema(schema_path)
    keys = [(path, node) for path, node in leaves(schema) if path]
    sections = [path for path, node in sections_of(schema)]
    required = [path for path, node in sections_of(schema) if "default" not in node]
    return schema_path, good, keys, sections, required


def sections_of(node, path=()):
    for key, sub in node.get("properties", {}).items():
        if sub.get("type") == "object":
            yield ".".join((*path, key)), sub
            yield from sections_of(sub, (*path, key))


def get_parent(cfg, dotted):
    *parents, last = dotted.split(".")
    for p in parents:
        cfg = cfg[p]
    return cfg, last


WRONG_TYPE = {"integer": "seven", "number": "1.5x", "boolean": "yes", "string": 12,
              "array": "not a list", "object": 3}


def out_of_range(node):
    bounds = node["items"] if node.get("type") == "array" else node
    if "maximum" in bounds or "exclusiveMaximum" in bounds:
        high = bounds.get("maximum", bounds.get("exclusiveMaximum"))
        bad = high + 1 if bounds.get("type") == "integer" else high * 2 + 1
    elif "minimum" in bounds or "exclusiveMinimum" in bounds:
        low = bounds.get("minimum", bounds.get("exclusiveMinimum"))
        bad = low - 1
    else:
        return None
    return [bad] if node.get("type") == "array" else bad


def numeric(node):
    """Whether the key holds a number or a list of numbers."""
    return (node.get("items", node)).get("type") in ("integer", "number")


def integer(node):
    """Whether the key holds an integer or a list of integers."""
    return (node.get("items", node)).get("type") == "integer"


@pytest.fixture(scope="module")
def context(root):
    return setup(root)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(["type", "range", "nonfinite", "float", "unknown", "missing"]))
def test_any_broken_config_is_refused_naming_the_key(context, data, kind):
    schema_path, good, keys, sections, required = context
    cfg = copy.deepcopy(good)
    if kind == "missing":
        named = data.draw(st.sampled_from(required))  # a section with a default is filled in
        parent, last = get_parent(cfg, named)
        del parent[last]
    elif kind == "unknown":
        section = data.draw(st.sampled_from(["", *sections]))
        extra = data.draw(st.from_regex(r"[a-z][a-z_]{2,12}", fullmatch=True))
        parent = get_parent(cfg, section + ".x")[0] if section else cfg
        if extra in parent:
            return
        parent[extra] = 1
        named = f"{section}.{extra}" if section else extra
    elif kind in ("type", "range"):
        named, node = data.draw(st.sampled_from(keys))
        parent, last = get_parent(cfg, named)
        value = WRONG_TYPE[node["type"]] if kind == "type" else out_of_range(node)
        if value is None:
            return
        parent[last] = value
    else:
        named, node = data.draw(st.sampled_from([(k, n) for k, n in keys if numeric(n)]))
        parent, last = get_parent(cfg, named)
        if kind == "nonfinite":
            value = data.draw(st.sampled_from([math.nan, math.inf, -math.inf]))
        elif integer(node):
            value = float(data.draw(st.integers(-10, 10**6)))
        else:
            return
        if node["type"] == "array":
            parent[last] = [value]
            named += ".0"
        else:
            parent[last] = value
    with pytest.raises(ConfigError) as err:
        check_config(cfg, schema_path)
    assert named in str(err.value)
