"""The sweep-like tables of config/ci.yaml, computed once for the sparse stage's job tests."""

import pandas as pd
import pytest
from cases import SA_MASS, SA_MASS_POINTS, SA_SWEEP, SA_SWEEP_POINTS

from expressivity.experiments.sparse_approximation.searches import mass_table, sweep_table


@pytest.fixture(scope="session")
def sweep():
    """The sweep of config/ci.yaml: every trial at every (n, k)."""
    return pd.concat([sweep_table(n=n, k=k, first=0, trials=t, **SA_SWEEP)
                      for n, k, t in SA_SWEEP_POINTS], ignore_index=True)


@pytest.fixture(scope="session")
def mass():
    """The mass-calibrated sweep of config/ci.yaml."""
    return pd.concat([mass_table(n=n, k=k, first=0, trials=t, **SA_MASS)
                      for n, k, t in SA_MASS_POINTS], ignore_index=True)
