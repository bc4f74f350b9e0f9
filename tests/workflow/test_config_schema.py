"""The config schema: every key documented; every broken config refused with the key named."""

import copy

import pytest
import yaml
from cases import MISSING, set_key
from config_relations import max_tokens

from config_schema import (
    ConfigError,
    apply_defaults,
    check_config,
    check_config_files,
    describe,
    load_schema,
    main,
    read_config_file,
)


@pytest.fixture(scope="module")
def schema_path(root):
    return root / "workflow/schemas/config.schema.yaml"


@pytest.fixture(scope="module")
def good(root):
    return yaml.safe_load((root / "config/config.yaml").read_text())


def leaves(node, path=()):
    """Every leaf property of the schema as (dotted path, node)."""
    props = node.get("properties")
    if node.get("type") == "object" and props is not None:
        for key, sub in props.items():
            yield from leaves(sub, (*path, key))
    else:
        yield ".".join(path), node


def test_every_key_has_type_description_default_and_range(schema_path):
    schema = load_schema(schema_path)
    for path, node in leaves(schema):
        assert "type" in node, f"{path} has no type"
        assert node.get("description"), f"{path} has no description"
        assert "default" in node, f"{path} has no default"
        numeric = node["type"] in ("integer", "number") or (
            node["type"] == "array" and node.get("items", {}).get("type") in ("integer", "number"))
        if numeric:
            bounds = node if node["type"] != "array" else node["items"]
            assert {"minimum", "exclusiveMinimum"} & set(bounds), f"{path} has no lower bound"
            assert {"maximum", "exclusiveMaximum"} & set(bounds), f"{path} has no upper bound"


def test_defaults_fill_missing_keys_but_not_missing_sections(good, schema_path):
    cfg = copy.deepcopy(good)
    del cfg["hardmax_vs_softmax"]["theorem1"]["n_draws"]
    assert check_config(cfg, schema_path)["hardmax_vs_softmax"]["theorem1"]["n_draws"] == 2000
    schema = load_schema(schema_path)
    assert "hardmax_vs_softmax" not in apply_defaults({}, schema)



BROKEN = [
    ("seed", "abc", "seed", "an integer"),
    ("seed", -1, "seed", "in [0,"),
    ("hardmax_vs_softmax.theorem1.n_draws", 0, "hardmax_vs_softmax.theorem1.n_draws", "in [1,"),
    ("hardmax_vs_softmax.theorem1.n_draws", 2.5, "hardmax_vs_softmax.theorem1.n_draws", "an integer"),
    ("hardmax_vs_softmax.theorem1.heads_max", 17, "hardmax_vs_softmax.theorem1.heads_max", "16]"),
    ("hardmax_vs_softmax.theorem1.weight_scales", [0, -1], "hardmax_vs_softmax.theorem1.weight_scales.1",
     "a number in [0"),
    ("hardmax_vs_softmax.theorem1.weight_scales", [], "hardmax_vs_softmax.theorem1.weight_scales", "1 to"),
    ("hardmax_vs_softmax.boltzmann.size_min", 100, "hardmax_vs_softmax.boltzmann.size_max = 64",
     "size_min must be at most size_max, but 100 > 64"),
    ("hardmax_vs_softmax.boltzmann.n_vectors", 400.0, "hardmax_vs_softmax.boltzmann.n_vectors",
     "write 400, not 400.0"),
    ("hardmax_vs_softmax.bigbird.beta_min", float("nan"), "hardmax_vs_softmax.bigbird.beta_min",
     "NaN and infinities are refused"),
    ("hardmax_vs_softmax.bigbird.n", [16.0, 64], "hardmax_vs_softmax.bigbird.n.0", "write 16, not 16.0"),
    ("sparse_approximation.jl.n_max", 8, "sparse_approximation.jl.n_max = 8",
     "at least one sweep n must be <= n_max"),
    ("hardmax_vs_softmax.boltzmann.spreads", [1, 10, 5], "hardmax_vs_softmax.boltzmann.spreads",
     "strictly increasing"),
    ("hardmax_vs_softmax.boltzmann.tie_fraction", "0.1", "hardmax_vs_softmax.boltzmann.tie_fraction",
     "a number"),
    ("hardmax_vs_softmax.bigbird.n", [16, 2], "hardmax_vs_softmax.bigbird.n.1", "an integer in [4"),
    ("hardmax_vs_softmax.bigbird.beta_max", 0, "hardmax_vs_softmax.bigbird.beta_max", "(0,"),
    ("hardmax_vs_softmax.bigbird.typo_key", 3, "hardmax_vs_softmax.bigbird.typo_key", "allowed keys"),
    ("extra_section", {}, "extra_section", "allowed keys"),
    ("hardmax_vs_softmax.theorem1", MISSING, "hardmax_vs_softmax.theorem1", "missing"),
    ("hardmax_vs_softmax", MISSING, "hardmax_vs_softmax", "missing"),
    ("hardmax_vs_softmax", [1, 2], "hardmax_vs_softmax", "a mapping"),
]


@pytest.mark.parametrize("key, value, named, allowed", BROKEN, ids=[b[0] + "=" + repr(b[1])[:12]
                                                                   for b in BROKEN])
def test_broken_config_is_refused_naming_the_key(good, schema_path, key, value, named, allowed):
    cfg = copy.deepcopy(good)
    set_key(cfg, key, value)
    with pytest.raises(ConfigError) as err:
        check_config(cfg, schema_path)
    message = str(err.value)
    assert named in message
    assert allowed in message


def test_all_problems_are_reported_in_one_message(good, schema_path):
    cfg = copy.deepcopy(good)
    cfg["seed"] = "x"
    cfg["hardmax_vs_softmax"]["theorem1"]["d"] = 0
    with pytest.raises(ConfigError, match=r"2 problem\(s\)") as err:
        check_config(cfg, schema_path)
    assert "seed" in str(err.value) and "theorem1.d" in str(err.value)


def test_describe_reads_like_a_sentence():
    assert describe({"type": "integer", "minimum": 1, "maximum": 5}) == "an integer in [1, 5]"
    assert describe({"type": "number", "exclusiveMinimum": 0, "maximum": 1}) == "a number in (0, 1]"
    assert describe({"enum": ["a", "b"]}) == "one of 'a', 'b'"


def test_the_command_line_check_prints_every_problem_and_fails(tmp_path, root, capsys):
    """``make`` runs ``python workflow/config_schema.py $(CONFIG)`` before Snakemake."""
    assert main([str(root / "config/ci.yaml")]) == 0
    broken = tmp_path / "broken.yaml"
    broken.write_text((root / "config/ci.yaml").read_text().replace("n_draws: 200", "n_draws: .nan"))
    assert main([str(broken), str(tmp_path / "missing.yaml")]) == 1
    err = capsys.readouterr().err
    assert "missing.yaml does not exist" in err and "Nothing was run" in err


def test_duplicate_keys_name_the_dotted_key_and_both_lines(tmp_path, schema_path):
    path = tmp_path / "twice.yaml"
    path.write_text("seed: 1\nmemorization:\n  theory:\n    eps: 1\n    eps: 2\nseed: 2\n")
    with pytest.raises(ConfigError) as err:
        check_config({}, schema_path, [path])
    message = str(err.value)
    assert f"config file {path}, line 5: duplicate key memorization.theory.eps (first at line 4)" in message
    assert f"config file {path}, line 6: duplicate key seed (first at line 1)" in message


def test_a_key_overriding_a_yaml_merge_is_no_duplicate(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 2\n")
    assert read_config_file(path) == ({"base": {"x": 1, "y": 2}, "other": {"x": 2, "y": 2}}, [])


def test_max_tokens_is_exact_where_the_answer_is_known():
    assert max_tokens(1, 1e-30, 1.0, 1.0) == 2  # the two points +-1 of a zero-width shell in R^1
    assert max_tokens(1, 1.0, 1.0, 2.0) == 4  # +-1, +-2
    assert max_tokens(3, 5.0, 1.0, 2.0) == 1  # no two points of the ball of radius 2 are 5 apart
    assert max_tokens(256, 0.25, 1.0, 2.0) > 10**300  # exact rationals: no overflow


def _line_of(text: str, needle: str) -> int:
    """The 1-based number of the first line of ``text`` that contains ``needle``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_value_errors_name_the_file_and_the_line(tmp_path, root):
    """A bad value, a bad list item, an unknown key and a broken relation each point at the line
    that holds the key (the file is the one the user edits)."""
    text = (root / "config/ci.yaml").read_text()
    broken = (text.replace("n_draws: 200", "n_draws: 0").replace("n: [16, 64]", "n: [16, -64]")
              .replace("  bigbird:\n", "  bigbird:\n    unknown_key: 1\n"))
    path = tmp_path / "broken.yaml"
    path.write_text(broken)
    with pytest.raises(ConfigError) as err:
        check_config_files([path])
    message = str(err.value)
    assert (f"config file {path}, line {_line_of(broken, 'n_draws: 0')}: key "
            "hardmax_vs_softmax.theorem1.n_draws: got 0") in message
    assert (f"config file {path}, line {_line_of(broken, 'n: [16, -64]')}: key "
            "hardmax_vs_softmax.bigbird.n.1") in message
    assert (f"config file {path}, line {_line_of(broken, 'unknown_key: 1')}: unknown key "
            "hardmax_vs_softmax.bigbird.unknown_key") in message


def test_a_broken_relation_names_the_lines_of_its_keys(tmp_path, good, schema_path):
    cfg = copy.deepcopy(good)
    cfg["sparse_approximation"]["module"]["n"] = cfg["sparse_approximation"]["module"]["window"] - 1
    path = tmp_path / "relation.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    text = path.read_text()
    module = _line_of(text, "  module:")
    lines = text.splitlines()
    n = next(i for i in range(module, len(lines)) if lines[i].strip().startswith("n:")) + 1
    window = next(i for i in range(module, len(lines)) if lines[i].strip().startswith("window:")) + 1
    with pytest.raises(ConfigError) as err:
        check_config(yaml.safe_load(text), schema_path, [path])
    assert (f"config file {path}, lines {min(n, window)}, {max(n, window)}: keys "
            "sparse_approximation.module.window") in str(err.value)


def test_a_missing_section_names_the_file_and_an_override_file_its_own_line(tmp_path, good):
    cfg = copy.deepcopy(good)
    del cfg["memorization"]
    base = tmp_path / "base.yaml"
    base.write_text(yaml.safe_dump(cfg))
    with pytest.raises(ConfigError) as err:
        check_config_files([base])
    assert f"config file {base}: missing section or key memorization" in str(err.value)
    over = tmp_path / "over.yaml"
    over.write_text("seed: 0\nhardmax_vs_softmax:\n  theorem1:\n    n_draws: -1\n")
    good_base = tmp_path / "good.yaml"
    good_base.write_text(yaml.safe_dump(good))
    with pytest.raises(ConfigError) as err:
        check_config_files([good_base, over])
    assert f"config file {over}, line 4: key hardmax_vs_softmax.theorem1.n_draws: got -1" in str(err.value)


def test_a_value_given_outside_the_files_is_not_placed_in_them(tmp_path, good, schema_path):
    """Snakemake's ``--config`` overrides a file's value: no file holds it, so none is named."""
    path = tmp_path / "good.yaml"
    path.write_text(yaml.safe_dump(good))
    cfg = copy.deepcopy(good)
    cfg["hardmax_vs_softmax"]["theorem1"]["n_draws"] = 0
    with pytest.raises(ConfigError) as err:
        check_config(cfg, schema_path, [path])
    assert "  - key hardmax_vs_softmax.theorem1.n_draws: got 0" in str(err.value)
