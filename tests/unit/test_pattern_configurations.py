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


def test_heads_split_the_cycle_and_match_alternating_density():
    """Split over 4 heads, head h has the cycle's mask h mod 2 in every layer: a layer computes
    what the alternating configuration computes over two layers."""
    alt = layer_masks("fixed", 16, 3, "alternating", w=4)
    split = layer_masks("fixed", 16, 3, "heads", heads=4, w=4)
    assert len(split) == 3 and all(m.shape == (4, 16, 16) for m in split)
    for h in range(4):
        assert np.array_equal(split[2][h], alt[h % 2])
    assert density(split) == pytest.approx((alt[0].mean() + alt[1].mean()) / 2)
    with pytest.raises(ValueError, match="heads a multiple of 2, got heads=3"):
        layer_masks("strided", 16, 2, "heads", heads=3, w=4)


def test_matched_random_per_head_draws_each_head_and_layer():
    masks = matched_random(16, 2, 0.4, np.random.default_rng(0), heads=2)
    assert [m.shape for m in masks] == [(2, 16, 16)] * 2
    assert not np.array_equal(masks[0][0], masks[0][1])
    assert density(masks) >= 0.4 and all(m[h].diagonal().all() for m in masks for h in range(2))
