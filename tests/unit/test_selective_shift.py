"""Selective-shift contextual mappings (Yun et al. 2020a Lemma 6; 2020b sparse), reconstructed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.contextual_mapping import (
    code_separation,
    contextual_all_distinct,
    contextual_properties,
    softmax_deviation,
)
from expressivity.quantization import grid_digits
from expressivity.reference.universal_approximation import run_integer_reference
from expressivity.selective_shift import (
    compare_with_reference,
    dense_network,
    float64_exact_by_formula,
    positional_network,
    run_attention,
    run_integer,
    softmax_beta,
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


@pytest.mark.parametrize("m, d, n", [(3, 1, 3), (2, 2, 3), (4, 1, 2)])
def test_softmax_at_the_derived_beta_keeps_codes_separated(m, d, n):
    """The derived beta is sufficient on every input, and not absurdly loose: a softmax at a
    quarter of it collides."""
    net = dense_network(m, d, n)
    digits = grid_digits(m, n, d, 10**4)
    q = run_integer(net, digits)
    codes, margin = code_separation(q)
    beta = softmax_beta(net, margin)
    at = softmax_deviation(run_attention(net, digits, "softmax", beta), q, codes)
    assert at["max_abs_error"] < margin and at["collided_inputs"] == 0
    hot = softmax_deviation(run_attention(net, digits, "softmax", beta / 4), q, codes)
    assert hot["max_abs_error"] >= margin and hot["collided_inputs"] > 0


def test_code_separation_and_collisions():
    q = np.array([[0, 4], [10, 4]])
    codes, margin = code_separation(q)
    assert codes.tolist() == [0, 4, 10] and margin == 2.0
    qa = np.array([[0.5, 5.9], [8.1, 4.0]])           # 8.1 is nearer 10 than 4, 5.9 nearer 4
    dev = softmax_deviation(qa, q, codes)
    assert dev["max_abs_error"] == pytest.approx(1.9)
    assert dev["collided_entries"] == 0
    dev = softmax_deviation(np.array([[0.0, 7.5], [np.nan, 4.0]]), q, codes)
    assert dev["collided_entries"] == 2 and dev["collided_inputs"] == 2
    assert dev["max_abs_error"] == np.inf


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(1, 2), st.integers(2, 4), st.integers(0, 2**31),
       st.sampled_from([None, "fixed", "window", "star"]))
def test_run_integer_equals_reference(m, d, n, seed, pattern):
    """Implementation (int64, Python integers from the layer that could pass 2^62, only the
    inputs with a token in the window recomputed) equals the plain reference."""
    rng = np.random.default_rng(seed)
    if pattern is None:
        net = dense_network(m, d, n)
    else:
        net = positional_network(m, d, n, pattern_masks(pattern, n))
    digits = rng.integers(0, m, size=(12, n, d))
    assert np.asarray(run_integer(net, digits)).tolist() == run_integer_reference(net, digits)


def test_run_integer_beyond_int64_equals_reference():
    net = dense_network(16, 2, 3)                      # values far beyond 2^62
    assert net.value_bound > 2**62
    digits = np.random.default_rng(1).integers(0, 16, size=(20, 3, 2))
    q = run_integer(net, digits)
    assert q.dtype == object and q.tolist() == run_integer_reference(net, digits)


def test_bad_arguments_are_named():
    net = dense_network(3, 1, 2)
    with pytest.raises(ValueError, match="digits must have shape"):
        run_integer(net, np.zeros((4, 3, 1), dtype=int))
    with pytest.raises(ValueError, match="digits must lie in 0..2"):
        run_integer(net, np.array([[[3], [0]]]))
    with pytest.raises(ValueError, match="digits must be integers"):
        run_attention(net, np.array([[[0.5], [0.0]]]))
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        dense_network(3, 1, 0)
    with pytest.raises(ValueError, match="d must be an integer >= 1"):
        dense_network(3, 0, 2)
    with pytest.raises(ValueError, match=r"masks\[1\] has shape"):
        positional_network(2, 1, 3, [np.ones((3, 3), bool), np.ones((3, 4), bool)])
    with pytest.raises(ValueError, match="self-loops"):
        positional_network(2, 1, 3, [~np.eye(3, dtype=bool)])
    with pytest.raises(ValueError, match="margin must be"):
        softmax_beta(net, 0.0)
    with pytest.raises(ValueError, match="dense network"):
        softmax_beta(positional_network(2, 1, 3), 0.5)


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


def test_causal_refused():
    with pytest.raises(ValueError, match="Assumption 1.3"):
        positional_network(2, 1, 4, pattern_masks("causal_strided", 4))


@pytest.mark.parametrize(("m", "d", "n"), [(3, 1, 2), (5, 1, 4), (3, 2, 3), (4, 2, 2), (2, 2, 4)])
def test_code_range_is_the_extremes_over_every_distinct_input(m, d, n):
    """dense_code_range's n + 1 vertex inputs give the min and max of q over all C(m^d, n)."""
    from expressivity.selective_shift import dense_code_range
    from expressivity.universal import _class_digits

    q = run_integer(dense_network(m, d, n), _class_digits(m, d, n, 10**6, repeats=False))
    values = [int(v) for v in q.ravel()]
    assert dense_code_range(m, d, n) == (min(values), max(values))


def test_code_range_rests_on_the_closed_form_of_the_recursion():
    """q from the recursion of dense_code_range's docstring equals run_integer's on random inputs
    with distinct tokens."""
    m, d, n = 5, 2, 3
    D = m**d
    rng = np.random.default_rng(0)
    for _ in range(50):
        c = np.sort(rng.choice(D, size=n, replace=False))
        v = [int(c[0]) + D * int(c[-1] - c[0])]
        for ci in c[1:]:
            v.append(int(ci) + D * (v[-1] - int(ci)))
        expected = sorted(x + D ** (n + 1) * (v[-1] - v[0]) for x in v)
        digits = np.stack([(c // m**i) % m for i in range(d)], axis=-1)[None]
        assert sorted(int(x) for x in run_integer(dense_network(m, d, n), digits)[0]) == expected


def test_code_range_is_none_without_a_distinct_input():
    from expressivity.selective_shift import dense_code_range

    assert dense_code_range(2, 1, 3) is None


@pytest.mark.parametrize("key", sorted(NOTES))
def test_code_range_matches_the_notes(key):
    from expressivity.selective_shift import dense_code_range

    assert dense_code_range(*key) == NOTES[key]
