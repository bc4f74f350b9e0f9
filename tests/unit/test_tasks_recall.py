import numpy as np
import pytest

from expressivity.tasks import majority_accuracy, recall_task, task_classes


def test_every_query_is_answered_by_the_value_of_its_pair():
    tokens, targets, scored = recall_task(np.random.default_rng(1), 50, 10, 6)
    assert (scored[:, 5:].all() and not scored[:, :5].any())
    for seq, target in zip(tokens, targets, strict=True):
        keys, values = divmod(seq[:5], 6)
        assert len(set(keys)) == 5
        asked = seq[5:] - 36
        assert sorted(asked) == sorted(keys)  # every key asked once
        assert list(target[5:]) == [values[list(keys).index(q)] for q in asked]
    n_in, n_out = task_classes("recall", 6)
    assert tokens.min() >= 0 and tokens.max() < n_in and targets.max() < n_out
    assert majority_accuracy("recall", 10, 6) == pytest.approx(1 / 6)


def test_the_answer_moves_with_the_content():
    """The pair a query position needs sits at every pair position across sequences."""
    tokens, _, _ = recall_task(np.random.default_rng(2), 400, 8, 4)
    keys = tokens[:, :4] // 4
    where = [(keys == tokens[:, [4 + j]] - 16).argmax(axis=1) for j in range(4)]
    assert all(set(w) == {0, 1, 2, 3} for w in where)


def test_recall_needs_enough_keys():
    with pytest.raises(ValueError, match="vocab"):
        recall_task(np.random.default_rng(0), 2, 12, 5)
    with pytest.raises(ValueError, match="even"):
        recall_task(np.random.default_rng(0), 2, 7, 8)
