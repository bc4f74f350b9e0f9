"""Bad calls to the universal-approximation mathematics (``universal``, ``selective_shift``,
``contextual_mapping``; the jobs' are in tests/experiments/universal_approximation): NaN,
infinities, negative or fractional sizes, empty inputs, mismatched shapes, unordered code lists.
Each must raise a ``ValueError`` (or ``TypeError``) whose message names the argument, never return
NaN, an empty table or garbage silently."""

import math

import numpy as np
import pytest

from expressivity.contextual_mapping import code_separation, contextual_properties, softmax_deviation
from expressivity.quantization import grid_digits
from expressivity.selective_shift import (
    codes,
    compare_with_reference,
    dense_network,
    float64_exact_by_formula,
    positional_offsets,
    run_attention,
    run_integer,
)
from expressivity.universal import (
    grid_target,
    ks_route,
    lp_errors,
    repeated_tokens,
    sample,
    table_size,
    target,
    yun_route,
)

NAN, INF = math.nan, math.inf
X = sample(np.random.default_rng(0), 5, 3, 1)
F = np.zeros((4, 3, 1))
NET = dense_network(2, 1, 2)
DIGITS = grid_digits(2, 2, 1, 100)
Q = run_integer(NET, DIGITS)
CODES, _ = code_separation(Q)

#: (id, call, the argument the message must name)
CALLS = [
    # universal
    ("target-X-nan", lambda: target("sin_mean", np.full((2, 3, 1), NAN)), "X"),
    ("target-X-one-axis", lambda: target("softmax_average", np.ones(3)), "X"),
    ("grid-target-m-zero", lambda: grid_target("sin_mean", np.zeros((1, 3, 1)), 0), "1/delta"),
    ("lp-errors-F-nan", lambda: lp_errors(np.full((4, 3, 1), NAN), F), "F"),
    ("lp-errors-G-inf", lambda: lp_errors(F, np.full((4, 3, 1), INF)), "G"),
    ("lp-errors-p-zero", lambda: lp_errors(F, F, ps=(0,)), "ps"),
    ("lp-errors-p-nan", lambda: lp_errors(F, F, ps=(NAN,)), "ps"),
    ("repeated-tokens-m-one", lambda: repeated_tokens(np.zeros((1, 3, 1), int), 1), "1/delta"),
    ("repeated-tokens-digits-float", lambda: repeated_tokens(np.full((1, 3, 1), 0.5), 2), "digits"),
    ("table-size-m-zero", lambda: table_size("yun", 0, 3, 1), "1/delta"),
    ("table-size-n-zero", lambda: table_size("yun", 2, 0, 1), "n"),
    ("table-size-d-nan", lambda: table_size("kajitsuka_sato", 2, 3, NAN), "d"),
    ("yun-m-nan", lambda: yun_route("sin_mean", X, NAN), "1/delta"),
    ("yun-positional-m-one", lambda: yun_route("weighted_shift", X, 1, positional=True), "1/delta"),
    ("ks-budget-nan", lambda: ks_route("sin_mean", X, 2, 1.0, NAN, np.random.default_rng(0)),
     "budget"),
    ("ks-lam-inf", lambda: ks_route("sin_mean", X, 2, INF, 100, np.random.default_rng(0)), "lam"),
    # selective_shift
    ("codes-base-one", lambda: codes(np.zeros((2, 1), int), 1), "base"),
    ("codes-digits-float", lambda: codes(np.full((2, 1), 0.5), 2), "digits"),
    ("offsets-path-not-permutation", lambda: positional_offsets(3, 2, [0, 5, 1]), "path"),
    ("offsets-n-zero", lambda: positional_offsets(0, 2), "n"),
    ("attention-sigma-unknown", lambda: run_attention(NET, DIGITS, "sparsemax"), "sigma"),
    ("attention-beta-nan", lambda: run_attention(NET, DIGITS, "softmax", NAN), "beta"),
    ("attention-beta-negative", lambda: run_attention(NET, DIGITS, "softmax", -1.0), "beta"),
    ("properties-q-shape", lambda: contextual_properties(NET, DIGITS, Q[:, :1]), "q"),
    ("compare-q-shape", lambda: compare_with_reference(NET, DIGITS, Q[:2]), "q"),
    ("separation-q-nan", lambda: code_separation(np.array([[1.0, NAN]])), "q"),
    ("deviation-codes-empty", lambda: softmax_deviation(Q.astype(float), Q, np.array([])),
     "codes"),
    ("deviation-codes-unsorted", lambda: softmax_deviation(Q.astype(float), Q, CODES[::-1]),
     "codes"),
    ("float64-formula-m-one", lambda: float64_exact_by_formula(1, 1, 2), "1/delta"),
    ("float64-formula-d-zero", lambda: float64_exact_by_formula(2, 0, 2), "d"),
]


@pytest.mark.parametrize("call,named", [(c, n) for _, c, n in CALLS], ids=[i for i, _, _ in CALLS])
def test_bad_call_raises_naming_the_argument(call, named):
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    assert named in str(err.value), str(err.value)
