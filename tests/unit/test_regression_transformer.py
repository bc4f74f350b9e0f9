"""The trained one-head transformer regressor (expressivity.regression_transformer)."""

import numpy as np
import pytest
import torch

from expressivity.polynomial import (
    affine_forms,
    evaluate_polynomial,
    make_blocks,
    noisy_sample,
    random_polynomial,
)
from expressivity.regression_transformer import (
    RegressionTransformer,
    fit_transformers,
    n_parameters,
)
from expressivity.replica_training import FlatReplicas
from expressivity.training_protocol import Protocol


@pytest.mark.parametrize("width, hidden, tokens", [(3, 1, 3), (4, 4, 10), (8, 16, 35)])
def test_parameter_count_is_the_models(width, hidden, tokens):
    init = [np.random.default_rng(i) for i in range(2)]
    model = RegressionTransformer(tokens, width, hidden, init)
    assert FlatReplicas(model).parameters_per_replica() == n_parameters(width, hidden, tokens)


def test_replicas_do_not_see_each_other():
    """Replica r's prediction depends on its own weights and tokens only."""
    init = lambda: [np.random.default_rng(i) for i in range(3)]  # noqa: E731
    model, alone = RegressionTransformer(5, 4, 4, init()), RegressionTransformer(5, 4, 4, init()[:1])
    y = torch.randn(3, 7, 5, dtype=torch.float64)
    with torch.no_grad():
        assert torch.allclose(model(y)[0], alone(y[:1])[0])


def test_a_short_fit_lowers_the_excess_risk():
    """A quadratic in one variable: the trained transformers' excess test risk is far below the
    target's variance (what a constant prediction leaves)."""
    rng = np.random.default_rng(3)
    poly = random_polynomial(1, 2, rng)
    data = []
    for _ in range(2):
        blocks = make_blocks(1, 2, rng)
        x, y = noisy_sample(poly, 256, 0.1, rng)
        x_test = rng.uniform(-1, 1, size=(200, 1))
        data.append((affine_forms(blocks, x), y, affine_forms(blocks, x_test),
                     evaluate_polynomial(poly, x_test)))
    proto = Protocol(target=1.0, budget=600, every=20, window=100, min_gain=0.01, decay=10)
    runs = fit_transformers([d[0] for d in data], [d[1] for d in data], [d[2] for d in data],
                            sigma=0.1, width=4, hidden=4, protocol=proto, lr=0.03, batch=32,
                            eval_points=512, init=[np.random.default_rng(i) for i in range(2)])
    for run, (*_, f_test) in zip(runs, data, strict=True):
        assert run["outcome"] in ("reached", "plateau", "budget")
        assert np.mean((run["prediction"] - f_test) ** 2) < 0.05 * np.var(f_test)


def test_mismatched_replicas_are_refused():
    proto = Protocol(target=1.0, budget=40, every=10, window=20, min_gain=0.01)
    with pytest.raises(ValueError, match="one entry per replica"):
        fit_transformers([np.zeros((4, 3))], [], [np.zeros((2, 3))], sigma=0.1, width=4,
                         hidden=4, protocol=proto, lr=0.01, batch=2, eval_points=4,
                         init=[np.random.default_rng(0)])
