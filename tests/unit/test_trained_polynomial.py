"""Trained polynomial blocks (expressivity.trained_polynomial): the degree bound 3^L of their
features and the protocol's metric."""

import math

import numpy as np
import pytest
import torch

from expressivity.polynomial import degree_bound, embed, make_blocks
from expressivity.trained_polynomial import TrainedBlocks, floor_accuracy, train_blocks
from expressivity.training_protocol import Protocol

torch.set_default_dtype(torch.float64)


def _features(blocks, softmax, x, seed=0):
    init = np.random.default_rng(seed)
    forms = make_blocks(1, blocks, init)
    model = TrainedBlocks(forms.tokens, blocks, softmax, [init])
    with torch.no_grad():
        return model(torch.tensor(embed(forms, x))[None])[0].numpy()


def _poly_residual(Z, x, degree):
    """Largest relative residual of each feature's least-squares fit by a polynomial of
    ``degree`` in x (one variable)."""
    V = np.vander(x[:, 0], degree + 1)
    fit = V @ np.linalg.lstsq(V, Z, rcond=None)[0]
    return float(np.max(np.abs(fit - Z)) / np.max(np.abs(Z)))


@pytest.mark.parametrize("blocks", [1, 2])
def test_softmax_free_features_have_degree_three_to_the_L(blocks):
    """At random weights the features are polynomials of degree exactly 3^L: a fit of degree 3^L
    is exact to rounding, one of degree 3^L - 1 leaves a residual decades above it (the top
    coefficient, a product of 3^L small random weights, is small but not zero)."""
    x = np.linspace(-1, 1, 200)[:, None]
    Z = _features(blocks, False, x)
    exact = _poly_residual(Z, x, degree_bound(blocks))
    assert exact < 1e-12
    assert _poly_residual(Z, x, degree_bound(blocks) - 1) > 1e3 * exact


def test_softmax_features_exceed_the_degree_bound():
    """A softmax block's features are analytic, not polynomials: at the same weights their fit of
    degree 3 (the softmax-free block's exact degree) leaves a residual far above rounding."""
    x = np.linspace(-1, 1, 200)[:, None]
    assert _poly_residual(_features(1, True, x), x, degree_bound(1)) > 1e-9


def test_floor_accuracy_is_the_fraction_of_decades_to_the_band():
    assert floor_accuracy(1e-14, 1e-15, 1.0) == 1.0
    assert floor_accuracy(1e-7, 1e-15, 1.0) == pytest.approx(0.5)
    assert floor_accuracy(10.0, 1e-15, 1.0) == 0.0
    with pytest.raises(ValueError, match="floor"):
        floor_accuracy(1e-3, 1e-1, 2.0)


def _runs(seeds, softmax=False, min_gain=0.01):
    """``train_blocks`` on one degree-2 target of one variable, one replica per seed."""
    rng = np.random.default_rng(3)
    x_train, x_test = rng.uniform(-1, 1, (24, 1)), rng.uniform(-1, 1, (50, 1))
    target = lambda x: 0.3 + x[:, 0] - 0.7 * x[:, 0] ** 2  # noqa: E731
    protocol = Protocol(target=1.0, budget=120, every=20, window=40, min_gain=min_gain, decay=10)
    return train_blocks(1, 1, x_train, x_test, target(x_train), target(x_test), softmax=softmax,
                        inits=[np.random.default_rng(s) for s in seeds], lr=0.01,
                        protocol=protocol, band=1.0)


@pytest.mark.parametrize("softmax", [False, True])
def test_a_replica_trains_as_it_would_alone(softmax):
    """Seeds side by side share nothing: where no replica leaves the batch early (no rise over a
    window is below the least gain) each ends where its seed alone ends, to rounding (a batched
    product may round differently for another number of replicas, which can move a decision taken
    near the least gain)."""
    together = _runs([5, 6, 7], softmax, min_gain=1e-12)
    for seed, run in zip([5, 6, 7], together, strict=True):
        (alone,) = _runs([seed], softmax, min_gain=1e-12)
        assert (run["outcome"], run["stopped_at"]) == ("budget", 120) == (alone["outcome"],
                                                                         alone["stopped_at"])
        assert run["log10_error"] == pytest.approx(alone["log10_error"], abs=1e-6)
    assert len({round(run["log10_error"], 3) for run in together}) == 3  # three different runs


def test_a_stopped_replica_leaves_and_the_others_go_on():
    """A replica the protocol stops early (a plateau) keeps its run; the others train on to the
    budget. A plateau comes only after the learning-rate decay, and before the budget."""
    runs = _runs([5, 6, 7])
    assert {run["outcome"] for run in runs} == {"plateau", "budget"}
    for run in runs:
        assert math.isfinite(run["log10_error"])
        if run["outcome"] == "plateau":
            assert run["lr_decayed"] and run["stopped_at"] < 120
        else:
            assert run["stopped_at"] == 120
