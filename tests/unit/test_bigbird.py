"""BigBird Proposition 1: one dense attention layer finds the furthest vector."""

import math

import numpy as np
from cases import HVS_BIGBIRD, HVS_BIGBIRD_N

from expressivity.bigbird import (
    furthest_reference,
    furthest_vector_attention,
    random_unit_vectors,
    sufficient_beta,
)
from expressivity.experiments.hardmax_vs_softmax.bigbird import bigbird_table


def test_bigbird_hardmax_returns_the_furthest_vector_exactly():
    rng = np.random.default_rng(4)
    n = 64
    U = random_unit_vectors(rng, n, math.ceil(math.log2(n)) ** 2)
    out = furthest_vector_attention(U, "hardmax")
    np.testing.assert_array_equal(out, U[furthest_reference(U)])


def test_bigbird_softmax_is_exact_above_the_sufficient_beta_and_not_at_beta_one():
    rng = np.random.default_rng(5)
    U = random_unit_vectors(rng, 32, 25)
    truth = furthest_reference(U)
    beta = sufficient_beta(U)
    soft = furthest_vector_attention(U, "softmax", beta=beta)
    dist = ((soft[:, None] - U[None]) ** 2).sum(-1)
    assert np.array_equal(dist.argmin(1), truth)
    cold = furthest_vector_attention(U, "softmax", beta=1.0)
    assert not np.array_equal(((cold[:, None] - U[None]) ** 2).sum(-1).argmin(1), truth)


def test_bigbird_job_rows():
    n = min(HVS_BIGBIRD_N)
    rows = bigbird_table(n=n, **HVS_BIGBIRD)
    hard = [r for r in rows if r["sigma"] == "hardmax"]
    assert len(hard) == HVS_BIGBIRD["trials"] and all(r["accuracy"] == 1.0 for r in hard)
    above = [r for r in rows if r["sigma"] == "softmax" and r["at_or_above_sufficient"]]
    assert above and all(r["accuracy"] == 1.0 for r in above)
    assert all(r["d"] == math.ceil(math.log2(n)) ** 2 for r in rows)
