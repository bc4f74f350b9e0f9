"""Parameter counts and total bits of the one-layer memorizer against ``N`` (regime (ii) datasets).

The count is ``expressivity.parameter_count.construction_parameters``: our compact count of our
assembly, the free numbers it holds (``4 d`` attention, ``d`` for the FFN's projection, a bias and
an output weight per context point: ``5 d + 2 n N``). The paper's construction, written with the
dense matrices of a Transformer block, holds ``O(d n N + d^2)`` (Kajitsuka & Sato 2025, arXiv
2409.17677, Table 1; see the claim's provenance): counts of parameters are comparable across
papers only with their precision. So the table
adds the **total bits**, parameters times the bits each needs: ``log2(10)`` times the decimal digits
that resolve the layer's smallest same-token context difference (measured, certified; a lower
estimate of the precision of the FFN's biases, which sit between features that close), at the
memorizer's ``lam`` (``lam_mem``, 1 by default) and at ``lam_theory``.

Reference lines: ``n N log2(C)`` bits, the counting bound every memorizer of arbitrary labels in
``C`` classes needs (``C^{nN}`` labellings, at most ``2^B`` functions of ``B`` bits); Kim et al.
2023's ``d + n + sqrt(n N)`` and the optimal ``sqrt(n N)`` parameters (Kajitsuka & Sato 2025) as
orders of growth, constants 1 (their constants and log factors are unknown here).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from expressivity.fit import loglog_fit
from expressivity.parameter_count import construction_parameters

LOG2_10 = math.log2(10)
#: Columns the table needs from the regime (ii) table.
INPUT_COLUMNS = ("d", "V", "n", "N", "n_classes", "mem_lam", "mem_digits_needed",
                 "digits_at_theory", "lam_theory")


def _slope(x, y) -> tuple[float, float]:
    """``(slope, standard error)`` of ``log y`` against ``log x`` (nan where fewer than two
    distinct finite points, or no error with two)."""
    ok = np.isfinite(np.asarray(x, float)) & np.isfinite(np.asarray(y, float))
    x, y = np.asarray(x, float)[ok], np.asarray(y, float)[ok]
    if len(np.unique(x)) < 2:
        return math.nan, math.nan
    fit = loglog_fit(x, y)
    return fit.slope, fit.slope_se


def parameter_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per regime (ii) dataset: the parameter count, its parts, the total bits at ``lam_mem`` and at
    ``lam_theory``, the counting bound, the reference orders, and each ``(d, V, n)`` series'
    log-log slopes in ``N`` with their standard errors (``expressivity.fit``)."""
    missing = [c for c in INPUT_COLUMNS if c not in df]
    if missing:
        raise ValueError(f"df lacks the column(s) {', '.join(missing)}")
    out = df[list(INPUT_COLUMNS)].copy()
    counts = [construction_parameters(int(N), int(n), int(d))
              for N, n, d in zip(out["N"], out["n"], out["d"], strict=True)]
    out["n_parameters"] = [c["total"] for c in counts]
    out["n_attention"] = [c["attention"] for c in counts]
    out["n_ffn"] = [c["ffn"] for c in counts]
    out["bits_at_lam_mem"] = out["n_parameters"] * out["mem_digits_needed"] * LOG2_10
    out["bits_at_theory"] = out["n_parameters"] * out["digits_at_theory"] * LOG2_10
    out["label_bits"] = out["n"] * out["N"] * np.log2(out["n_classes"])
    out["kim2023_order"] = out["d"] + out["n"] + np.sqrt(out["n"] * out["N"])
    out["optimal_order"] = np.sqrt(out["n"] * out["N"])
    for col, name in (("n_parameters", "parameters"), ("bits_at_lam_mem", "bits_lam_mem"),
                      ("bits_at_theory", "bits_theory")):
        fits = {key: _slope(g["N"], g[col]) for key, g in out.groupby(["d", "V", "n"], sort=True)}
        keys = list(zip(out["d"], out["V"], out["n"], strict=True))
        out[f"slope_{name}"] = [fits[key][0] for key in keys]
        out[f"slope_{name}_se"] = [fits[key][1] for key in keys]
    return out.sort_values(["d", "V", "n", "N"]).reset_index(drop=True)
