"""Minibatch memorization: SGD with momentum per replica, the epoch order, the training job."""

import numpy as np
import pytest
import torch

from expressivity.conll_like import conll_like_dataset
from expressivity.minibatch_memorization import ReplicaSGD, memorize_minibatch
from expressivity.replica_training import FlatReplicas
from expressivity.training_protocol import Protocol
from expressivity.transformer_models import TokenClassifier


def test_replica_sgd_matches_torch_sgd_per_replica():
    """Two replicas at their own learning rates follow torch.optim.SGD(momentum) each."""
    torch.manual_seed(0)
    model = TokenClassifier(4, 3, 5, heads=1, seeds=(1, 2))
    params = FlatReplicas(model)
    opt = ReplicaSGD(params, 0.1, momentum=0.8)
    opt.lr[1] = 0.03
    refs = [params.flat[r].detach().clone().requires_grad_(True) for r in range(2)]
    ref_opts = [torch.optim.SGD([refs[r]], lr=lr, momentum=0.8) for r, lr in enumerate((0.1, 0.03))]
    for _ in range(3):
        grad = torch.randn_like(params.flat)
        params.grad.copy_(grad)
        opt.step()
        for r in range(2):
            refs[r].grad = grad[r].clone()
            ref_opts[r].step()
    for r in range(2):
        torch.testing.assert_close(params.flat[r].detach(), refs[r].detach())


@pytest.mark.parametrize(("kw", "match"), [({"momentum": 1.0}, "momentum"), ({"lr": 0.0}, "lr")])
def test_replica_sgd_refuses(kw, match):
    params = FlatReplicas(TokenClassifier(2, 2, 2, heads=0, seeds=(0,)))
    with pytest.raises(ValueError, match=match):
        ReplicaSGD(params, **({"lr": 0.1} | kw))


def _data():
    return conll_like_dataset(np.random.default_rng(1), V=30, d=6, n=3, N=6, a=0.3)


def _run(seeds=(3, 4), optimiser="sgd", **kw):
    proto = Protocol(target=1.0, budget=1200, every=20, window=400, min_gain=0.01)
    args = {"width": 32, "seeds": seeds, "protocol": proto, "lr": 0.05, "batch": 2,
            "optimiser": optimiser, "order_rng": np.random.default_rng(7),
            "eval_sequences": 4} | kw
    return memorize_minibatch(_data(), **args)


def test_memorizes_and_is_reproducible():
    """Adam memorizes a tiny CoNLL-shaped set; the same call gives the same runs."""
    first = _run(optimiser="adam", lr=0.02)
    assert any(r["outcome"] == "reached" for r in first["runs"])
    again = _run(optimiser="adam", lr=0.02)
    assert [r["accuracy"] for r in first["runs"]] == [r["accuracy"] for r in again["runs"]]
    assert first["runs"][0]["w"].shape == (1, 6, 1) and first["runs"][0]["lam"].shape == (1,)


def test_no_attention_has_no_weights_and_sgd_runs():
    res = _run(heads=0)
    assert all(r["w"] is None and r["outcome"] in ("reached", "plateau", "budget", "diverged")
               for r in res["runs"])


@pytest.mark.parametrize(("kw", "match"), [({"optimiser": "rmsprop"}, "optimiser"),
                                           ({"sigma": "sparsemax"}, "sigma"),
                                           ({"batch": 7}, "batch")])
def test_bad_arguments_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        _run(**kw)


def test_cuda_graphs_are_refused_without_a_gpu_device():
    with pytest.raises(ValueError, match="graphs"):
        _run(graphs=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA graphs need a GPU")
@pytest.mark.parametrize(("optimiser", "sigma"), [("sgd", "softmax"), ("adam", "hardmax")])
def test_cuda_graph_steps_give_the_eager_steps_results(optimiser, sigma):
    """A captured step (rows gathered on the device, SGD or Adam, the straight-through hardmax)
    replays the eager step: the same runs, the same weights at the stop."""
    from expressivity.torch_runtime import configure_torch

    configure_torch(1, "cuda")
    runs = [_run(optimiser=optimiser, sigma=sigma, device="cuda", graphs=g)["runs"]
            for g in (False, True)]
    for eager, graphed in zip(*runs, strict=True):
        assert {k: v for k, v in eager.items() if k not in ("w", "lam")} == {
            k: v for k, v in graphed.items() if k not in ("w", "lam")}
        np.testing.assert_array_equal(eager["w"], graphed["w"])
