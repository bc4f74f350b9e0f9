import numpy as np
import pytest

from expressivity.pattern_configurations import density, layer_masks, matched_random


def test_union_and_alternating_cover_the_same_pairs():
    alt = layer_masks("strided", 16, 4, "alternating", w=4)
    union = layer_masks("strided", 16, 4, "union", w=4)
    assert np.array_equal(alt[0] | alt[1], union[0])
    assert not np.array_equal(alt[0], alt[1])
    assert density(union) > density(alt)


def test_matched_random_reaches_its_density_per_layer():
    masks = matched_random(16, 3, 0.4, np.random.default_rng(0))
    assert len(masks) == 3 and not np.array_equal(masks[0], masks[1])
    assert density(masks) >= 0.4
    assert all(m.diagonal().all() for m in masks)


def test_bad_configuration_is_named():
    with pytest.raises(ValueError, match="configuration"):
        layer_masks("fixed", 8, 2, "sideways")
