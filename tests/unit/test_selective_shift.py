"""Selective-shift contextual mappings (Yun et al. 2020a Lemma 6; 2020b sparse), reconstructed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.experiments.universal_approximation import lemma6_check, sparse_mapping_check
from expressivity.quantization import grid_digits
from expressivity.selective_shift import (
    compare_with_reference,
    contextual_all_distinct,
    contextual_properties,
    dense_network,
    float64_exact_by_formula,
    positional_network,
    run_attention,
    run_integer,
)
from expressivity.sparse_patterns import pattern_masks

# (1/delta, d, n) -> (t_l, t_r) in units of delta, from our notes' independent run (section 1.5).
NOTES = {(2, 1, 2): (10, 11), (3, 1, 2): (111, 230), (4, 1, 3): (26120, 40875),
         (2, 2, 2): (580, 1767), (3, 2, 2): (46665, 373832), (2, 3, 3): (3842064, 14024087),
         (5, 1, 4): (5337515, 7264844), (3, 2, 3): (8870490, 36904760)}


@pytest.mark.parametrize("key", sorted(NOTES))
def test_lemma6_properties_and_notes_values(key):
    m, d, n = key
    net = dense_network(m, d, n)
    digits = grid_digits(m, n, d, budget=10**5)
    q = run_integer(net, digits)
    p = contextual_properties(net, digits, q)
    assert p["prop1_violations"] == p["prop2_violations"] == p["prop4_violations"] == 0
    assert p["equivariance_violations"] == 0
    assert (int(p["prop3_t_l"]), int(p["prop3_t_r"])) == NOTES[key]
    assert net.attention_layers == m**d + 1
    assert net.float64_exact and float64_exact_by_formula(m, d, n)
    assert np.array_equal(run_attention(net, digits), np.asarray(q, dtype=float))


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(1, 2), st.integers(2, 4), st.integers(0, 2**31))
def test_equivariance_and_matrix_agreement_random_inputs(m, d, n, seed):
    """For every input and permutation: q(P L) = P q(L), and matrices == integers."""
    rng = np.random.default_rng(seed)
    net = dense_network(m, d, n)
    digits = rng.integers(0, m, size=(16, n, d))
    perm = rng.permutation(n)
    q = run_integer(net, digits)
    assert np.array_equal(run_integer(net, digits[:, perm]), q[:, perm])
    if net.float64_exact:
        assert compare_with_reference(net, digits, q)["matrix_mismatches"] == 0


def test_beyond_float64_uses_integers():
    """(2n+1) d log2(1/delta) >= 53: the values exceed 2^52 and the check says so."""
    assert not float64_exact_by_formula(16, 2, 3)
    net = dense_network(16, 2, 3)
    assert not net.float64_exact
    settings = {"beta_min": 4.0, "beta_max": 4.0, "softmax_tol": 1e-9, "softmax_subset": 64}
    row, curve = lemma6_check(m=2, d=3, n=4, grid_budget=5000, **settings)   # 2^12 = 4096 inputs
    assert row["float64_exact"] and row["matrix_mismatches"] == 0
    # three equal tokens tie: float64 weights 1/3 round, the exact recheck agrees.
    assert row["matrix_mismatches_float64"] > 0 and row["matrix_rechecked_exact"] > 0
    with pytest.raises(ValueError, match="over the budget"):
        lemma6_check(m=16, d=2, n=3, grid_budget=5000, **settings)


def test_softmax_matches_at_finite_temperature():
    row, curve = lemma6_check(m=3, d=1, n=3, grid_budget=1000, beta_min=4.0, beta_max=2048,
                              softmax_tol=1e-9, softmax_subset=27)
    assert row["softmax_rel_error"] <= 1e-9
    assert curve[0]["rel_error_subset"] > 1e-9          # too hot a softmax does not match


def test_broken_shift_factor_fails():
    """Built to fail: the dense Lemma 6 with a too small final window loses property 4/2."""
    net = dense_network(3, 1, 3)
    net.layers[-1] = type(net.layers[-1])("select", 0, 2, 3**4)
    digits = grid_digits(3, 3, 1, 100)
    p = contextual_properties(net, digits, run_integer(net, digits))
    assert p["prop1_violations"] + p["prop2_violations"] + p["prop4_violations"] > 0


@pytest.mark.parametrize("name", ["dense", "strided", "fixed", "star", "window", "longformer"])
def test_sparse_mapping_separates_every_input(name):
    n, m = 4, 3
    masks = pattern_masks(name, n)
    net = positional_network(m, 1, n, masks)
    q = run_integer(net, grid_digits(m, n, 1, 1000))
    assert contextual_all_distinct(q) == 0
    select = sum(1 for x in net.layers if x.kind == "select")
    assert select == n * m
    assert select + net.identity_layers <= len(masks) * n * m


def test_sparse_pitfall_and_causal_refused():
    rows = sparse_mapping_check("window", pattern_masks("window", 5), 2, 1, 5)
    by = {r["shift"]: r["repeated_values"] for r in rows}
    assert by["code_range"] == 0 and by["delta_pow_minus_d"] > 0
    with pytest.raises(ValueError, match="Assumption 1.3"):
        positional_network(2, 1, 4, pattern_masks("causal_strided", 4))
