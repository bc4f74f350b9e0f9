"""Figure: the causal rank-1 layer's certified prefix separation (random ordered sequences, at
lam_theory and at the fixed lam, against eq. (8)), and causal uniform averaging and hardmax
(exact collisions) against softmax (certified) on prefix segment pairs."""

import numpy as np

from expressivity.io import read_table
from expressivity.joblog import job_log
from expressivity.plotting import MARKERS, PALETTE, figure, save

log = job_log(snakemake)
df = read_table(snakemake.input[0], [
    "part", "lam_kind", "d", "V", "n", "N", "softmax_lam", "softmax_log10_delta",
    "log10_delta_theory", "draw", "positions", "uniform_equal_positions",
    "hardmax_equal_positions"])
rnd = df[df["part"] == "random"].reset_index(drop=True)
adv = df[df["part"] == "adversarial"].reset_index(drop=True)

with figure(1, 2, figsize=(11, 4.8)) as (fig, (left, right)):
    names = [f"{d}, {V}, {n}, {N}" for d, V, n, N in
             rnd[["d", "V", "n", "N"]].itertuples(index=False)]
    x = np.arange(len(rnd))
    for kind, marker, colour, label in (("theory", MARKERS[0], PALETTE[0], "at lam_theory"),
                                        ("fixed", MARKERS[1], PALETTE[1], "at the fixed lam")):
        sel = (rnd["lam_kind"] == kind).to_numpy()
        left.plot(x[sel], -rnd["softmax_log10_delta"][sel], ls="none", marker=marker, ms=5,
                  color=colour, label=f"causal softmax {label}: certified -log10 delta")
    theory = (rnd["lam_kind"] == "theory").to_numpy()
    left.plot(x[theory], -rnd["log10_delta_theory"][theory], ls="none", marker="_", ms=12,
              color=PALETTE[2], label="eq. (8) at lam_theory, length n: -log10 delta_theory "
                                      "(the bound)")
    left.set_yscale("log")
    left.set_ylabel("-log10 delta (decimal digits of the separation)")
    left.set_xticks(x, names, fontsize=7, rotation=45, ha="right")
    left.set_xlabel("dataset (d, |V|, n, N)", fontsize=8)
    left.set_xlim(-0.6, len(rnd) - 0.4)
    left.set_title("every distinct (token, prefix set) of random ordered sequences", fontsize=9)
    left.legend(fontsize=7, loc="center left")

    groups = sorted(set(adv["d"]))
    slot = {d: i for i, d in enumerate(groups)}
    xa = np.array([slot[d] for d in adv["d"]], dtype=float)
    xa = xa + 0.6 * (adv["draw"].to_numpy() / max(1, adv["draw"].max()) - 0.5)
    soft = adv["softmax_log10_delta"].to_numpy(float)
    floor = float(np.nanmin(soft)) - 1.5
    lam = float(adv["softmax_lam"].iloc[0]) if len(adv) else float("nan")
    right.plot(xa, soft, ls="none", marker=MARKERS[0], ms=4, color=PALETTE[0],
               label=f"causal softmax at lam = {lam:g}: certified log10 delta")
    for arm, marker, colour, shift in (("uniform", "D", PALETTE[4], -0.1),
                                       ("hardmax", "s", PALETTE[3], 0.1)):
        equal = (adv[f"{arm}_equal_positions"] == adv["positions"]).to_numpy()
        right.plot(xa[equal] + shift, np.full(equal.sum(), floor), ls="none", marker=marker, ms=4,
                   mfc="none", color=colour,
                   label=f"causal {arm}: equal outputs at every position from q in "
                         f"{equal.sum()} of {len(adv)}")
    right.axhline(floor, color="grey", lw=0.8)
    right.annotate("delta = 0\n(exact)", (1.0, floor), xycoords=("axes fraction", "data"),
                   xytext=(4, 0), textcoords="offset points", va="center", fontsize=7)
    right.set_xticks(range(len(groups)), [f"d={d}" for d in groups], fontsize=8)
    right.set_xlim(-0.6, len(groups) - 0.4)
    right.set_ylim(floor - 1, max(float(np.nanmax(soft)), floor) + 2.5)
    right.set_xlabel("prefix segment pairs, one point per draw", fontsize=8)
    right.set_ylabel("log10 delta")
    right.set_title("the three causal arms on prefix segment pairs", fontsize=9)
    right.legend(fontsize=7, loc="upper right")
    save(fig, snakemake.output.png, snakemake.output.pdf)
