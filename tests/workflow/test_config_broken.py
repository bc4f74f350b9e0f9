"""Hundreds of broken configs generated from ``config/ci.yaml``: every one is refused before any job
runs, with the offending key named (and the file and line where the problem is in the text).

Mutations of the loaded config (checked with ``check_config``, as Snakemake's ``common.smk`` does):
NaN, infinities, integral floats for integers, negative and wrong-typed values, unknown keys,
missing sections and violated relations between keys. Mutations of the file's text (checked with
``check_config_files``, as ``make`` does before Snakemake starts): a key given twice, malformed
YAML, an empty, missing or directory file, a top level that is not a mapping.
"""

import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from cases import MISSING, assert_refused, changed, leaves

from config_schema import ConfigError, check_config, check_config_files, load_schema

ROOT = Path(__file__).resolve().parents[2]
CI_TEXT = (ROOT / "config/ci.yaml").read_text()
CI = yaml.safe_load(CI_TEXT)
SCHEMA = load_schema(ROOT / "workflow/schemas/config.schema.yaml")


@dataclass(frozen=True)
class Broken:
    """One broken config: a change to ci.yaml and what the refusal must name."""

    id: str
    change: dict  # dotted key -> new value (MISSING deletes the key)
    named: tuple[str, ...]


def sections(node, path=()):
    """``(dotted name, has a default)`` of every object section of the schema ``node``: a missing
    section with a default of its own is filled in, the others are refused."""
    for key, sub in node["properties"].items():
        if sub.get("type") == "object":
            yield ".".join((*path, key)), "default" in sub
            yield from sections(sub, (*path, key))


LEAVES = list(leaves(CI, SCHEMA))
NUMBERS = [(k, v, n) for k, v, n in LEAVES if n["type"] in ("integer", "number")]
NUMBER_LISTS = [(k, v, n) for k, v, n in LEAVES
                if n["type"] == "array" and n["items"].get("type") in ("integer", "number")]
WRONG_TYPE = {"integer": "many", "number": "1.5x", "boolean": "yes", "string": 12, "array": 3}


def generated() -> list[Broken]:
    """Broken configs from the schema's description of every key present in ci.yaml."""
    cases = []
    for key, value, node in NUMBERS:
        cases.append(Broken(f"nan:{key}", {key: math.nan}, (key, "NaN and infinities")))
        if node["type"] == "number":
            cases.append(Broken(f"inf:{key}", {key: math.inf}, (key, "NaN and infinities")))
        else:
            cases.append(Broken(f"float:{key}", {key: float(value)}, (key, f"write {value},")))
        low = node.get("minimum", node.get("exclusiveMinimum"))
        if low >= 0:
            cases.append(Broken(f"negative:{key}", {key: -1}, (key, "got -1")))
    for key, value, node in NUMBER_LISTS:
        cases.append(Broken(f"nan-item:{key}", {key: [math.nan, *value[1:]]}, (f"{key}.0", "NaN")))
        if node["items"]["type"] == "number":
            cases.append(Broken(f"-inf-item:{key}", {key: [*value[:-1], -math.inf]},
                                (f"{key}.{len(value) - 1}", "NaN")))
        else:
            cases.append(Broken(f"float-item:{key}", {key: [float(value[0]), *value[1:]]},
                                (f"{key}.0", f"write {value[0]},")))
    for key, _, node in LEAVES:
        cases.append(Broken(f"type:{key}", {key: WRONG_TYPE[node["type"]]}, (key, "allowed: ")))
    for section, defaulted in sections(SCHEMA):
        cases.append(Broken(f"unknown:{section}", {f"{section}.typo": 1}, (f"{section}.typo",)))
        if not defaulted:
            cases.append(Broken(f"missing:{section}", {section: MISSING}, (section, "missing")))
    return cases


SA, MEM, UA, TM = "sparse_approximation", "memorization", "universal_approximation", "trained_models"
HVS = "hardmax_vs_softmax"

#: Violated relations between keys: the change and the keys the message must name.
RELATIONS = [
    Broken("sweep-k-over-n", {f"{SA}.sweep.n": [8, 16], f"{SA}.sweep.k": [32]},
           (f"{SA}.sweep.k", f"{SA}.sweep.n", "32 > 8")),
    Broken("sweep-k-over-error-n", {f"{SA}.sweep.k": [16], f"{SA}.error.n": 8},
           (f"{SA}.sweep.k", f"{SA}.error.n")),
    Broken("module-k-over-module-n", {f"{SA}.module.k": [16], f"{SA}.module.n": 8},
           (f"{SA}.module.k", f"{SA}.module.n")),
    Broken("example-k-over-n", {f"{SA}.module.n": 32, f"{SA}.module.example_k": 40},
           (f"{SA}.module.example_k",)),
    Broken("vary-k-over-n", {f"{SA}.vary.n": 8, f"{SA}.vary.k": 16}, (f"{SA}.vary.k", f"{SA}.vary.n")),
    Broken("jl-no-n", {f"{SA}.jl.n_max": 32}, (f"{SA}.jl.n_max", f"{SA}.sweep.n")),
    Broken("theory-n-over-V", {f"{MEM}.theory.n": [2, 6]}, (f"{MEM}.theory.n", f"{MEM}.theory.V")),
    Broken("search-n-over-V", {f"{MEM}.search.n": [3, 20]}, (f"{MEM}.search.n", f"{MEM}.search.V")),
    Broken("curve-n-over-V", {f"{MEM}.curve.n": 5}, (f"{MEM}.curve.n", f"{MEM}.curve.V")),
    Broken("curve-eps-impossible", {f"{MEM}.curve.eps": 5}, (f"{MEM}.curve.eps", f"{MEM}.r_max")),
    Broken("theory-eps-tight", {f"{MEM}.theory.eps": 4}, (f"{MEM}.theory.eps", "at most 4 fit")),
    Broken("search-eps-impossible", {f"{MEM}.search.eps": 10}, (f"{MEM}.search.eps", "at most 1 fit")),
    Broken("curve-thin-shell", {f"{MEM}.curve.d": 1, f"{MEM}.r_max": 1.0},
           (f"{MEM}.curve.d", f"{MEM}.r_min", "at most 2 fit")),
    Broken("approximation-one-delta-in-series", {f"{UA}.approximation.inv_delta": [2, 64]},
           (f"{UA}.approximation.inv_delta", "a slope needs at least 3")),
    Broken("approximation-over-budget", {f"{UA}.approximation.certificate_budget": 10},
           (f"{UA}.approximation.certificate_budget", "1/delta = 4")),
    Broken("budget-too-small", {f"{UA}.grid_budget": 10},
           (f"{UA}.grid_budget", "the smallest has 16 inputs")),
    Broken("approximation-series-lengths", {f"{UA}.approximation.n": [3, 4]},
           (f"{UA}.approximation.inv_delta_max", "one length")),
    Broken("approximation-series-repeat", {f"{UA}.approximation.d": [1, 1],
                                           f"{UA}.approximation.n": [3, 3],
                                           f"{UA}.approximation.inv_delta_max": [32, 16]},
           (f"{UA}.approximation.n", "repeat a pair")),
    Broken("tm-N-over-token-sets", {f"{TM}.memorization.vocab_size": 6, f"{TM}.memorization.N": 40},
           (f"{TM}.memorization.N", "C(6, 4) = 15")),
    Broken("width-N-over-token-sets", {f"{TM}.memorization.vocab_size": 8, f"{TM}.width_search.N": [10, 100]},
           (f"{TM}.width_search.N", f"{TM}.memorization.vocab_size")),
    Broken("head-size-over-d", {f"{TM}.heads_rank.head_sizes": [1, 32]},
           (f"{TM}.heads_rank.head_sizes", f"{TM}.memorization.d")),
    Broken("copy-d-model-heads", {f"{TM}.copy.d_model": 15}, (f"{TM}.copy.d_model", f"{TM}.copy.heads")),
    Broken("hybrid-d-model-heads", {f"{TM}.hybrid.heads": 3},
           (f"{TM}.hybrid.d_model", f"{TM}.hybrid.heads")),
    Broken("even-kernel", {f"{TM}.hybrid.count_kernels": [4]}, (f"{TM}.hybrid.count_kernels", "odd")),
    Broken("attention-layers-over-depth", {f"{TM}.hybrid.attention_layers": [0, 2, 3]},
           (f"{TM}.hybrid.attention_layers", f"{TM}.hybrid.depth")),
    Broken("tm-n-over-vocab", {f"{TM}.memorization.n": 65}, (f"{TM}.memorization.n", "vocab_size")),
    Broken("capacity-batch-over-N", {f"{TM}.capacity.batch": 9},
           (f"{TM}.capacity.batch", f"{TM}.capacity.N")),
    Broken("capacity-budget-below-two-windows", {f"{TM}.capacity.budget": 399},
           (f"{TM}.capacity.budget", f"{TM}.capacity.window")),
    Broken("capacity-n-over-V", {f"{TM}.capacity.n": 41}, (f"{TM}.capacity.n", f"{TM}.capacity.V")),
    Broken("capacity-unknown-arm", {f"{TM}.capacity.arms": ["sgd", "rnn"]},
           (f"{TM}.capacity.arms",)),
    Broken("exact-over-draws", {f"{HVS}.theorem1.exact_draws": 300},
           (f"{HVS}.theorem1.exact_draws", f"{HVS}.theorem1.n_draws")),
    Broken("chunks-over-vectors", {f"{HVS}.boltzmann.n_chunks": 8, f"{HVS}.boltzmann.n_vectors": 4},
           (f"{HVS}.boltzmann.n_chunks", f"{HVS}.boltzmann.n_vectors")),
    Broken("size-min-over-max", {f"{HVS}.boltzmann.size_min": 64}, (f"{HVS}.boltzmann.size_min",)),
    Broken("beta-min-over-max", {f"{HVS}.bigbird.beta_min": 1.0e6}, (f"{HVS}.bigbird.beta_min",)),
    Broken("r-min-over-max", {f"{MEM}.r_min": 3.0}, (f"{MEM}.r_min", f"{MEM}.r_max")),
    Broken("lemma6-beta", {f"{UA}.lemma6.beta_min": 10000}, (f"{UA}.lemma6.beta_min",)),
    Broken("spreads-decreasing", {f"{HVS}.boltzmann.spreads": [1, 0.5]},
           (f"{HVS}.boltzmann.spreads", "strictly increasing")),
    Broken("bigbird-n-repeated", {f"{HVS}.bigbird.n": [64, 64]}, (f"{HVS}.bigbird.n", "strictly increasing")),
]

CASES = generated() + RELATIONS


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_broken_config_is_refused_naming_the_key(case):
    assert_refused(case.change, case.named)


def test_a_relation_is_not_checked_on_a_key_with_its_own_problem():
    """A NaN in sweep.k is reported once, as a NaN, not again as a violated k <= n."""
    with pytest.raises(ConfigError) as err:
        check_config(changed({f"{SA}.sweep.k": [math.nan], f"{SA}.sweep.n": [8, 16]}))
    assert err.value.problems == [err.value.problems[0]] and "NaN" in err.value.problems[0]


def test_every_problem_is_in_one_message():
    case = {f"{HVS}.boltzmann.n_vectors": 400.0, f"{HVS}.bigbird.beta_min": math.nan, "seed": "x",
            f"{SA}.sweep.k": [32], f"{SA}.sweep.n": [8, 16], f"{TM}.hybrid.count_kernels": [4],
            f"{MEM}.typo": 1, f"{UA}.polynomial": MISSING}
    with pytest.raises(ConfigError, match=r"invalid configuration \(7 problem\(s\)\)") as err:
        check_config(changed(case))
    for key in ("n_vectors", "beta_min", "seed", "sweep.k", "kernel", f"{MEM}.typo", "polynomial"):
        assert key in str(err.value)


# --------------------------------------------------------------------------- the file's text

LINES = CI_TEXT.splitlines(keepends=True)


def key_lines():
    """``(index, dotted key)`` of every ``key:`` line of ci.yaml (block style, 2-space indents)."""
    stack = []
    for i, line in enumerate(LINES):
        match = re.match(r"( *)([a-zA-Z_0-9]+):", line)
        if match:
            depth = len(match.group(1)) // 2
            stack[depth:] = [match.group(2)]
            yield i, ".".join(stack)


def with_line(i: int, new: str) -> str:
    return "".join([*LINES[:i], new, *LINES[i + 1:]])


def malformed(i: int) -> dict[str, str]:
    """Ways to break line ``i`` (a ``key: value`` line) into text that is not YAML."""
    line = LINES[i]
    key = line.split(":")[0]
    return {
        "tab": "\t" + line.lstrip(" "),
        "stray-colon": line.rstrip("\n") + ": 8\n",
        "unclosed-quote": line.replace(": ", ': "', 1),
        "control-character": line.replace(": ", ": \x07", 1),
        "undefined-alias": f"{key}: *nowhere\n",
        "python-tag": f"{key}: !!python/object:os.system x\n",
        "second-document": line + "---\n",
        "list-item": line + " " * (len(key) - len(key.lstrip())) + "- 3\n",
    }


@dataclass(frozen=True)
class BrokenText:
    """One broken config file: its bytes and what the refusal must name (all of ``named``, or
    one of them when ``any_of``: a YAML parser names the broken line or the next one)."""

    id: str
    text: bytes
    named: tuple[str, ...]
    any_of: bool = False


SEED_LINE = LINES.index(f"seed: {CI['seed']}\n")
TEXT_CASES = [
    BrokenText(f"duplicate:{key}", with_line(i, LINES[i] * 2).encode(),
               (key, f"line {i + 2}: duplicate key", f"first at line {i + 1})"))
    for i, key in key_lines()
    if LINES[i].rstrip().endswith(":") or i % 3 == 0  # every section, a third of the keys
]
TEXT_CASES += [
    BrokenText(f"{how}:{key}", with_line(i, line).encode(), (f"line {i + 1}, ", f"line {i + 2}, "), True)
    for i, key in [(i, k) for i, k in key_lines() if ": " in LINES[i]][::12]
    for how, line in malformed(i).items()
]
TEXT_CASES += [
    BrokenText(f"leading-zero:{key}", with_line(i, re.sub(r": (\d+)", r": 00\1", LINES[i])).encode(),
               (f"line {i + 1}: key {key}: 00", "written with a leading zero"))
    for i, key in key_lines()
    if re.search(r": \d+\s*$", LINES[i])
]
TEXT_CASES += [
    BrokenText("leading-zero-octal", with_line(SEED_LINE, "seed: 0012345\n").encode(),
               (f"line {SEED_LINE + 1}: key seed: 0012345", "the octal number 5349; write 12345")),
    BrokenText("leading-zero-not-octal", with_line(SEED_LINE, "seed: 012389\n").encode(),
               (f"line {SEED_LINE + 1}: key seed: 012389", "the string '012389'; write 12389")),
    BrokenText("leading-zero-list-item", b"".join(
        (re.sub(r"\[(\d+)", r"[0\1", line) if line.strip().startswith("n: [") else line).encode()
        for line in LINES), ("written with a leading zero", ".n.0: 0")),
    BrokenText("empty", b"", ("is empty",)),
    BrokenText("comments-only", b"# nothing here\n", ("is empty",)),
    BrokenText("top-level-list", b"- seed: 7\n", ("top level must be a mapping",)),
    BrokenText("top-level-scalar", b"config/ci.yaml\n", ("top level must be a mapping",)),
    BrokenText("not-utf8", b"seed: \xff\n", ("not UTF-8",)),
]


@pytest.mark.parametrize("case", TEXT_CASES, ids=[case.id for case in TEXT_CASES])
def test_broken_file_is_refused_naming_file_and_line(tmp_path, case):
    path = tmp_path / "broken.yaml"
    path.write_bytes(case.text)
    with pytest.raises(ConfigError) as err:
        check_config_files([path])
    message = str(err.value)
    assert f"config file {path}" in message
    assert (any if case.any_of else all)(text in message for text in case.named), message


def test_duplicate_key_is_found_in_the_file_snakemake_already_loaded(tmp_path):
    """Snakemake loads the file (the last duplicate wins); ``check_config`` reads it again."""
    path = tmp_path / "twice.yaml"
    path.write_text(CI_TEXT + "hardmax_vs_softmax:\n  theorem1:\n    n_draws: 5\n")
    with pytest.raises(ConfigError) as err:
        check_config(yaml.safe_load(path.read_text()), config_files=[path])
    first = LINES.index("hardmax_vs_softmax:\n") + 1
    assert (f"line {len(LINES) + 1}: duplicate key hardmax_vs_softmax (first at line {first})"
            in str(err.value))


def test_leading_zero_is_found_in_the_file_snakemake_already_loaded(tmp_path):
    """Snakemake loads ``seed: 0012345`` as 5349 before the Snakefile runs; the check reads the
    file again and names the key."""
    path = tmp_path / "octal.yaml"
    path.write_text(CI_TEXT.replace(f"seed: {CI['seed']}\n", "seed: 0012345\n"))
    config = yaml.safe_load(path.read_text())
    assert config["seed"] == 5349
    with pytest.raises(ConfigError, match=r"key seed: 0012345 is written with a leading zero"):
        check_config(config, config_files=[path])


@pytest.mark.parametrize("section", [name for name, defaulted in sections(SCHEMA) if defaulted])
def test_a_missing_section_with_a_default_gets_it(section):
    config, schema = yaml.safe_load(CI_TEXT), SCHEMA
    full_config = config
    *parents, name = section.split(".")
    for key in parents:
        config, schema = config[key], schema["properties"][key]
    del config[name]
    full = check_config(full_config)
    for key in section.split("."):
        full = full[key]
    assert full == schema["properties"][name]["default"]


@pytest.mark.parametrize("what", ["missing", "directory"])
def test_missing_or_directory_config_is_named(tmp_path, what):
    path = tmp_path / "config.yaml"
    if what == "directory":
        path.mkdir()
    with pytest.raises(ConfigError, match="1 problem") as err:
        check_config_files([ROOT / "config/ci.yaml", path])
    problem = "does not exist" if what == "missing" else "is a directory"
    assert f"config file {path} {problem}" in str(err.value)


@pytest.mark.parametrize("name", ["ci.yaml", "config.yaml", "paper.yaml"])
def test_shipped_configs_pass(name):
    assert check_config_files([ROOT / "config" / name])["seed"] >= 0
