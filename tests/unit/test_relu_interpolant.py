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
