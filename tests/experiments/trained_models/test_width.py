"""The width-search job (expressivity.experiments.trained_models.width): the smallest FFN width
training fits at one N, found by bisection of the width grid."""

import pytest
from cases import (
    TM_SHORT,
    TM_WIDTH,
    TM_WIDTH_N,
)

from expressivity.experiments.trained_models.width import minimal_width, width_rows
from expressivity.training_protocol import MIXED, PLATEAUS, REACHES, UNDECIDED


def test_width_rows_are_reproducible_and_take_wildcards_as_strings():
    N = TM_WIDTH_N[0]
    width = {**TM_WIDTH, **TM_SHORT}
    assert width_rows(N=N, **width) == width_rows(N=str(N), **width)


@pytest.mark.parametrize("truth,expected", [
    ({w: REACHES if w >= 8 else PLATEAUS for w in range(1, 20)}, (8, True)),
    ({w: REACHES for w in range(1, 20)}, (1, True)),
    ({w: MIXED for w in range(1, 20)}, (None, True)),
    ({w: UNDECIDED if w == 16 else PLATEAUS for w in range(1, 20)}, (None, False)),
    ({w: REACHES if w >= 8 else (UNDECIDED if w == 4 else PLATEAUS) for w in range(1, 20)},
     (8, False)),
])
def test_minimal_width_bisects_the_grid(truth, expected):
    grid = [1, 2, 4, 8, 16]
    asked = []

    def verdict_of(q):
        asked.append(q)
        return truth[q]

    best, decided, tried = minimal_width(grid, verdict_of)
    assert (best, decided) == expected
    assert tried == asked and len(asked) <= len(grid).bit_length()
    with pytest.raises(ValueError, match="increasing"):
        minimal_width([4, 2], verdict_of)
