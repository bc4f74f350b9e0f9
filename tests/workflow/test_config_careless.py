"""A careless user's broken configs for the newest stages (trained_models, universal_approximation,
sparse_approximation), generated from ``config/ci.yaml``: every one is refused by ``check_config``
with a ``ConfigError`` whose message names the offending key.

This set adds to ``test_config_broken.py`` (NaN, +inf for numbers, integral floats for integers, -1,
one wrong type per key) and to the hypothesis test of ``test_config_properties.py``; it covers what
they do not:

- per number: 0 where 0 is out of range, the exclusive maximum itself, -inf for numbers, +inf and a
  fraction for integers, ``true``, ``null``, the number written as a string;
- per list: empty, out of order or repeated where the order matters, nested, an item ``true``,
  0, infinite or fractional; per string list: an unknown or repeated name; per string: a name with
  the wrong case or spelling (``device: gpu``); per boolean: ``1`` or ``"true"``;
- relations between keys that a careless edit breaks (``budget < window``, a kernel that is even or
  too short, d_model not a multiple of heads, more sequences than token sets, a head size above d,
  attention layers at or above depth, a Lemma 6 grid list with no grid within the budget, ...).
"""

import math
from dataclasses import dataclass
from pathlib import Path

import pytest
from cases import CI, assert_refused, changed, leaves

from config_schema import check_config, load_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = load_schema(ROOT / "workflow/schemas/config.schema.yaml")
SA, UA, TM = "sparse_approximation", "universal_approximation", "trained_models"
STAGES = (TM, UA, SA)


@dataclass(frozen=True)
class Careless:
    """One broken config: a change to ci.yaml (dotted key -> value) and the keys the refusal names."""

    id: str
    change: dict
    named: tuple[str, ...]


def lowest(node: dict) -> tuple[float | None, bool]:
    """The lower bound of a number node and whether it is exclusive."""
    if "exclusiveMinimum" in node:
        return node["exclusiveMinimum"], True
    return node.get("minimum"), False


def zero_refused(node: dict) -> bool:
    low, exclusive = lowest(node)
    return low is not None and (low > 0 or (low == 0 and exclusive))


def number_cases(key: str, value, node: dict) -> list[Careless]:
    """Broken values of one number (integer or float) key."""
    integer = node["type"] == "integer"
    cases = [Careless(f"true:{key}", {key: True}, (key,)),
             Careless(f"null:{key}", {key: None}, (key,)),
             Careless(f"string:{key}", {key: str(value)}, (key,))]
    if zero_refused(node):
        cases.append(Careless(f"zero:{key}", {key: 0 if integer else 0.0}, (key,)))
    if "exclusiveMaximum" in node:
        cases.append(Careless(f"at-exclusive-max:{key}", {key: node["exclusiveMaximum"]}, (key,)))
    if integer:
        cases.append(Careless(f"inf:{key}", {key: math.inf}, (key, "NaN and infinities")))
        cases.append(Careless(f"fraction:{key}", {key: value + 0.5}, (key,)))
    else:
        cases.append(Careless(f"-inf:{key}", {key: -math.inf}, (key, "NaN and infinities")))
    return cases


def list_cases(key: str, value: list, node: dict) -> list[Careless]:
    """Broken values of one list key."""
    items = node.get("items", {})
    cases = [Careless(f"nested:{key}", {key: [value]}, (key,))]
    if node.get("minItems", 0) >= 1:
        cases.append(Careless(f"empty:{key}", {key: []}, (key,)))
    if node.get("x-increasing") and len(value) >= 2:
        cases.append(Careless(f"reversed:{key}", {key: value[::-1]}, (key,)))
    if (node.get("x-increasing") or node.get("uniqueItems")) \
            and len(value) < node.get("maxItems", math.inf):
        cases.append(Careless(f"repeated:{key}", {key: [value[0], *value]}, (key,)))
    if items.get("type") in ("integer", "number"):
        cases.append(Careless(f"item-true:{key}", {key: [True, *value[1:]]}, (key,)))
        if zero_refused(items):
            cases.append(Careless(f"item-zero:{key}", {key: [0, *value[1:]]}, (key,)))
        if items["type"] == "integer":
            cases.append(Careless(f"item-inf:{key}", {key: [*value[:-1], math.inf]}, (key,)))
            cases.append(Careless(f"item-fraction:{key}", {key: [value[0] + 0.5, *value[1:]]},
                                  (key,)))
    if items.get("type") == "string":
        cases.append(Careless(f"item-unknown:{key}", {key: [*value[:-1], "nonsense"]}, (key,)))
    return cases


def generated() -> list[Careless]:
    cases = []
    for stage in STAGES:
        for key, value, node in leaves(CI[stage], SCHEMA["properties"][stage], (stage,)):
            kind = node["type"]
            if kind in ("integer", "number"):
                cases += number_cases(key, value, node)
            elif kind == "array":
                cases += list_cases(key, value, node)
            elif kind == "string":
                cases.append(Careless(f"upper-case:{key}", {key: value.upper()}, (key,)))
                if key.endswith(".device"):
                    cases.append(Careless(f"gpu:{key}", {key: "gpu"}, (key,)))
                    cases.append(Careless(f"cuda-index:{key}", {key: "cuda:0"}, (key,)))
            elif kind == "boolean":
                cases.append(Careless(f"one:{key}", {key: 1}, (key,)))
                cases.append(Careless(f"string:{key}", {key: "true"}, (key,)))
    return cases


MEM, HR, WS = f"{TM}.memorization", f"{TM}.heads_rank", f"{TM}.width_search"
COPY, HYB, SPA = f"{TM}.copy", f"{TM}.hybrid", f"{TM}.sparsity"
L6, APX, SM = f"{UA}.lemma6", f"{UA}.approximation", f"{UA}.sparse_mapping"

#: Relations a careless edit breaks (none of them in test_config_broken.RELATIONS).
RELATIONS = [
    # trained_models: protocol settings
    Careless("one-seed", {f"{TM}.seeds": 1}, (f"{TM}.seeds",)),  # no seed as control, no spread
    Careless("mem-budget-below-window", {f"{MEM}.budget": 100}, (f"{MEM}.window", f"{MEM}.budget")),
    # a window, the learning-rate decay and a second window must fit in the budget
    Careless("mem-budget-one-window", {f"{MEM}.budget": 300}, (f"{MEM}.window", f"{MEM}.budget",
                                                               "second window")),
    Careless("heads-budget-one-window", {f"{HR}.budget": 300}, (f"{HR}.window", f"{HR}.budget")),
    Careless("mem-every-over-window", {f"{MEM}.every": 1000}, (f"{MEM}.every", f"{MEM}.window")),
    Careless("no-lr-decay", {f"{TM}.lr_decay": 1}, (f"{TM}.lr_decay",)),
    Careless("width-budget-below-window", {f"{WS}.budget": 100}, (f"{WS}.window", f"{WS}.budget")),
    Careless("copy-every-over-window", {f"{COPY}.every": 200}, (f"{COPY}.every", f"{COPY}.window")),
    Careless("copy-budget-below-window", {f"{COPY}.budget": 100}, (f"{COPY}.window", f"{COPY}.budget")),
    Careless("hybrid-every-over-window", {f"{HYB}.every": 100000}, (f"{HYB}.every", f"{HYB}.window")),
    Careless("hybrid-budget-below-window", {f"{HYB}.budget": 30}, (f"{HYB}.window", f"{HYB}.budget")),
    Careless("sparsity-budget-one-window", {f"{SPA}.budget": 100}, (f"{SPA}.window", f"{SPA}.budget")),
    Careless("lr-zero", {f"{COPY}.lr": [0.0, 0.01]}, (f"{COPY}.lr",)),
    Careless("lr-negative", {f"{HYB}.lr": [-0.01]}, (f"{HYB}.lr",)),
    # trained_models: datasets
    Careless("mem-pairs-over-N", {f"{MEM}.pairs": 5}, (f"{MEM}.N", f"{MEM}.pairs")),
    Careless("heads-pairs-over-N", {f"{HR}.pairs": 9}, (f"{HR}.N", f"{HR}.pairs")),
    Careless("heads-N-over-token-sets", {f"{MEM}.vocab_size": 6, f"{HR}.N": 40},
             (f"{HR}.N", "C(6, 4) = 15")),
    Careless("segments-over-vocab", {f"{MEM}.vocab_size": 4, f"{WS}.N": [1]},
             (f"{HR}.pairs", "C(vocab_size, 2)")),
    Careless("width-N-over-token-sets-by-n", {f"{MEM}.vocab_size": 5, f"{WS}.N": [6]},
             (f"{WS}.N", "C(5, 4) = 5")),
    Careless("mem-n-below-pair", {f"{MEM}.n": 3}, (f"{MEM}.n",)),
    # the capacity datasets' segment pairs: two sentences each, n >= 4, distinct grid points
    Careless("capacity-pairs-over-N", {f"{TM}.capacity.pairs": 5},
             (f"{TM}.capacity.pairs", f"{TM}.capacity.N", "smallest N = 8")),
    Careless("capacity-n-below-pair", {f"{TM}.capacity.n": 3}, (f"{TM}.capacity.n", "n >= 4")),
    Careless("capacity-line-too-many-tokens", {f"{TM}.capacity.d": 1, f"{TM}.capacity.V": 4100},
             (f"{TM}.capacity.V", f"{TM}.capacity.pairs", "distinct points")),
    Careless("mem-n-over-vocab", {f"{MEM}.vocab_size": 4, f"{MEM}.n": 5}, (f"{MEM}.n",)),
    Careless("one-class", {f"{MEM}.n_classes": 1}, (f"{MEM}.n_classes",)),
    # at d = 1 the grid-rounded tokens of a segment-pair dataset coincide (a late "eps must be > 0")
    Careless("line-vocabulary-too-large", {f"{MEM}.d": 1, f"{MEM}.vocab_size": 5000},
             (f"{MEM}.d", f"{MEM}.vocab_size", "distinct points")),
    Careless("line-masked-pairs-too-many", {f"{MEM}.d": 1, f"{MEM}.vocab_size": 4000,
                                            f"{TM}.masked.N": 64, f"{TM}.masked.pairs": 30},
             (f"{TM}.masked.pairs", "distinct points")),
    # trained_models: models
    Careless("head-size-over-lowered-d", {f"{MEM}.d": 2, f"{HR}.head_sizes": [1, 4]},
             (f"{HR}.head_sizes", f"{MEM}.d")),
    Careless("heads-without-one", {f"{HR}.heads": [2, 4]}, (f"{HR}.heads",)),
    Careless("head-sizes-without-one", {f"{HR}.head_sizes": [2]}, (f"{HR}.head_sizes",)),
    Careless("full-rank-listed-twice", {f"{MEM}.d": 4, f"{HR}.head_sizes": [1, 4],
                                        f"{HR}.full_rank": True},
             (f"{HR}.full_rank", f"{HR}.head_sizes")),
    Careless("copy-heads-not-divisor", {f"{COPY}.heads": 3}, (f"{COPY}.d_model", f"{COPY}.heads")),
    Careless("hybrid-d-model-not-multiple", {f"{HYB}.d_model": 10, f"{HYB}.heads": 4},
             (f"{HYB}.d_model", f"{HYB}.heads")),
    Careless("copy-n-odd", {f"{COPY}.n": 9}, (f"{COPY}.n",)),
    # the sparsity sweep's recall needs n/2 distinct keys; its heads split needs the cycle's 2
    Careless("sweep-recall-keys-below-pairs", {f"{SPA}.tasks": ["copy", "recall"],
                                               f"{SPA}.recall_vocab": 3},
             (f"{SPA}.recall_vocab", "n/2 = 4")),
    Careless("sweep-heads-split-odd-heads", {f"{SPA}.configurations": ["heads"],
                                             f"{COPY}.heads": 1},
             (f"{COPY}.heads", "multiple of 2")),
    Careless("hybrid-kernel-even", {f"{HYB}.recall_kernels": [16]}, (f"{HYB}.recall_kernels", "odd")),
    Careless("recall-keys-below-pairs", {f"{HYB}.n": 16, f"{HYB}.recall_vocab": 7},
             (f"{HYB}.n", f"{HYB}.recall_vocab", "distinct keys")),
    Careless("hybrid-depth-lowered", {f"{HYB}.depth": 1}, (f"{HYB}.attention_layers", f"{HYB}.depth")),
    Careless("attention-layers-without-zero", {f"{HYB}.attention_layers": [1, 4]},
             (f"{HYB}.attention_layers",)),
    Careless("widths-unsorted", {f"{WS}.widths": [16, 4, 64]}, (f"{WS}.widths",)),
    # universal_approximation
    Careless("lemma6-beta-max-lowered", {f"{L6}.beta_max": 2}, (f"{L6}.beta_min", f"{L6}.beta_max")),
    Careless("lemma6-no-grid-in-budget", {f"{L6}.inv_delta": [40, 50]},
             (f"{L6}.inv_delta", f"{UA}.grid_budget")),
    Careless("sparse-mapping-no-grid-in-budget", {f"{SM}.grid_budget": 4},
             (f"{SM}.grid_budget", f"{SM}.inv_delta")),
    Careless("ks-budget-too-small", {f"{APX}.memorization_budget": 10},
             (f"{APX}.memorization_budget",)),
    Careless("approximation-d-raised", {f"{APX}.d": [1, 3]}, (f"{APX}.d",)),
    Careless("approximation-n-raised", {f"{APX}.n": 8}, (f"{APX}.n",)),
    Careless("approximation-one-delta", {f"{APX}.inv_delta": [2]}, (f"{APX}.inv_delta",)),
    Careless("targets-repeated", {f"{APX}.targets": ["sin_mean", "sin_mean"]}, (f"{APX}.targets",)),
    Careless("regression-two-sizes", {f"{UA}.regression.n_train": [64, 256]},
             (f"{UA}.regression.n_train",)),
    Careless("regression-degree-one", {f"{UA}.regression.degree": 1}, (f"{UA}.regression.degree",)),
    # N below 11 (T + 1) (T = 56 here): the excess risk is far from 1/N, a paper claim "fails"
    Careless("regression-underdetermined", {f"{UA}.regression.d": 3, f"{UA}.regression.degree": 5},
             (f"{UA}.regression.n_train", "C(d + degree, degree) = 56")),
    Careless("lam-zero", {f"{APX}.lam": 0}, (f"{APX}.lam",)),
    Careless("mp-dps-low", {f"{APX}.mp_dps": 10}, (f"{APX}.mp_dps",)),
    # sparse_approximation
    Careless("sa-mass-k-over-n", {f"{SA}.mass.n": [8, 16], f"{SA}.mass.n_max": [16],
                                  f"{SA}.mass.k": [32]}, (f"{SA}.mass.k",)),
    Careless("sa-n-max-longer-than-k", {f"{SA}.sweep.n_max": [4096, 4096]}, (f"{SA}.sweep.n_max",)),
    Careless("sa-trials-at-largest-n-longer", {f"{SA}.mass.trials_at_largest_n": [1] * 6},
             (f"{SA}.mass.trials_at_largest_n",)),
    Careless("sa-window-over-n", {f"{SA}.module.n": 16}, (f"{SA}.module.window",)),
    Careless("sa-d-start-over-jl-bound", {f"{SA}.search.d_start": 1000}, (f"{SA}.search.d_start",)),
    Careless("sa-one-trial", {f"{SA}.sweep.trials": 1, f"{SA}.sweep.trials_at_largest_n": []},
             (f"{SA}.sweep.trials",)),
    Careless("sa-error-n-below-k", {f"{SA}.sweep.k": [1, 16], f"{SA}.sweep.n_max": [],
                                    f"{SA}.error.n": 8}, (f"{SA}.error.n",)),
]

CASES = generated() + RELATIONS


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_careless_config_is_refused_naming_the_key(case):
    assert_refused(case.change, case.named)


def test_recall_keys_bind_only_where_recall_runs():
    """Counting alone may be longer than twice recall's vocabulary; recall at that length may not."""
    long = {f"{HYB}.n": 16, f"{HYB}.recall_vocab": 4}
    check_config(changed({**long, f"{HYB}.recall_alternatives": []}))
    assert_refused(long, (f"{HYB}.recall_vocab", "distinct keys"))
