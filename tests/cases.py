"""Small cases shared by the unit tests, the claims tests and the benchmarks.

Every case is taken from ``config/ci.yaml`` (the smoke-scale config the workflow tests run), so a
test, a benchmark and a workflow job exercise the same instances; a test that needs a different
size says so next to the case. One block per stage, each maintained with that stage's code.
"""

import copy
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
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


SEED = CI["seed"]


def section(stage: str) -> dict:
    """The ``config/ci.yaml`` section of one stage."""
    return CI[stage]


# ---- hardmax_vs_softmax ----
# Keywords of the experiments functions (expressivity.experiments.hardmax_vs_softmax), as the
# workflow's jobs pass them.
_HVS = section("hardmax_vs_softmax")
#: Every Boltzmann-operator vector of the run (the chunks together).
HVS_BOLTZMANN = {"seed": SEED, "first": 0, "last": _HVS["boltzmann"]["n_vectors"],
                 **{k: _HVS["boltzmann"][k] for k in ("size_min", "size_max", "scale_max",
                                                       "tie_fraction", "spreads", "arb_dps")}}
HVS_CURVES = {"seed": SEED, "example_betas": _HVS["boltzmann"]["example_betas"]}
HVS_THEOREM1 = {"seed": SEED, **_HVS["theorem1"]}
#: BigBird: one job per ``n`` in ``HVS_BIGBIRD_N``.
HVS_BIGBIRD = {"seed": SEED,
               **{k: _HVS["bigbird"][k] for k in ("trials", "beta_min", "beta_max", "n_betas")}}
HVS_BIGBIRD_N = _HVS["bigbird"]["n"]

# ---- memorization ----
# Keywords of the experiments functions (expressivity.experiments.memorization.*), as the workflow's
# jobs pass them; the (d, |V|) sweeps are one job per point.
_MEM = section("memorization")
_MEM_SHARED = {"seed": SEED, **{k: _MEM[k] for k in ("n_classes", "r_min", "r_max")}}
#: Regime (i) at every (d, |V|) of ``MEM_THEORY_POINTS``; ``n`` adds 3 to the run's lengths, so that
#: two datasets are computed in arbitrary precision within ``max_digits`` and two are not.
MEM_THEORY = {**_MEM_SHARED, "margin": _MEM["margin"], "n": [2, 3],
              **{k: _MEM["theory"][k] for k in ("N_max", "eps", "max_digits")}}
MEM_THEORY_POINTS = [(d, V) for d in _MEM["theory"]["d"] for V in _MEM["theory"]["V"]]
MEM_SEARCH = {**_MEM_SHARED, "margin": _MEM["margin"],
              **{k: _MEM["search"][k] for k in ("n", "N", "eps", "lam_mem", "n_grid")}}
MEM_SEARCH_POINTS = [(d, V) for d in _MEM["search"]["d"] for V in _MEM["search"]["V"]]
MEM_CURVE = {**_MEM_SHARED, **_MEM["curve"]}
MEM_HARDMAX = {"seed": SEED, "n_classes": _MEM["n_classes"], **_MEM["hardmax"]}

# ---- sparse_approximation ----
from expressivity.experiments.sparse_approximation.searches import sweep_points  # noqa: E402

SA = section("sparse_approximation")


def _sa(name: str, *keys: str) -> dict:
    """The settings ``keys`` of ``sparse_approximation.<name>``, as its job's params pass them."""
    return {key: SA[name][key] for key in keys}


#: The section's top-level settings: the target family, R and the tolerances.
SA_SETTINGS = {key: SA[key] for key in ("target", "R", "eps_ratio", "eps_zero", "delta")}
#: Keywords of ``experiments.sparse_approximation.searches.sweep_table`` but ``n, k, first,
#: trials``; its (n, k, trials) points (every n up to the n_max of its k).
SA_SWEEP = {**SA_SETTINGS, "seed": SEED, "search": SA["search"], "device": SA["device"],
            "mass_rows": SA["mass_rows"]}
SA_SWEEP_POINTS = sweep_points(SA["sweep"])
#: Keywords of ``mass_table`` but ``n, k, first, trials``; its (n, k, trials) points.
SA_MASS = {**{key: SA[key] for key in ("target", "R", "eps_ratio", "delta")}, "seed": SEED,
           "search": SA["search"], "device": SA["device"], "mass_rows": SA["mass_rows"],
           **_sa("mass", "eps", "horizon_fraction")}
SA_MASS_POINTS = sweep_points(SA["mass"])
#: Keywords of ``models.models_tables`` but the tables.
SA_MODELS = {"seed": SEED, **SA["models"]}
#: Keywords of ``reference.reference_table`` (the exact-rule reference of both series).
SA_REFERENCE = {**{key: SA[key] for key in ("target", "R", "eps_ratio", "eps_zero")}, "seed": SEED,
                "search": {key: SA["search"][key] for key in ("d_start", "resolution", "min_step")},
                "sweep": SA["sweep"], "mass": SA["mass"]}
#: Keywords of ``vary_table`` but ``varied, value``.
SA_VARY = {**SA_SETTINGS, "seed": SEED, "search": SA["search"], **_sa("vary", "n", "k", "trials")}
#: Keywords of ``jl_table`` (the sweep's n up to ``jl.n_max``).
SA_JL = {**SA_SETTINGS, "seed": SEED, "n": [n for n in SA["sweep"]["n"] if n <= SA["jl"]["n_max"]],
         "k": SA["sweep"]["k"], **_sa("jl", "trials", "max_rounds")}
#: Keywords of ``error_table`` but ``k``.
SA_ERROR = {**SA_SETTINGS, "seed": SEED, **_sa("search", "d_start", "min_step", "block"),
            **_sa("error", "n", "trials")}
#: Keywords of ``construction.module_table``.
SA_MODULE = {"R": SA["R"], "eps_ratio": SA["eps_ratio"], "eps_zero": SA["eps_zero"], "seed": SEED,
             **_sa("module", "n", "d", "k", "trials", "max_rounds")}
#: Keywords of ``optimised.optimised_table`` but ``k`` (one job per k of ``SA_OPTIMISED_K``).
SA_OPTIMISED = {**SA_SETTINGS, "seed": SEED, "search": SA["search"], "device": SA["device"],
                **_sa("optimised", "n", "trials", "circle_margin"),
                "optimise": _sa("optimised", "restarts", "d_start", "d_max", "resolution", "steps",
                                "patience", "check_every", "lr", "margin")}
SA_OPTIMISED_K = SA["optimised"]["k"]
#: Keywords of ``construction.example_table``.
SA_EXAMPLE = {**{key: SA[key] for key in ("R", "eps_ratio", "eps_zero", "delta")}, "seed": SEED,
              "search": SA["search"], "n": SA["module"]["n"], "kind": SA["module"]["example_kind"],
              "k": SA["module"]["example_k"], "window": SA["module"]["window"]}

# ---- universal_approximation ----
UA = section("universal_approximation")


def _ua(name: str, *keys: str) -> dict:
    """The settings ``keys`` of ``universal_approximation.<name>``, as its job's params pass them."""
    return {key: UA[name][key] for key in keys}


#: Keywords of ``experiments.universal_approximation.lemma6_check`` but the grid ``m, d, n``.
UA_LEMMA6 = {**_ua("lemma6", "beta_min", "beta_max", "softmax_subset"),
             "grid_budget": UA["grid_budget"]}
#: The Lemma 6 grids ``(1/delta, d, n)`` of ci.yaml within the budget.
UA_LEMMA6_GRIDS = [(m, d, n) for m in UA["lemma6"]["inv_delta"] for d in UA["lemma6"]["d"]
                   for n in UA["lemma6"]["n"] if m ** (n * d) <= UA["grid_budget"]]
#: Keywords of ``approximation_table`` but ``target`` and ``d``; every target and d of ci.yaml.
UA_APPROXIMATION = {**_ua("approximation", "inv_delta", "samples", "n", "lam", "mp_dps",
                          "memorization_budget"),
                    "grid_budget": UA["grid_budget"], "seed": SEED}
UA_APPROXIMATION_D = UA["approximation"]["d"]
UA_TARGETS = UA["approximation"]["targets"] + [UA["approximation"]["positional_target"]]
#: Keywords of ``assumption_table``, ``sparse_mapping_table``, ``staircase_table`` and
#: ``regression_table``.
UA_PATTERNS = {**_ua("patterns", "n", "names"), "seed": SEED}
UA_SPARSE_MAPPING = {**_ua("sparse_mapping", "names", "inv_delta", "d", "n", "grid_budget"),
                     "seed": SEED}
UA_STAIRCASE = {**_ua("polynomial", "d", "max_blocks", "max_degree", "n_test"), "seed": SEED}
UA_REGRESSION = {**_ua("regression", "d", "degree", "n_train", "sigma", "repeats", "n_test"),
                 "seed": SEED}

# ---- trained_models ----
TM = section("trained_models")
#: What every trained-models job gets besides its settings: the root seed, torch threads, device,
#: the number of seeds and the plateau rule.
TM_RUN = {"seed": SEED, "threads": TM["threads"], "device": TM["device"], "seeds": TM["seeds"],
          "min_gain": TM["min_gain"]}


def _tm(name: str, *keys: str) -> dict:
    """The settings ``keys`` of ``trained_models.<name>``, as its job's params pass them."""
    return {key: TM[name][key] for key in keys}


_TM_ENCODER = ("n", "vocab", "d_model", "heads", "lr", "batch", "budget", "every", "window",
               "eval_size")
_TM_DATA = ("vocab_size", "d", "n", "n_classes")
#: Keywords of ``experiments.trained_models.memorization.memorization_rows`` but ``arm``.
TM_MEMORIZATION = {**TM_RUN, **TM["memorization"]}
#: Keywords of ``heads_rows`` but ``heads`` and ``size``; the (heads, head size) of ci.yaml.
TM_HEADS_RUN = {**TM_RUN, **_tm("memorization", *_TM_DATA, "width", "lr", "budget", "window"),
                **_tm("heads_rank", "N", "pairs")}
TM_HEADS = [(h, s) for h in TM["heads_rank"]["heads"] for s in TM["heads_rank"]["head_sizes"]]
#: Keywords of ``width.width_rows`` but ``N``; the N of ci.yaml.
TM_WIDTH = {**TM_RUN, **_tm("memorization", *_TM_DATA),
            **_tm("width_search", "widths", "lr", "budget", "window")}
TM_WIDTH_N = TM["width_search"]["N"]
#: Keywords of ``encoders.copy_rows`` but ``pattern`` and ``depth``.
TM_COPY = {**TM_RUN, **_tm("copy", *_TM_ENCODER)}
#: Keywords of ``encoders.mixers_rows`` but ``alternative`` and ``k``.
TM_MIXERS = {**TM_RUN, **_tm("mixers", *_TM_ENCODER, "depth", "kernel")}
#: ci.yaml's memorization dataset (``segment_pair_dataset`` keywords), for single training runs.
TM_DATASET = _tm("memorization", *_TM_DATA, "N", "pairs")
