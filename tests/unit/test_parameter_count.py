"""The parameter count of the explicit memorizer: 4 d attention + 2 n N + d FFN weights."""

import pytest

from expressivity.parameter_count import construction_parameters


def test_construction_parameters():
    c = construction_parameters(N=500, n=6, d=10)
    assert c == {"attention": 40, "ffn": 6010, "ffn_width": 3000, "total": 6050}
    with pytest.raises(ValueError, match="N must be >= 1"):
        construction_parameters(0, 6, 10)
