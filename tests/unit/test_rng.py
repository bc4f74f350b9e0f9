"""Seeded streams (expressivity.rng): one root seed, an independent generator per stage and job
keys."""

import numpy as np
import pytest

from expressivity.rng import generator


def test_streams_are_reproducible_and_independent_of_key_order():
    a = generator(1, "s", n=4, trial=2).random(3)
    b = generator(1, "s", trial=2, n=4).random(3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, generator(1, "s", n=4, trial=3).random(3))
    assert not np.array_equal(a, generator(2, "s", n=4, trial=2).random(3))
    with pytest.raises(ValueError, match="root seed"):
        generator(-1, "s")
