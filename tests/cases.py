"""Small cases shared by the unit tests, the claims tests and the benchmarks.

Every case is taken from ``config/ci.yaml`` (the smoke-scale config the workflow tests run), so a
test, a benchmark and a workflow job exercise the same instances; a test that needs a different
size says so next to the case. One block per stage, each maintained with that stage's code.
"""

import copy
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# workflow/ (job_params, config_schema), also where a benchmark imports these cases
if str(ROOT / "workflow") not in sys.path:
    sys.path.insert(0, str(ROOT / "workflow"))
#: config/ci.yaml as written (sections keyed by stage).
CI = yaml.safe_load((ROOT / "config/ci.yaml").read_text())

#: In a change to ci.yaml (``changed``): delete the key.
MISSING = object()


def set_key(config: dict, dotted: str, value) -> None:
    """Set the dotted key of ``config`` to ``value`` in place (``MISSING`` deletes the key)."""
    *parents, last = dotted.split(".")
    node = config
    for part in parents:
        node = node[part]
    if value is MISSING:
        del node[last]
    else:
        node[last] = value


def changed(change: dict) -> dict:
    """ci.yaml with ``change`` applied: dotted key -> new value (``MISSING`` deletes the key)."""
    config = copy.deepcopy(CI)
    for dotted, value in change.items():
        set_key(config, dotted, value)
    return config


def assert_refused(change: dict, named) -> None:
    """The config check refuses ci.yaml with ``change`` applied, naming every text of ``named``."""
    import pytest

    from config_schema import ConfigError, check_config

    with pytest.raises(ConfigError) as err:
        check_config(changed(change))
    for text in named:
        assert text in str(err.value), str(err.value)


def leaves(config: dict, node: dict, path: tuple = ()):
    """``(dotted key, value, schema node)`` of every scalar and list below ``config``, whose
    schema is ``node``."""
    for key, value in config.items():
        sub = node["properties"][key]
        if isinstance(value, dict):
            yield from leaves(value, sub, (*path, key))
        else:
            yield ".".join((*path, key)), value, sub


SEED = CI["seed"]


def section(stage: str) -> dict:
    """The ``config/ci.yaml`` section of one stage."""
    return CI[stage]


def job_params(stage: str, function: str, *sections: str, **declared) -> dict:
    """Keywords of ``expressivity.experiments.<stage>.<function>`` as the workflow's job passes
    them on ci.yaml: the one derivation the rules use (``workflow/job_params.py``), with the rule's
    ``supplied``, ``keys`` and ``given``."""
    from job_params import job_settings

    return job_settings(CI, stage, function, *sections, **declared).values


# ---- hardmax_vs_softmax ----
HVS = "hardmax_vs_softmax"
_HVS = section(HVS)
#: Every Boltzmann-operator vector of the run (the chunks together).
HVS_BOLTZMANN = {**job_params(HVS, "boltzmann.check_vectors", "boltzmann", supplied=["first", "last"]),
                 "first": 0, "last": _HVS["boltzmann"]["n_vectors"]}
HVS_CURVES = job_params(HVS, "boltzmann.limit_curves", "boltzmann")
HVS_THEOREM1 = job_params(HVS, "theorem1.theorem1_tables", "theorem1")
#: BigBird: one job per ``n`` in ``HVS_BIGBIRD_N``.
HVS_BIGBIRD = job_params(HVS, "bigbird.bigbird_table", "bigbird", supplied=["n"])
HVS_BIGBIRD_N = _HVS["bigbird"]["n"]

# ---- rank1 (Kajitsuka & Sato's layer) ----


def rank1_case(seed: int, V: int = 5, d: int = 2, n: int = 2, N: int | None = None,
               eps: float = 1.0):
    """A token-separated dataset of ``N`` (every ``C(V, n)``) sequences with 3 classes, a projection
    ``v`` meeting the lemma's bound, its contexts and the layer's output scale ``alpha``."""
    import math

    import numpy as np

    from expressivity.datasets import token_separated_dataset
    from expressivity.rank1.contexts import contexts
    from expressivity.rank1.layer import output_scale
    from expressivity.rank1.projection import draw_projection

    rng = np.random.default_rng(seed)
    ds = token_separated_dataset(rng, V, d, n, N or math.comb(V, n), 3, eps=eps)
    v = draw_projection(rng, ds.vocab)[0]
    return ds, v, contexts(ds, v), output_scale(ds.eps, ds.r_max)


# ---- memorization ----
# The (d, |V|) sweeps are one job per point.
MEM = "memorization"
_MEM = section(MEM)
#: Regime (i) at every (d, |V|) of ``MEM_THEORY_POINTS``; ``n`` adds 3 to the run's lengths, so that
#: two datasets are computed in arbitrary precision within ``max_digits`` and two are not.
MEM_THEORY = {**job_params(MEM, "regimes.theory_rows", "theory", supplied=["d", "V"]), "n": [2, 3]}
MEM_THEORY_POINTS = [(d, V) for d in _MEM["theory"]["d"] for V in _MEM["theory"]["V"]]
MEM_SEARCH = job_params(MEM, "regimes.search_rows", "search", supplied=["d", "V"])
MEM_SEARCH_POINTS = [(d, V) for d in _MEM["search"]["d"] for V in _MEM["search"]["V"]]
MEM_CURVE = job_params(MEM, "curve.curve_rows", "curve")
MEM_HARDMAX = job_params(MEM, "contrast.hardmax_contrast", "hardmax")
MEM_MASKED = job_params(MEM, "masked.masked_rows", "masked")

# ---- sparse_approximation ----
from expressivity.experiments.sparse_approximation.searches import (  # noqa: E402
    OPTIMISE_KEYS,
    sweep_points,
)

SA = section("sparse_approximation")
_SA = "sparse_approximation"
_TRIALS = ["n", "k", "first", "trials"]
#: Keywords of ``experiments.sparse_approximation.searches.sweep_table`` but ``n, k, first,
#: trials``; its (n, k, trials) points (every n up to the n_max of its k).
SA_SWEEP = job_params(_SA, "searches.sweep_table", supplied=_TRIALS)
SA_SWEEP_POINTS = sweep_points(SA["sweep"])
#: Keywords of ``mass_table`` but ``n, k, first, trials``; its (n, k, trials) points.
SA_MASS = job_params(_SA, "searches.mass_table", "mass", supplied=_TRIALS)
SA_MASS_POINTS = sweep_points(SA["mass"])
#: Keywords of ``models.models_tables`` but the tables.
SA_MODELS = job_params(_SA, "models.models_tables", "models",
                       supplied=["sweep", "mass", "reference"])
#: Keywords of ``reference.reference_table`` (the exact-rule reference of both series).
SA_REFERENCE = job_params(_SA, "reference.reference_table", given={"search": {
    key: SA["search"][key] for key in ("d_start", "resolution", "min_step")}})
#: Keywords of ``vary_table`` but ``varied, value``.
SA_VARY = job_params(_SA, "searches.vary_table", "vary", supplied=["varied", "value"],
                     keys={key: f"{_SA}.{key}" for key in ("R", "eps_ratio", "eps_zero")})
#: Keywords of ``jl_table`` (the sweep's n up to ``jl.n_max``).
SA_JL = job_params(_SA, "searches.jl_table", "jl", keys={"k": f"{_SA}.sweep.k"},
                   given={"n": [n for n in SA["sweep"]["n"] if n <= SA["jl"]["n_max"]]})
#: Keywords of ``error_table`` but ``k``.
SA_ERROR = job_params(_SA, "searches.error_table", "error", "search", supplied=["k"])
#: Keywords of ``construction.module_table``.
SA_MODULE = job_params(_SA, "construction.module_table", "module")
#: Keywords of ``optimised.optimised_table`` but ``k`` (one job per k of ``SA_OPTIMISED_K``).
SA_OPTIMISED = job_params(_SA, "optimised.optimised_table", "optimised", supplied=["k"],
                          given={"optimise": {key: SA["optimised"][key] for key in OPTIMISE_KEYS}})
SA_OPTIMISED_K = SA["optimised"]["k"]
#: Keywords of ``frontier.frontier_table`` but ``k`` (one job per k of ``SA_FRONTIER_K``), and of
#: ``frontier.unbounded_table``.
SA_FRONTIER = job_params(_SA, "frontier.frontier_table", "frontier", supplied=["k"],
                         keys={"mass_eps": f"{_SA}.mass.eps"})
SA_FRONTIER_K = SA["frontier"]["k"]
SA_UNBOUNDED = job_params(_SA, "frontier.unbounded_table", "frontier",
                          keys={"mass_eps": f"{_SA}.mass.eps"})
#: Keywords of ``construction.example_table``.
SA_EXAMPLE = job_params(_SA, "construction.example_table", "module",
                        keys={"kind": f"{_SA}.module.example_kind", "k": f"{_SA}.module.example_k"})

# ---- universal_approximation ----
UA = section("universal_approximation")
_UA = "universal_approximation"
#: Keywords of ``experiments.universal_approximation.lemma6.lemma6_check`` but the grid ``m, d, n``.
UA_LEMMA6 = job_params(_UA, "lemma6.lemma6_check", "lemma6", supplied=["m", "d", "n"])
#: The Lemma 6 grids ``(1/delta, d, n)`` of ci.yaml within the budget.
UA_LEMMA6_GRIDS = [(m, d, n) for m in UA["lemma6"]["inv_delta"] for d in UA["lemma6"]["d"]
                   for n in UA["lemma6"]["n"] if m ** (n * d) <= UA["grid_budget"]]
#: Keywords of ``approximation_table`` but ``target`` and the series' ``d, n, inv_delta``; the
#: series of ci.yaml (each (d, n) with its 1/delta up to its inv_delta_max).
UA_APPROXIMATION = job_params(_UA, "approximation.approximation_table", "approximation",
                              supplied=["target", "d", "n", "inv_delta"])
UA_APPROXIMATION_SERIES = [
    {"d": d, "n": n, "inv_delta": [m for m in UA["approximation"]["inv_delta"] if m <= top]}
    for d, n, top in zip(UA["approximation"]["d"], UA["approximation"]["n"],
                         UA["approximation"]["inv_delta_max"], strict=True)]
UA_TARGETS = UA["approximation"]["targets"] + [UA["approximation"]["positional_target"]]
#: Keywords of ``assumption_table``, ``sparse_mapping_table``, ``staircase_table`` and
#: ``regression_table``.
UA_PATTERNS = job_params(_UA, "patterns.assumption_table", "patterns")
UA_SPARSE_MAPPING = job_params(_UA, "patterns.sparse_mapping_table", "sparse_mapping")
UA_STAIRCASE = job_params(_UA, "polynomial.staircase_table", "polynomial")
UA_ABLATION = job_params(_UA, "polynomial.ablation_table", "polynomial_ablation")
UA_REGRESSION = job_params(_UA, "polynomial.regression_table", "regression", supplied=["log"])
UA_TRAINED = job_params(_UA, "polynomial.trained_table", "polynomial_trained", supplied=["log"])

# ---- trained_models ----
TM = section("trained_models")
_TM = "trained_models"
#: Keywords of ``experiments.trained_models.memorization.memorization_rows`` but ``arm``.
TM_MEMORIZATION = job_params(_TM, "memorization.memorization_rows", "memorization",
                             supplied=["arm"])
#: The same for the causal arms (ci.yaml's masked section, then its memorization section), and
#: the arms they run.
TM_MASKED = {**job_params(_TM, "memorization.memorization_rows", "masked", "memorization",
                          supplied=["arm"]), "causal": True}
TM_MASKED_ARMS = TM["masked"]["arms"]
#: Keywords of ``heads_rows`` but ``heads`` and ``size``; the (heads, head size) of ci.yaml.
TM_HEADS_RUN = job_params(_TM, "memorization.heads_rows", "heads_rank", "memorization",
                          supplied=["heads", "size"])
TM_HEADS = [(h, s) for h in TM["heads_rank"]["heads"] for s in TM["heads_rank"]["head_sizes"]]
#: Keywords of ``width.width_rows`` but ``N``; the N of ci.yaml.
TM_WIDTH = job_params(_TM, "width.width_rows", "width_search", "memorization", supplied=["N"])
TM_WIDTH_N = TM["width_search"]["N"]
#: Keywords of ``encoders.copy_rows`` but ``pattern`` and ``depth``.
TM_COPY = job_params(_TM, "encoders.copy_rows", "copy", supplied=["pattern", "depth"])
#: Keywords of ``papers.hybrid_rows`` but its wildcards.
TM_HYBRID = job_params(_TM, "papers.hybrid_rows", "hybrid",
                       supplied=["task", "alternative", "kernel", "k"])
#: Keywords of ``capacity.capacity_rows`` but its wildcards (arm, N, a); ci.yaml's N and a.
TM_CAPACITY = job_params(_TM, "capacity.capacity_rows", "capacity", supplied=["arm", "N", "a"])
TM_CAPACITY_N, TM_CAPACITY_A = TM["capacity"]["N"], TM["capacity"]["a"]
#: Short budgets for tests that check a job's rows, not what training reaches.
TM_SHORT = {"budget": 20, "window": 10, "every": 5}
#: ci.yaml's memorization dataset (``segment_pair_dataset`` keywords), for single training runs.
TM_DATASET = {key: TM["memorization"][key] for key in ("vocab_size", "d", "n", "n_classes", "N", "pairs")}
