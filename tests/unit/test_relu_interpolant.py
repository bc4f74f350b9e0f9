"""Zhang et al. 2017's two-layer ReLU interpolant, in floats and exact rationals."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.relu_interpolant import fit_relu_interpolant


@settings(max_examples=100, deadline=None)
@given(st.lists(st.fractions(-100, 100), min_size=1, max_size=25, unique=True),
       st.data())
def test_interpolant_is_exact_in_rational_arithmetic(z, data):
    y = data.draw(st.lists(st.integers(-5, 5), min_size=len(z), max_size=len(z)))
    f = fit_relu_interpolant(z, [Fraction(v) for v in y])
    assert [f(x) for x in z] == y
    assert f.evaluate_many(z) == y
    assert f.n_weights == 2 * len(z)


def test_coinciding_projections_are_refused():
    with pytest.raises(ValueError, match="coincide"):
        fit_relu_interpolant([0.0, 1.0, 1.0], [0, 1, 0])


def test_evaluate_many_walks_sorted_points_and_searches_unsorted_ones():
    z = [Fraction(i * i, 7) for i in range(1, 12)]
    y = [(3 * i) % 5 for i in range(11)]
    f = fit_relu_interpolant(z, [Fraction(v) for v in y])
    assert f.evaluate_many(z) == y  # increasing: the pointer walk
    shuffled = z[::-1]
    assert f.evaluate_many(shuffled) == y[::-1]  # not sorted: binary search
    probes = [Fraction(-3), Fraction(1, 3), Fraction(200)]
    assert f.evaluate_many(probes) == [f(p) for p in probes]


def test_non_finite_points_are_named():
    with pytest.raises(ValueError, match="z must be finite"):
        fit_relu_interpolant([0.0, float("nan")], [0, 1])
    with pytest.raises(ValueError, match="y must be finite"):
        fit_relu_interpolant([0.0, 1.0], [0, float("inf")])
