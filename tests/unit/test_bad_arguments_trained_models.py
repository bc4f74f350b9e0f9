"""Bad calls to the trained-models library (training, its protocol, segment pairs, the models, the
tasks, the ceilings and the stage's jobs): NaN, infinities, fractions and negative sizes, empty
inputs, mismatched shapes, wrong device names. Each must raise a ``ValueError`` (or ``TypeError``)
whose message names the argument, never return NaN or garbage, nor surface a raw numpy or torch
error that names nothing."""

import math

import numpy as np
import pytest
import torch

from expressivity.accuracy_ceilings import blind_ceiling, hardmax_ceiling, pair_conflicts
from expressivity.experiments.trained_models.encoders import copy_rows
from expressivity.experiments.trained_models.memorization import heads_rows
from expressivity.experiments.trained_models.papers import hybrid_rows, sparsity_rows
from expressivity.pattern_configurations import layer_masks, matched_random
from expressivity.segment_pairs import check_segment_pair, segment_pair_dataset
from expressivity.sequence_encoder import (
    BilinearProjection,
    DepthwiseSeparableConv,
    MaskedSelfAttention,
    SequenceEncoder,
    hybrid_mixers,
)
from expressivity.tasks import copy_task, count_task, majority_accuracy, task_classes
from expressivity.torch_runtime import configure_torch
from expressivity.training import memorize, train_encoders
from expressivity.training_protocol import Monitor, Protocol, cell_summary, wilson_interval
from expressivity.transformer_models import TiedAttention, TokenClassifier

configure_torch(1)
NAN, INF = math.nan, math.inf
SP = segment_pair_dataset(np.random.default_rng(0), vocab_size=16, d=4, n=4, N=6, pairs=2,
                          n_classes=2)
DS = SP.dataset
PROTO = Protocol(target=1.0, budget=2, every=1, window=1, min_gain=0.01)
RNGS = [np.random.default_rng(1)]
RUN = {"lr": 0.01, "outcome": "plateau", "accuracy": 0.5, "steps_to_target": None,
       "stopped_at": 3}


def mem(**kw):
    return memorize(DS, **{"width": 4, "seeds": (1,), "protocol": PROTO, "lr": 0.01, **kw})


def enc(**kw):
    args = {"task": "copy", "n": 4, "vocab": 3, "mixers": ["attention"], "protocol": PROTO,
            "batch": 2, "lr": 0.01, "d_model": 4, "heads": 2, "eval_size": 2, **kw}
    return train_encoders(kw.pop("rngs", RNGS), **{k: v for k, v in args.items() if k != "rngs"})


JOB = {"seed": 1, "threads": 1, "device": "cpu", "seeds": 2, "min_gain": 0.01, "lr_decay": 10,
       "lr": 0.01, "budget": 4, "window": 2, "every": 1}
ENCODER = {**JOB, "n": 4, "vocab": 3, "d_model": 4, "heads": 2, "batch": 2, "eval_size": 2}
HEADS = {**JOB, "vocab_size": 16, "d": 4, "n": 4, "N": 6, "pairs": 2, "n_classes": 2, "width": 4}

#: (id, call, the argument the message must name)
CALLS = [
    # training.memorize
    ("memorize-width-nan", lambda: mem(width=NAN), "width"),
    ("memorize-width-fraction", lambda: mem(width=2.5), "width"),
    ("memorize-heads-negative", lambda: mem(heads=-1), "heads"),
    ("memorize-seeds-empty", lambda: mem(seeds=()), "seeds"),
    ("memorize-seeds-text", lambda: mem(seeds=("a",)), "seeds"),
    ("memorize-graphs-on-cpu", lambda: mem(graphs=True), "graphs"),
    ("memorize-w-fixed-nan", lambda: mem(w_fixed=np.full((1, 4, 1), NAN)), "w_fixed"),
    ("memorize-w-fixed-shape", lambda: mem(w_fixed=np.ones((1, 3, 1))), "w_fixed"),
    ("memorize-device-gpu", lambda: mem(device="gpu"), "device"),
    ("memorize-protocol-dict", lambda: mem(protocol={"budget": 2}), "protocol"),
    ("memorize-lr-inf", lambda: mem(lr=INF), "lr"),
    ("memorize-dtype-int", lambda: mem(dtype=torch.int64), "dtype"),
    # training.train_encoders
    ("encoders-vocab-zero", lambda: enc(vocab=0), "vocab"),
    ("encoders-batch-nan", lambda: enc(batch=NAN), "batch"),
    ("encoders-heads-zero", lambda: enc(heads=0), "heads"),
    ("encoders-mixers-empty", lambda: enc(mixers=[]), "mixers"),
    ("encoders-mask-shape", lambda: enc(masks=[np.ones((3, 3), dtype=bool)]), "masks"),
    ("encoders-rngs-ints", lambda: enc(rngs=[1, 2]), "rngs"),
    ("encoders-device-gpu", lambda: enc(device="gpu"), "device"),
    ("encoders-count-n-zero", lambda: enc(task="count", n=0), "n"),
    ("encoders-d-model-nan", lambda: enc(d_model=NAN), "d_model"),
    # training_protocol
    ("protocol-target-nan", lambda: Protocol(target=NAN, budget=2, every=1, window=1,
                                             min_gain=0.01), "target"),
    ("protocol-min-gain-inf", lambda: Protocol(target=1.0, budget=2, every=1, window=1,
                                               min_gain=INF), "min_gain"),
    ("protocol-budget-one-window", lambda: Protocol(target=1.0, budget=3, every=1, window=2,
                                                    min_gain=0.01), "budget"),
    ("protocol-decay-nan", lambda: Protocol(target=1.0, budget=2, every=1, window=1,
                                            min_gain=0.01, decay=NAN), "decay"),
    ("wilson-k-above-n", lambda: wilson_interval(4, 3), "k"),
    ("wilson-n-fraction", lambda: wilson_interval(1, 2.5), "n"),
    ("monitor-accuracy-nan", lambda: Monitor(PROTO).observe(0, 1.0, NAN), "accuracy"),
    ("monitor-accuracy-above-one", lambda: Monitor(PROTO).observe(0, 1.0, 1.5), "accuracy"),
    ("cell-summary-accuracy-nan", lambda: cell_summary([{**RUN, "accuracy": NAN}]), "accuracy"),
    ("cell-summary-lr-nan", lambda: cell_summary([{**RUN, "lr": NAN}]), "lr"),
    ("cell-summary-outcome-unknown", lambda: cell_summary([{**RUN, "outcome": "won"}]),
     "outcome"),
    # segment_pairs
    ("pairs-r-max-inf", lambda: segment_pair_dataset(np.random.default_rng(0), vocab_size=16, d=4,
                                                     n=4, N=6, pairs=2, n_classes=2, r_max=INF),
     "r_max"),
    ("pairs-N-fraction", lambda: segment_pair_dataset(np.random.default_rng(0), vocab_size=16,
                                                      d=4, n=4, N=6.5, pairs=2, n_classes=2), "N"),
    ("check-pair-index-out-of-range", lambda: check_segment_pair(DS, 0, 99), "i_b"),
    ("check-pair-index-negative", lambda: check_segment_pair(DS, -1, 1), "i_a"),
    # accuracy_ceilings
    ("hardmax-ceiling-w-shape", lambda: hardmax_ceiling(DS, np.ones(3)), "w"),
    ("hardmax-ceiling-w-nan", lambda: hardmax_ceiling(DS, np.full(4, NAN)), "w"),
    ("pair-conflicts-index", lambda: pair_conflicts(DS, np.array([[0, 99]])), "i_b"),
    ("blind-ceiling-pairs-shape", lambda: blind_ceiling(DS, np.array([0, 1, 2])), "pairs"),
    # transformer_models
    ("tied-d-nan", lambda: TiedAttention(NAN), "d"),
    ("tied-head-size-fraction", lambda: TiedAttention(4, head_size=1.5), "head_size"),
    ("tied-forward-shape", lambda: TiedAttention(4)(torch.ones(1, 3, 5, dtype=torch.float64)), "X"),
    ("classifier-n-classes-nan", lambda: TokenClassifier(4, NAN, 8), "n_classes"),
    ("classifier-heads-negative", lambda: TokenClassifier(4, 2, 8, heads=-2), "heads"),
    ("classifier-forward-shape", lambda: TokenClassifier(4, 2, 8)(
        torch.ones(1, 3, 5, dtype=torch.float64)), "X"),
    ("masked-heads-zero", lambda: MaskedSelfAttention(8, 0), "heads"),
    ("bilinear-n-zero", lambda: BilinearProjection(0, 4), "n"),
    ("conv-d-model-zero", lambda: DepthwiseSeparableConv(0, 3), "d_model"),
    ("encoder-vocab-zero", lambda: SequenceEncoder(0, 4, 4, ["attention"], 3), "vocab"),
    ("encoder-tokens-float", lambda: SequenceEncoder(3, 4, 4, ["attention"], 3)(
        torch.full((1, 4), 0.5)), "tokens"),
    ("hybrid-unknown-alternative", lambda: hybrid_mixers("lstm", 0, 2), "alternative"),
    ("hybrid-depth-fraction", lambda: hybrid_mixers("conv", 0, 2.5), "depth"),
    # tasks
    ("copy-batch-negative", lambda: copy_task(np.random.default_rng(0), -1, 4, 3), "batch"),
    ("copy-vocab-zero", lambda: copy_task(np.random.default_rng(0), 2, 4, 0), "vocab"),
    ("count-n-zero", lambda: count_task(np.random.default_rng(0), 2, 0, 3), "n"),
    ("count-batch-zero", lambda: count_task(np.random.default_rng(0), 0, 4, 3), "batch"),
    ("classes-vocab-negative", lambda: task_classes("copy", -3), "vocab"),
    ("majority-n-nan", lambda: majority_accuracy("count", NAN, 3), "n"),
    ("majority-vocab-fraction", lambda: majority_accuracy("copy", 4, 2.5), "vocab"),
    # the stage's jobs
    ("copy-rows-depth-zero", lambda: copy_rows(pattern="dense", depth=0, **ENCODER), "depth"),
    ("copy-rows-depth-text", lambda: copy_rows(pattern="dense", depth="x", **ENCODER), "depth"),
    ("copy-rows-device-gpu", lambda: copy_rows(pattern="dense", depth=1,
                                               **{**ENCODER, "device": "gpu"}), "device"),
    ("hybrid-rows-k-negative", lambda: hybrid_rows(task="count", alternative="conv", kernel=3,
                                                   k=-1, depth=2, recall_vocab=3, count_n=4,
                                                   **ENCODER),
     "attention_layers"),
    ("heads-rows-heads-zero", lambda: heads_rows(heads=0, size=1, **HEADS), "heads"),
    ("sparsity-rows-task-unknown", lambda: sparsity_rows(
        task="sort", pattern="strided", configuration="heads", level=2, depth=2, recall_vocab=4,
        **ENCODER), "task"),
    ("sparsity-rows-level-text", lambda: sparsity_rows(
        task="recall", pattern="strided", configuration="heads", level="w", depth=2,
        recall_vocab=4, **ENCODER), "level"),
    # pattern_configurations and the per-head masks
    ("split-heads-not-multiple", lambda: layer_masks("fixed", 8, 2, "heads", heads=3, w=2),
     "heads=3"),
    ("split-heads-zero", lambda: layer_masks("fixed", 8, 2, "heads", heads=0, w=2), "heads"),
    ("matched-random-heads-fraction", lambda: matched_random(8, 2, 0.5,
                                                             np.random.default_rng(0),
                                                             heads=1.5), "heads"),
    ("masked-per-head-count", lambda: MaskedSelfAttention(8, 2, np.ones((3, 4, 4), bool)),
     "per head"),
    ("encoder-mask-shape", lambda: SequenceEncoder(
        3, 4, 4, ["attention"], 3, heads=2, masks=[np.ones((3, 4, 4), bool)]), "masks[0]"),
]


@pytest.mark.parametrize("call,named", [(c, n) for _, c, n in CALLS], ids=[i for i, _, _ in CALLS])
def test_bad_call_raises_naming_the_argument(call, named):
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    assert named in str(err.value), str(err.value)
