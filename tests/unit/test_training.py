"""The training loops: early stopping at the target, the learning-rate decay before a plateau, the
bounds the control arms cannot beat, replicas side by side (a stopped one leaves the batch),
determinism, the CUDA-graph step (skipped without a GPU), bad input."""

import math

import numpy as np
import pytest
import torch
from cases import TM_DATASET

from expressivity.accuracy_ceilings import blind_ceiling, token_ceiling
from expressivity.datasets import token_separated_dataset
from expressivity.replica_training import FlatReplicas, ReplicaAdam, replica_rates, train_replicas
from expressivity.segment_pairs import segment_pair_dataset
from expressivity.torch_runtime import configure_torch
from expressivity.training import memorize, train_encoders
from expressivity.training_protocol import Protocol

configure_torch(1)


def protocol(budget, window=100, target=1.0, every=1):
    return Protocol(target=target, budget=budget, every=every, window=min(window, budget // 2),
                    min_gain=0.002)


def pairs(seed=0):
    return segment_pair_dataset(np.random.default_rng(seed), **TM_DATASET)


def test_memorize_reaches_100_percent_and_stops_there():
    """Random token sets (no pairs): mean pooling already separates them; every seed memorizes
    and its curve ends at the epoch it first reached 100 %."""
    ds = token_separated_dataset(np.random.default_rng(1), 32, 8, 4, 12, 2)
    res = memorize(ds, width=32, seeds=(1, 2), protocol=protocol(1500, every=10), lr=0.03)
    for seed, run in zip((1, 2), res["runs"], strict=True):
        assert run["outcome"] == "reached" and run["accuracy"] == 1.0
        last = [p for p in res["curve"] if p["seed"] == seed][-1]
        assert last["epoch"] == run["steps_to_target"] and last["accuracy"] == 1.0


@pytest.mark.parametrize("sigma,heads", [("uniform", 1), ("hardmax", 1), ("softmax", 0)])
def test_control_arms_stay_below_their_ceilings(sigma, heads):
    """Built to fail: uniform attention and hardmax cannot beat the blind ceiling on segment pairs,
    a token-wise FFN cannot beat the token ceiling, whatever training does."""
    sp = pairs(2)
    ceiling = (token_ceiling(sp.dataset) if heads == 0 else blind_ceiling(sp.dataset, sp.pairs))
    assert ceiling < 1
    res = memorize(sp.dataset, width=32, seeds=(0, 1), protocol=protocol(400, every=10), lr=0.03,
                   heads=heads, sigma=sigma)
    for run in res["runs"]:
        assert run["accuracy"] <= ceiling + 1e-12
        assert run["outcome"] in ("plateau", "budget")
        # no run is called a plateau without its learning-rate decay
        assert run["outcome"] != "plateau" or run["lr_decayed"]


def test_two_runs_give_identical_results():
    sp = pairs(4)
    a, b = (memorize(sp.dataset, width=8, seeds=(9,), protocol=protocol(30, 10), lr=0.01)
            for _ in range(2))
    assert a["curve"] == b["curve"]
    a, b = (train_encoders([np.random.default_rng(5), np.random.default_rng(6)], task="copy",
                           n=8, vocab=4, mixers=["attention", "conv"], d_model=8, batch=8,
                           lr=0.01, eval_size=16, protocol=protocol(20, 10, 0.99, 5))
            for _ in range(2))
    assert a == b and a[0] != a[1]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="lr"):
        memorize(pairs().dataset, width=4, seeds=(0,), protocol=protocol(5), lr=0.0)
    with pytest.raises(ValueError, match="sigma"):
        memorize(pairs().dataset, width=4, seeds=(0,), protocol=protocol(5), lr=0.1,
                 sigma="sparsemax")
    with pytest.raises(ValueError, match="unknown task"):
        train_encoders([np.random.default_rng(0)], task="sort", n=4, vocab=2, mixers=["conv"],
                       batch=1, lr=0.1, protocol=protocol(5))


class _Drift(torch.nn.Module):
    """``R`` replicas of one number ``theta``; the loss ``theta`` has gradient 1, so each Adam step
    moves ``theta`` by its replica's learning rate (m / sqrt(v) = 1)."""

    def __init__(self, replicas):
        super().__init__()
        self.theta = torch.nn.Parameter(torch.zeros(replicas, 1, dtype=torch.float64))


class _FixedAccuracy:
    """A job whose metric is fixed per replica (1.0 reaches the target, 0.5 stalls); it records the
    batch size of every step."""

    def __init__(self, model, accuracy):
        self.model, self.accuracy, self.sizes = model, torch.tensor(accuracy), []

    def batch(self, step):
        return ()

    def loss(self):
        self.sizes.append(self.model.theta.shape[0])
        return self.model.theta[:, 0]

    def evaluate(self):
        return torch.zeros_like(self.accuracy), self.accuracy

    def keep(self, rows):
        self.accuracy = self.accuracy[rows]


def test_replicas_decay_their_own_learning_rate_and_leave_the_batch_when_they_stop():
    model = _Drift(3)
    params = FlatReplicas(model)
    job = _FixedAccuracy(model, [0.5, 1.0, 0.5])
    at_stop = {}
    proto = Protocol(target=1.0, budget=1000, every=10, window=100, min_gain=0.01)
    monitors, curves = train_replicas(
        params, job, proto, lr=0.01,
        on_stop=lambda replica, row: at_stop.setdefault(replica, float(model.theta[row, 0].detach())))
    results = [m.result() for m in monitors]
    assert [r["outcome"] for r in results] == ["plateau", "reached", "plateau"]
    assert results[1]["stopped_at"] == 0 and at_stop[1] == 0.0
    assert all(r["decayed_at"] == 100 and r["stopped_at"] == 200 for r in results[::2])
    # 100 steps at lr, 100 at lr / 10 (Adam's step is the learning rate here)
    assert at_stop[0] == pytest.approx(-(100 * 0.01 + 100 * 0.001), rel=1e-6)
    # the replica that reached the target at step 0 never trained; the others ran 200 steps
    assert job.sizes == [2] * 200 and len(curves[1]) == 1 and len(curves[0]) == 21


def test_a_grid_of_rates_side_by_side_decays_each_from_its_own_rate():
    model = _Drift(3)
    at_stop = {}
    proto = Protocol(target=1.0, budget=1000, every=10, window=100, min_gain=0.01)
    train_replicas(FlatReplicas(model), _FixedAccuracy(model, [0.5, 0.5, 0.5]), proto,
                   lr=[0.01, 0.02, 0.005], on_stop=lambda replica, row: at_stop.setdefault(
                       replica, float(model.theta[row, 0].detach())))
    for replica, lr in enumerate((0.01, 0.02, 0.005)):
        assert at_stop[replica] == pytest.approx(-(100 * lr + 100 * lr / 10), rel=1e-6)


@pytest.mark.parametrize(("lr", "match"), [([0.01, 0.02], "one per replica \\(3\\), got 2"),
                                           ([0.01, 0.0, 0.01], "got 0.0"),
                                           (True, "got True"), ([0.1, math.inf, 0.1], "got inf")])
def test_replica_rates_refuse_a_wrong_grid(lr, match):
    with pytest.raises(ValueError, match=match):
        replica_rates(lr, 3)


def test_replica_adam_is_torch_adam_per_replica():
    torch.manual_seed(0)
    start = torch.randn(2, 5, dtype=torch.float64)
    grads = [torch.randn(2, 5, dtype=torch.float64) for _ in range(20)]

    class Two(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = torch.nn.Parameter(start.clone())

    flat = FlatReplicas(Two())
    opt = ReplicaAdam(flat, lr=0.01)
    opt.lr[1] = 0.001
    for g in grads:
        flat.grad.copy_(g)
        opt.step()
    for r, lr in ((0, 0.01), (1, 0.001)):
        p = torch.nn.Parameter(start[r].clone())
        ref = torch.optim.Adam([p], lr=lr)
        for g in grads:
            p.grad = g[r].clone()
            ref.step()
        torch.testing.assert_close(flat.flat[r].detach(), p.detach(), rtol=1e-12, atol=1e-15)


def test_flat_replicas_refuse_parameters_without_the_replica_dimension_first():
    with pytest.raises(ValueError, match="replica dimension"):
        FlatReplicas(torch.nn.Sequential(torch.nn.Linear(3, 2, bias=False),
                                         torch.nn.Linear(2, 4, bias=False)))
    with pytest.raises(ValueError, match="no trainable parameter"):
        FlatReplicas(torch.nn.ReLU())


def test_flat_replicas_parameters_are_leaves_viewing_flat_and_their_gradients_add_into_grad():
    """Each parameter becomes a leaf viewing its columns of ``flat``; a backward adds every
    parameter's gradient (those of the same model left alone) into ``grad`` in place; ``keep``
    keeps rows in order, and the module then reads the kept rows."""
    from expressivity.sequence_encoder import SequenceEncoder

    def build():
        return SequenceEncoder(4, 8, 16, ["attention", "conv"], 4, seeds=(1, 2, 3))

    alone, model = build(), build()
    params = FlatReplicas(model)
    tokens = torch.as_tensor(np.random.default_rng(0).integers(0, 4, (3, 2, 8)))
    alone(tokens).square().sum().backward()
    params.backward(model(tokens).square().sum())
    named = dict(alone.named_parameters())
    assert [name for name, _ in model.named_parameters()] == list(named)
    for name, p in model.named_parameters():
        assert p.is_leaf and p.untyped_storage().data_ptr() == params.flat.untyped_storage().data_ptr()
        assert p.grad.untyped_storage().data_ptr() == params.grad.untyped_storage().data_ptr()
        assert torch.equal(p, named[name]) and torch.equal(p.grad, named[name].grad), name
    once = params.grad.clone()
    params.backward(model(tokens).square().sum())
    torch.testing.assert_close(params.grad, 2 * once, rtol=0, atol=0)
    params.zero_grad()
    assert not params.grad.any()
    params.keep(torch.tensor([2, 0]))
    assert params.replicas == 2 and torch.equal(model.embed, named["embed"][[2, 0]])
    params.flat.add_(1.0)  # the optimiser's in-place update reaches the module
    torch.testing.assert_close(model.embed, named["embed"][[2, 0]] + 1.0)


def test_a_seed_trains_alone_as_beside_others_to_rounding():
    """Replicas share nothing: a seed trained alone follows the trajectory it follows beside other
    seeds (equal up to the rounding of kernels that block differently by batch size)."""
    proto = protocol(60, 30, 0.99, 10)
    kw = dict(task="copy", n=8, vocab=4, mixers=["attention", "conv"], d_model=16, batch=8,
              lr=0.01, eval_size=16, protocol=proto)
    both = train_encoders([np.random.default_rng(5), np.random.default_rng(6)], **kw)
    alone = train_encoders([np.random.default_rng(6)], **kw)
    np.testing.assert_allclose([p["loss"] for p in both[1]["curve"]],
                               [p["loss"] for p in alone[0]["curve"]], rtol=1e-4)
    sp = pairs(3)
    mem = [memorize(sp.dataset, width=16, seeds=seeds, protocol=protocol(60, 30, 1.0, 10), lr=0.01)
           for seeds in ((4, 5), (5,))]
    np.testing.assert_allclose([p["loss"] for p in mem[0]["curve"] if p["seed"] == 5],
                               [p["loss"] for p in mem[1]["curve"]], rtol=1e-4)


def test_the_held_out_set_is_evaluated_in_chunks_as_in_one_pass(monkeypatch):
    """``EVAL_CHUNK`` sequences at a time (the last chunk shorter) give the curve of one pass over
    the whole held-out set."""
    import expressivity.training as training

    kw = dict(task="copy", n=8, vocab=4, mixers=["attention"], d_model=16, batch=8, lr=0.01,
              eval_size=20, protocol=protocol(40, 20, 0.99, 10))
    curves = []
    for chunk in (7, 20):
        monkeypatch.setattr(training, "EVAL_CHUNK", chunk)
        runs = train_encoders([np.random.default_rng(3), np.random.default_rng(4)], **kw)
        curves.append([(p["loss"], p["accuracy"]) for run in runs for p in run["curve"]])
    assert len(curves[0]) == 10
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-6)


def test_cuda_graphs_are_refused_without_a_gpu_device():
    with pytest.raises(ValueError, match="graphs"):
        memorize(pairs().dataset, width=4, seeds=(0,), protocol=protocol(10, 5), lr=0.01,
                 graphs=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
def test_cuda_graph_steps_give_the_eager_steps_results():
    configure_torch(1, "cuda")
    sp = pairs(3)
    runs = [memorize(sp.dataset, width=16, seeds=(1, 2), protocol=protocol(200, 50, 1.0, 10),
                     lr=0.03, device="cuda", graphs=g)["curve"] for g in (False, True)]
    assert runs[0] == runs[1]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
@pytest.mark.xfail(strict=True, reason="the encoders' capture fails on a GPU "
                   "(cudaErrorStreamCaptureInvalidated, H100 and H200, torch 2.11): "
                   "training.ENCODER_GRAPHS is off until it works; an XPASS here (since the "
                   "parameters became leaves of FlatReplicas) means it works: turn it on")
def test_encoder_cuda_graph_steps_give_the_eager_steps_results():
    configure_torch(1, "cuda")
    kw = dict(task="copy", n=8, vocab=4, mixers=["attention", "conv"], d_model=16, batch=8,
              lr=0.01, eval_size=16, protocol=protocol(200, 50, 0.99, 10), device="cuda")
    eager = train_encoders([np.random.default_rng(1), np.random.default_rng(2)], graphs=False,
                           **kw)
    graphed = train_encoders([np.random.default_rng(1), np.random.default_rng(2)], graphs=True,
                             **kw)
    assert eager == graphed
