import numpy as np
import pytest

from expressivity.tasks import majority_accuracy, recall_task, task_classes


def test_recall_target_is_the_value_of_the_query_key():
    tokens, targets, scored = recall_task(np.random.default_rng(1), 50, 10, 6)
    assert scored[:, -1].all() and scored.sum() == 50
    for seq, target in zip(tokens, targets[:, -1], strict=True):
        keys, values = seq[0:8:2], seq[1:8:2]
        assert len(set(keys)) == 4 and seq[-1] == 0
        assert target == values[list(keys).index(seq[-2])]
    n_in, n_out = task_classes("recall", 6)
    assert tokens.max() < n_in and targets.max() < n_out
    assert majority_accuracy("recall", 10, 6) == pytest.approx(1 / 6)


def test_recall_needs_enough_keys():
    with pytest.raises(ValueError, match="vocab"):
        recall_task(np.random.default_rng(0), 2, 12, 3)
