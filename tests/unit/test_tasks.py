"""The copy task and the counting task: what each position must output, bad input."""

import numpy as np
import pytest

from expressivity.tasks import (
    copy_ceiling,
    copy_task,
    count_task,
    majority_accuracy,
    task_classes,
)


def test_copy_task():
    rng = np.random.default_rng(0)
    tokens, targets, scored = copy_task(rng, 5, 8, 4)
    assert tokens.shape == targets.shape == scored.shape == (5, 8)
    assert np.all(tokens[:, 4:] == 0) and np.all(tokens[:, :4] >= 1)
    np.testing.assert_array_equal(targets[:, 4:], tokens[:, :4])
    assert scored[:, 4:].all() and not scored[:, :4].any()
    assert task_classes("copy", 4) == (5, 5)
    with pytest.raises(ValueError, match="even length"):
        copy_task(rng, 2, 7, 4)


def test_count_task():
    tokens, labels, scored = count_task(np.random.default_rng(0), 3, 10, 3, cap=20)
    assert scored.all()
    for b in range(3):
        for k in range(10):
            assert labels[b, k] == np.sum(tokens[b] == tokens[b, k])
    assert task_classes("count", 3) == (3, 7)
    with pytest.raises(ValueError, match="unknown task"):
        task_classes("sort", 3)


def test_majority_accuracy():
    """The best constant answer: 1/vocab for copying; for counting the likeliest count, checked
    against the labels of 4000 sampled sequences (standard error about 0.002)."""
    assert majority_accuracy("copy", 8, 4) == 0.25
    _, labels, _ = count_task(np.random.default_rng(1), 4000, 16, 8)
    freq = np.bincount(labels.ravel()) / labels.size
    assert abs(majority_accuracy("count", 16, 8) - freq.max()) < 0.01
    assert majority_accuracy("count", 16, 8) == pytest.approx(105 / 64 * (7 / 8) ** 13)
    with pytest.raises(ValueError, match="unknown task"):
        majority_accuracy("sort", 8, 4)


def test_copy_ceiling():
    """The share of scored positions that hear their source, the rest right by chance: every
    source heard gives 1, none 1/vocab, one of four (n = 8) 1/4 + 3/4 / vocab; the other
    entries of the matrix do not count."""
    n, vocab = 8, 4
    assert copy_ceiling(np.ones((n, n), dtype=bool), vocab) == 1.0
    assert copy_ceiling(np.eye(n, dtype=bool), vocab) == 0.25
    heard = np.eye(n, dtype=bool)
    heard[5, 1] = True
    heard[1, 5] = True  # the source does not listen to its copy: irrelevant
    assert copy_ceiling(heard, vocab) == pytest.approx(0.25 + 0.75 / vocab)
    with pytest.raises(ValueError, match="boolean"):
        copy_ceiling(np.ones((n, n)), vocab)
    with pytest.raises(ValueError, match="even length"):
        copy_ceiling(np.ones((3, 3), dtype=bool), vocab)
    with pytest.raises(ValueError, match="vocab"):
        copy_ceiling(np.ones((n, n), dtype=bool), 0)
