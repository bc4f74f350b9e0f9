"""The one derivation of a job's settings from its experiments function's signature
(workflow/job_params.py): what it reads, where it looks, what it refuses, and what the job-size
refusal names."""

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from cases import CI, ROOT

from job_params import SignatureError, job_settings, keywords, lowered, what_lowers

EXPERIMENTS = ROOT / "lib/expressivity/experiments"


def _public_functions():
    """(dotted name, source path) of every public function of the experiments layer."""
    import ast

    for path in sorted(EXPERIMENTS.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT / "lib").with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                yield f"{module}.{node.name}"


FUNCTIONS = list(_public_functions())


@pytest.mark.parametrize("function", FUNCTIONS)
def test_keywords_read_with_ast_are_the_imported_functions_signature(function):
    module, name = function.rsplit(".", 1)
    signature = inspect.signature(getattr(importlib.import_module(module), name))
    expected = tuple((p.name, p.default is not inspect.Parameter.empty)
                     for p in signature.parameters.values()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    assert keywords(function) == expected


CONFIG = {"seed": 7, "stage": {"n": 1, "eps": 0.5, "flag": True,
                               "section": {"n": [2, 3], "trials": 4, "lr": [0.1, 0.01]}}}


def _settings(tmp_path, monkeypatch, source, *sections, **declared):
    """job_settings of ``f`` defined by ``source`` in a throwaway experiments module."""
    lib = tmp_path / "lib"
    package = lib / "expressivity/experiments/stage"
    package.mkdir(parents=True)
    (package / "jobs.py").write_text(source)
    monkeypatch.setattr("job_params.LIB", lib)
    keywords.cache_clear()
    try:
        return job_settings(CONFIG, "stage", "jobs.f", *sections, **declared)
    finally:
        keywords.cache_clear()


def test_the_most_specific_section_gives_a_keyword_then_the_stage_then_the_top_level(
        tmp_path, monkeypatch):
    job = _settings(tmp_path, monkeypatch, "def f(*, n, eps, seed, trials, log=None): ...",
                    "section")
    assert job.values == {"n": [2, 3], "eps": 0.5, "seed": 7, "trials": 4}
    assert job.keys == {"n": "stage.section.n", "eps": "stage.eps", "seed": "seed",
                        "trials": "stage.section.trials"}


def test_supplied_keys_and_given_override_the_lookup(tmp_path, monkeypatch):
    job = _settings(tmp_path, monkeypatch, "def f(table, *, n, eps, trials, extra=3): ...",
                    "section", supplied=["table", "trials"], keys={"n": "stage.n"},
                    given={"eps": 0.25})
    assert job.values == {"n": 1, "eps": 0.25}
    assert job.supplied == ("table", "trials")
    # a keyword with a default that no section holds keeps its default
    assert "extra" not in job.values


def test_a_keyword_no_section_holds_is_refused_naming_it_and_where_it_looked(tmp_path, monkeypatch):
    with pytest.raises(SignatureError, match=r"takes width, which no config section.*"
                                             r"stage\.section, stage, the top level"):
        _settings(tmp_path, monkeypatch, "def f(*, n, width): ...", "section")


@pytest.mark.parametrize("declared", [{"supplied": ["m"]}, {"keys": {"m": "stage.n"}},
                                      {"given": {"m": 1}}])
def test_a_declared_name_the_function_does_not_take_is_refused(tmp_path, monkeypatch, declared):
    with pytest.raises(SignatureError, match="takes no keyword m"):
        _settings(tmp_path, monkeypatch, "def f(*, n): ...", **declared)


def test_reading_signatures_imports_neither_the_library_nor_torch():
    code = ("import sys, yaml; sys.path.insert(0, 'workflow'); from job_params import "
            "job_settings; c = yaml.safe_load(open('config/ci.yaml'));"
            "job_settings(c, 'trained_models', 'memorization.memorization_rows', 'memorization',"
            " supplied=['arm']); assert 'torch' not in sys.modules, 'torch';"
            "assert 'expressivity' not in sys.modules, 'expressivity'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_claims_registry_and_the_cost_models_import_neither_torch_nor_scipy():
    """Every Snakemake start loads the registry and the cost models: torch (2 s) and scipy.stats
    (1 s) are imported by the jobs that use them, not by the DAG."""
    code = ("import sys; sys.path.insert(0, 'lib');"
            "import expressivity.experiments.universal_approximation.polynomial;"
            "import expressivity.experiments.trained_models.capacity;"
            "import expressivity.experiments.trained_models.cost;"
            "from expressivity.claims import registry; registry();"
            "loaded = [m for m in ('torch', 'scipy.stats') if m in sys.modules];"
            "assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_ci_jobs_get_their_sections_values():
    job = job_settings(CI, "trained_models", "memorization.heads_rows", "heads_rank",
                       "memorization", supplied=["heads", "size"])
    # heads_rank's own N and pairs, the memorization dataset's other settings
    assert job.keys["N"] == "trained_models.heads_rank.N"
    assert job.keys["vocab_size"] == "trained_models.memorization.vocab_size"
    assert job.values["seeds"] == CI["trained_models"]["seeds"]


@pytest.mark.parametrize("value, smaller", [(8, 4), (1, None), (0.5, 0.25), (0.0, None),
                                            (True, None), ([16, 64, 32], [16, 32]),
                                            (["a", "b"], ["a"]), ([5], None), ("x", None)])
def test_lowered_halves_numbers_and_drops_a_lists_largest_entry(value, smaller):
    assert lowered(value) == smaller


def test_what_lowers_names_the_settings_whose_lowering_lowers_the_estimate():
    section = {"n": 10, "beta": 2.0, "sizes": [1, 5], "search": {"steps": 8, "name": "a"}}

    def estimate():  # grows with n, the largest size and the steps; not with beta
        return section["n"] * max(section["sizes"]) + section["search"]["steps"]

    # the largest effect first; the section is left as it was
    assert what_lowers(section, "s", estimate) == [
        ("s.sizes", [1, 5], 10 * 1 + 8), ("s.n", 10, 5 * 5 + 8), ("s.search.steps", 8, 10 * 5 + 4)]
    assert section == {"n": 10, "beta": 2.0, "sizes": [1, 5], "search": {"steps": 8, "name": "a"}}

    def refusing():  # a cost model that refuses n below 10: that key is not named
        if section["n"] < 10:
            raise ValueError("n must be >= 10")
        return estimate()

    assert [key for key, _, _ in what_lowers(section, "s", refusing)] == ["s.sizes",
                                                                           "s.search.steps"]
    assert section["n"] == 10


def test_every_rule_takes_its_params_from_job_params():
    """No hand-typed settings in a compute rule's params: each params block is one job_params
    call (the gather and plot rules of outputs.smk pass figure settings, not job settings)."""
    for path in sorted((ROOT / "workflow/rules").glob("*.smk")):
        if path.name in ("common.smk", "outputs.smk", "claims.smk"):
            continue
        blocks = Path(path).read_text().split("    params:\n")[1:]
        for block in blocks:
            lines = [line.strip() for line in block.split("    script:")[0].splitlines()]
            code = [line for line in lines if line and not line.startswith("#")]
            assert code[0].startswith("**job_params("), f"{path.name}: {code}"
