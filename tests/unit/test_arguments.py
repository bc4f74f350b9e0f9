"""The library's argument checks (expressivity.arguments) and their use at every entry point that
takes a count: one check, which refuses a bool (``True`` is an int in Python) and names the
argument."""

import re

import numpy as np
import pytest
from cases import ROOT

from expressivity.arguments import integer
from expressivity.datasets import token_separated_dataset
from expressivity.rank1.contexts import contexts
from expressivity.rank1.layer import Rank1Layer
from expressivity.rank1.projection import draw_projection, projection_constant
from expressivity.rank1.separation import separation_certified
from expressivity.rng import generator


@pytest.mark.parametrize("value", [True, False, 2.0, float("nan"), "3", None, 0, 11])
def test_integer_refuses_what_is_not_an_integer_in_range_naming_it(value):
    with pytest.raises(ValueError, match=r"^count must be an integer in \[1, 10\], got "):
        integer("count", value, 1, 10)


def test_integer_returns_a_python_int():
    value = integer("count", np.int64(4), 1)
    assert value == 4 and type(value) is int


def _dataset():
    rng = np.random.default_rng(0)
    ds = token_separated_dataset(rng, 4, 2, 2, 6, 2, eps=0.5)
    return ds, draw_projection(rng, ds.vocab)[0]


#: Entry points that accepted ``True`` as a count before they used ``arguments.integer``.
CALLS = {
    "dataset-vocab-size": lambda: token_separated_dataset(np.random.default_rng(0), True, 2, 1, 1, 2),
    "projection-constant": lambda: projection_constant(True, 2),
    "projection-max-draws": lambda: draw_projection(np.random.default_rng(0), np.eye(2),
                                                    max_draws=True),
    "generator-root-seed": lambda: generator(True, "stage"),
    "separation-max-doublings": lambda: separation_certified(
        _dataset()[0], contexts(*_dataset()), Rank1Layer.for_dataset(*_dataset(), 1.0),
        max_doublings=True),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_a_bool_count_is_refused(call):
    with pytest.raises(ValueError, match=r"must be an integer >= \d+, got True"):
        call()


def test_no_library_module_writes_its_own_integer_check():
    """Every "must be an integer" of the library is arguments.integer's message."""
    for path in sorted((ROOT / "lib/expressivity").rglob("*.py")):
        if path.name == "arguments.py":
            continue
        for match in re.finditer(r".*must be (an|a positive|a non-negative) integer.*", path.read_text()):
            assert "raise" not in match[0] and "f\"" not in match[0], f"{path}: {match[0]}"
