"""Relations between config keys, checked before any job runs.

JSON Schema checks each key on its own. A relation ties several keys together (``sweep.k`` at most
every ``sweep.n``, ``d_model`` a multiple of ``heads``, ...) and would otherwise fail late in a job
or, worse, give a degraded result (a k = 32 target on 8 x 8 matrices, attention layers silently
dropped). Two sources of relations, checked the same way:

- ``RELATIONS`` below, one entry per constraint, each with the reason it holds;
- the schema keywords ``x-at-most: <sibling>`` and ``x-increasing: true`` (``schema_relations``).

A relation names the keys it reads (dotted paths). ``check_relations`` skips a relation whose keys
already have a problem of their own (the schema's message says what is wrong there), so every
relation sees finite numbers of the right type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from expressivity.random_projection import jl_dimension
from expressivity.sparse_patterns import pattern_masks


def show(value) -> str:
    """``repr(value)``, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Relation:
    """A constraint between config keys: ``check(*values)`` returns ``None`` when it holds, else a
    sentence saying what is wrong (the keys and their values are prepended by ``problem``)."""

    keys: tuple[str, ...]
    check: Callable[..., str | None]

    def problem(self, config: dict) -> str | None:
        """The message for ``config``, or ``None`` when the relation holds."""
        values = [lookup(config, key) for key in self.keys]
        detail = self.check(*values)
        if detail is None:
            return None
        named = ", ".join(f"{key} = {show(value)}" for key, value in zip(self.keys, values, strict=True))
        return f"{'key' if len(self.keys) == 1 else 'keys'} {named}: {detail}"


def lookup(config: dict, dotted: str):
    """The value at a dotted path: ``lookup(cfg, "memorization.theory.n")``."""
    for part in dotted.split("."):
        config = config[part]
    return config


def _values(value) -> list:
    """A list as is, a number as a one-item list."""
    return value if isinstance(value, list) else [value]


def at_most(small: str, large: str, why: str) -> Relation:
    """Every value of ``small`` (a number or a list) is at most every value of ``large``."""

    def check(a, b):
        hi, lo = max(_values(a)), min(_values(b))
        return None if hi <= lo else f"{why}, but {hi} > {lo}"

    return Relation((small, large), check)


def multiple_of(section: str) -> Relation:
    """``<section>.d_model`` is a multiple of ``<section>.heads`` (each head gets d_model / heads)."""

    def check(d_model, heads):
        if d_model % heads == 0:
            return None
        return (f"d_model must be a multiple of heads (each head has width d_model / heads = "
                f"{d_model / heads:g})")

    return Relation((f"{section}.d_model", f"{section}.heads"), check)


def token_sets(n_sequences: str, section: str) -> Relation:
    """Every value of ``n_sequences`` is at most C(vocab_size, n), the number of distinct token
    sets of ``<section>`` (the dataset draws distinct sets of n tokens)."""

    def check(N, vocab_size, n):
        total = math.comb(vocab_size, n)
        if max(_values(N)) <= total:
            return None
        return (f"N = {max(_values(N))} sequences need as many distinct sets of n tokens, but a "
                f"vocabulary of {vocab_size} has only C({vocab_size}, {n}) = {total}")

    return Relation((n_sequences, f"{section}.vocab_size", f"{section}.n"), check)


def max_tokens(d: int, eps: float, r_min: float, r_max: float) -> Fraction:
    """An upper bound on how many points with norms in ``[r_min, r_max]`` in ``R^d`` can be
    pairwise at least ``eps`` apart.

    Balls of radius ``h = eps/2`` around them are disjoint and lie in the shell
    ``max(r_min - h, 0) <= |x| <= r_max + h``, so their number is at most the shell's volume over a
    ball's: ``((r_max + h)^d - max(r_min - h, 0)^d) / h^d`` (exact rational arithmetic: d may be
    256); one point only when ``eps > 2 r_max``. The bound is necessary, not sufficient: a
    vocabulary within it may still be hard to draw at random, and the draw then names eps."""
    if eps > 2 * r_max:  # no two points of the ball of radius r_max are further apart
        return Fraction(1)
    h = Fraction(eps) / 2
    return ((Fraction(r_max) + h) ** d - max(Fraction(r_min) - h, Fraction(0)) ** d) / h**d


def tokens_fit(section: str) -> Relation:
    """The vocabularies of ``memorization.<section>`` (|V| tokens, pairwise ``eps`` apart, norms in
    ``[r_min, r_max]``) fit in every token dimension d (the tightest case: largest |V|, smallest d)."""

    def check(V, d, eps, r_min, r_max):
        most, dim = max(_values(V)), min(_values(d))
        bound = max_tokens(dim, eps, r_min, r_max)
        if most <= bound:
            return None
        return (f"|V| = {most} tokens cannot be pairwise eps = {eps} apart with norms in "
                f"[{r_min}, {r_max}] in dimension d = {dim}: at most {math.floor(bound)} fit "
                "(volume bound); lower eps or |V|, or raise d or r_max")

    keys = (f"memorization.{section}.{k}" for k in ("V", "d", "eps"))
    return Relation((*keys, "memorization.r_min", "memorization.r_max"), check)


def _approximation_tables(inv_delta, n, d, inv_delta_max, memorization_budget,
                          certificate_budget):
    """The series (d[i], n[i], up to inv_delta_max[i]) are lists of one length with distinct
    (d, n), and every route that builds a table keeps at least three 1/delta of each series within
    its budget (a slope with an interval): the Kajitsuka & Sato route skips the 1/delta beyond its
    budgets; Yun et al.'s routes build none."""
    if not len(d) == len(n) == len(inv_delta_max):
        return (f"approximation.d, approximation.n and approximation.inv_delta_max describe one "
                f"series each and must have one length, got {len(d)}, {len(n)} and "
                f"{len(inv_delta_max)}")
    pairs = list(zip(d, n, strict=True))
    if len(set(pairs)) < len(pairs):
        return f"the series (d, n) = {pairs} repeat a pair: one job per target and series"
    multisets = lambda m, dd, nn: math.comb(m**dd + nn - 1, nn)  # noqa: E731
    tables = {"the Kajitsuka & Sato memorized multisets C(m^d + n - 1, n)":
              (multisets, memorization_budget, "approximation.memorization_budget"),
              "the Kajitsuka & Sato certified multisets C(m^d + n - 1, n)":
              (multisets, certificate_budget, "approximation.certificate_budget")}
    for dd, nn, top in zip(d, n, inv_delta_max, strict=True):
        grid = [m for m in inv_delta if m <= top]
        if len(grid) < 3:
            return (f"the series d = {dd}, n = {nn} keeps {len(grid)} value(s) of inv_delta up "
                    f"to inv_delta_max = {top}; a slope needs at least 3")
        for what, (size, limit, key) in tables.items():
            fit = [m for m in grid if size(m, dd, nn) <= limit]
            if len(fit) < 3:
                over = min((m for m in grid if size(m, dd, nn) > limit), default=None)
                where = f" (at 1/delta = {over} it has {size(over, dd, nn)} entries)" \
                    if over else ""
                return (f"at d = {dd}, n = {nn} only {len(fit)} value(s) of inv_delta keep {what} "
                        f"within {key} = {limit}{where}; every route needs at least 3 for a "
                        "slope: add smaller 1/delta or raise the budget")
    return None


def segment_pairs(section: str, n: str = "trained_models.memorization.n") -> Relation:
    """A segment-pair dataset of ``<section>`` (``N``, ``pairs``) with the vocabulary of
    ``trained_models.memorization`` and sequence length ``n`` (a dotted key): 2 pairs <= N,
    distinct segments, and enough distinct token sets for the other N - 2 pairs sequences."""

    def check(N, pairs, vocab_size, n):
        if 2 * pairs > N:
            return f"2 pairs = {2 * pairs} sequences are more than N = {N}"
        if pairs > math.comb(vocab_size, 2):
            return f"pairs = {pairs} distinct segments need C(vocab_size, 2) >= pairs"
        if N - 2 * pairs > math.comb(vocab_size, n):
            return (f"N - 2 pairs = {N - 2 * pairs} random sequences need as many distinct sets "
                    f"of n tokens, but C({vocab_size}, {n}) = {math.comb(vocab_size, n)}")
        return None

    mem = "trained_models.memorization"
    return Relation((f"{section}.N", f"{section}.pairs", f"{mem}.vocab_size", n), check)


def _masked_controls(arms):
    missing = [a for a in ("softmax", "uniform", "hardmax", "no_attention") if a not in arms]
    return None if not missing else (
        f"the causal softmax arm is judged against its controls: add {', '.join(missing)}")


def two_windows(section: str) -> Relation:
    """``<section>.budget`` holds a window, the learning-rate decay and a second window
    (``expressivity.training_protocol``): budget >= 2 window, or no run could be a plateau."""

    def check(window, budget):
        if budget >= 2 * window:
            return None
        return (f"the budget must hold a window, the learning-rate decay and a second window "
                f"(budget >= 2 window = {2 * window}); otherwise no run can be called a plateau")

    return Relation((f"{section}.window", f"{section}.budget"), check)


def _odd_kernels(kernels):
    even = [k for k in kernels if k % 2 == 0]
    return None if not even else f"convolution kernels must be odd (centred on their token), got {even}"


def _hybrid_ends(layers, depth):
    missing = [k for k in (0, depth) if k not in layers]
    if max(layers) <= depth and not missing:
        return None
    return (f"the values must lie in 0..depth = {depth} and include 0 (each alternative alone) and "
            f"{depth} (all attention): the claims compare them")


def _some_hybrid(recall_alternatives, count_kernels):
    if recall_alternatives or count_kernels:
        return None
    return "the hybrid table needs recall alternatives or counting kernels (both are empty)"


def _recall_keys(n, recall_vocab, recall_alternatives):
    if recall_vocab >= n // 2 or not recall_alternatives:
        return None
    return f"recall needs recall_vocab >= n/2 = {n // 2} distinct keys per sequence"


def _sweep_recall_keys(tasks, n, recall_vocab):
    return _recall_keys(n, recall_vocab, "recall" in tasks)


def _split_heads(configurations, patterns, levels, n, heads):
    """Splitting a pattern's cycle over the heads gives every mask of the cycle as many heads."""
    if "heads" not in configurations:
        return None
    lengths = sorted({len(pattern_masks(p, n, w=min(w, n))) for p in patterns for w in levels})
    bad = [p for p in lengths if heads % p]
    if not bad:
        return None
    return (f"splitting a cycle of {bad[0]} masks over the heads needs copy.heads a multiple of "
            f"{bad[0]}, got {heads}")


def _levels_fit(levels, n):
    if max(levels) <= n:
        return None
    return f"a window or block size cannot exceed the sequence length n = {n}"


def _heads_divide(d_models, heads):
    bad = [d for d in d_models if d % heads]
    return None if not bad else f"every width must be a multiple of copy.heads = {heads}, got {bad}"


def _ablation(heads, head_sizes, full_rank, d):
    """The heads/rank claim compares h = s = 1 with a larger setting, each run once."""
    if 1 not in heads or 1 not in head_sizes:
        return ("the ablation's claim compares one head of size 1 (h = s = 1) with larger settings: "
                "1 must be among heads and among head_sizes")
    if full_rank and d in head_sizes:
        return (f"full_rank adds head size s = d = {d}, already in head_sizes: the same cell would "
                "run twice (drop it from head_sizes or set full_rank: false)")
    if max(heads) == 1 and max(head_sizes) == 1 and not (full_rank and d > 1):
        return "the ablation needs a setting beyond h = s = 1 (more heads, a larger head, full_rank)"
    return None




#: Grid points per sign of a memorization token at d = 1 (norms in [1, 2] on the 2^-12 grid of
#: ``expressivity.segment_pairs``).
LINE_POINTS = 2 * (2**12 + 1)


def _line_fits(d, vocab_size, pairs, heads_pairs, masked_pairs):
    """At d = 1 the tokens of a segment-pair dataset (full or prefix pairs, over the memorization
    vocabulary) are distinct points of a finite grid."""
    return _line_grid(d, vocab_size + 4 * max(pairs, heads_pairs, masked_pairs), "vocab_size")


def _line_grid(d, tokens: int, vocabulary: str) -> str | None:
    """At d = 1 the ``tokens`` (a vocabulary of size ``vocabulary`` and 4 interior tokens per
    segment pair) must fit, drawn at random, on at most half of the line grid."""
    if d > 1 or 2 * tokens <= LINE_POINTS:
        return None
    return (f"at d = 1 the vocabulary and the 4 interior tokens per segment pair ({tokens} tokens) "
            f"must be distinct points of a line grid of {LINE_POINTS}: at most half of it "
            f"({LINE_POINTS // 2}) can be drawn at random; raise d or lower {vocabulary} or pairs")


def _capacity_pairs(N, pairs, n, V, d):
    """The segment pairs embedded in every capacity dataset (``expressivity.conll_like``): two
    sentences each, two segment ends and two interior tokens each, distinct points of the grid."""
    if not pairs:
        return None
    if 2 * pairs > min(N):
        return f"2 pairs = {2 * pairs} sentences are more than the smallest N = {min(N)}"
    if n < 4:
        return "a segment pair's sentences hold two segment ends and two interior tokens: n >= 4"
    if pairs > math.comb(V, 2):
        return f"pairs = {pairs} distinct segments need C(V, 2) >= pairs"
    return _line_grid(d, V + 4 * pairs, "V")


def _grids(inv_delta, d, n) -> int:
    """The smallest grid (1/delta)^(n d) of the lists ``inv_delta``, ``d``, ``n``."""
    return min(_values(inv_delta)) ** (min(_values(n)) * min(_values(d)))


def _some_grid(inv_delta, d, n, budget):
    smallest = _grids(inv_delta, d, n)
    if smallest <= budget:
        return None
    return (f"every grid is over the budget (the smallest has {smallest} inputs), so no grid would "
            "be checked and its claims not evaluated: lower inv_delta, d or n, or raise the budget")


def _least_squares(d, degree, n_train):
    tokens = math.comb(d + degree, degree)
    need = 11 * (tokens + 1)
    if min(n_train) >= need:
        return None
    return (f"the least-squares excess risk sigma^2 T / (N - T - 1) with T = C(d + degree, degree) "
            f"= {tokens} features has a log-log slope within 0.1 of -1 only for N >= 11 (T + 1) = "
            f"{need}; the smallest N is {min(n_train)}")


def _grid_below_jl(d_start, n, ks, R, eps_ratio, eps_zero, delta):
    """The logit-error grid runs from search.d_start up to the JL bound (*) at error.n."""
    if not (0 < delta < 1 and all(math.isfinite(x) and x > 0 for x in (R, eps_ratio, eps_zero))):
        return None  # reported by the schema
    d_jl = min(jl_dimension(n, k, R, eps_ratio, eps_zero, delta) for k in ks)
    if d_start <= d_jl:
        return None
    return (f"the logit-error grid runs from d_start up to the JL bound (*) at error.n, "
            f"{d_jl} for k = {min(ks)}: d_start = {d_start} leaves no grid")


def _jl_has_n(sweep_n, n_max):
    if min(sweep_n) <= n_max:
        return None
    return "the JL check runs on the sweep's n up to n_max: at least one sweep n must be <= n_max"


def same_length(values: str, along: str, why: str) -> Relation:
    """The list ``values`` is empty (not used) or has one entry per entry of the list ``along``."""

    def check(a, b):
        if not a or len(a) == len(b):
            return None
        return f"{why}: {len(a)} values for {len(b)} (or leave it empty)"

    return Relation((values, along), check)


def _not_longer(trials, n):
    if len(trials) <= len(n):
        return None
    return f"trials are given for the largest n: {len(trials)} values for {len(n)} n"


def _two_n_per_k(n, n_max):
    low = sorted(n)[1] if len(n) > 1 else n[0]
    if not n_max or min(n_max) >= low:
        return None
    return (f"every n_max must reach the second smallest n ({low}): a k with fewer than two n "
            "has no growth to measure")


def _slice_budget(budget, budgets):
    if budget in budgets:
        return None
    return (f"the one-budget slice must be one of the frontier's budgets {show(budgets)}, "
            f"got {show(budget)}")


def _two_classes(n_classes):
    if n_classes >= 2:
        return None
    return ("the hardmax contrast labels each shared token differently in its two sequences (what "
            "uniform averaging and hardmax cannot memorize): at least 2 classes are needed")


SA, MEM, TM = "sparse_approximation", "memorization", "trained_models"
UA = "universal_approximation"

#: Every relation between config keys beyond ``x-at-most`` and ``x-increasing`` in the schema.
RELATIONS: list[Relation] = [
    at_most(f"{SA}.sweep.k", f"{SA}.sweep.n",
            "every k must be at most every n (a target has k nonzeros in each row of an n x n matrix)"),
    at_most(f"{SA}.sweep.k", f"{SA}.error.n",
            "the logit-error check draws targets with every sweep k at error.n, so k <= error.n"),
    at_most(f"{SA}.module.k", f"{SA}.module.n",
            "the fixed module is checked on targets with every module.k at module.n, so k <= n"),
    at_most(f"{SA}.module.window", f"{SA}.module.n", "the heatmap window is a corner of the n x n attention"),
    at_most(f"{SA}.mass.k", f"{SA}.mass.n", "an n x n target has at most n nonzeros per row"),
    Relation((f"{SA}.sweep.trials_at_largest_n", f"{SA}.sweep.n"), _not_longer),
    same_length(f"{SA}.sweep.n_max", f"{SA}.sweep.k", "n_max gives the largest n per k"),
    Relation((f"{SA}.mass.trials_at_largest_n", f"{SA}.mass.n"), _not_longer),
    same_length(f"{SA}.mass.n_max", f"{SA}.mass.k", "n_max gives the largest n per k"),
    Relation((f"{SA}.sweep.n", f"{SA}.sweep.n_max"), _two_n_per_k),
    Relation((f"{SA}.mass.n", f"{SA}.mass.n_max"), _two_n_per_k),
    at_most(f"{SA}.module.example_k", f"{SA}.module.n", "the heatmap example needs example_k <= n"),
    at_most(f"{SA}.vary.k", f"{SA}.vary.n", "an n x n target has at most n nonzeros per row"),
    Relation((f"{SA}.sweep.n", f"{SA}.jl.n_max"), _jl_has_n),
    Relation((f"{SA}.search.d_start", f"{SA}.error.n", f"{SA}.sweep.k", f"{SA}.R", f"{SA}.eps_ratio",
              f"{SA}.eps_zero", f"{SA}.delta"), _grid_below_jl),
    at_most(f"{SA}.optimised.k", f"{SA}.optimised.n",
            "the optimised inputs are searched for targets with every optimised.k at every "
            "optimised.n, so k <= n"),
    at_most(f"{SA}.frontier.k", f"{SA}.frontier.n",
            "the frontier's targets have every frontier.k at every frontier.n, so k <= n"),
    at_most(f"{SA}.frontier.moment_k", f"{SA}.frontier.n",
            "the moment curve is built for targets with every moment_k at every frontier.n"),
    Relation((f"{SA}.frontier.slice_budget", f"{SA}.frontier.budgets"), _slice_budget),
    at_most(f"{MEM}.theory.n", f"{MEM}.theory.V",
            "every sequence length n must be at most every |V| (n distinct tokens per sequence)"),
    at_most(f"{MEM}.search.n", f"{MEM}.search.V",
            "every sequence length n must be at most every |V| (n distinct tokens per sequence)"),
    at_most(f"{MEM}.curve.n", f"{MEM}.curve.V", "n distinct tokens per sequence need n <= V"),
    tokens_fit("theory"),
    tokens_fit("search"),
    tokens_fit("curve"),
    at_most(f"{MEM}.masked.pair_n", f"{MEM}.masked.pair_V",
            "a prefix segment pair's n distinct tokens come from pair_V (n <= pair_V)"),
    Relation((f"{MEM}.n_classes",), _two_classes),
    Relation((f"{UA}.lemma6.inv_delta", f"{UA}.lemma6.d", f"{UA}.lemma6.n", f"{UA}.grid_budget"),
             _some_grid),
    Relation(tuple(f"{UA}.sparse_mapping.{k}" for k in ("inv_delta", "d", "n", "grid_budget")),
             _some_grid),
    Relation(tuple(f"{UA}.regression.{k}" for k in ("d", "degree", "n_train")), _least_squares),
    Relation(tuple(f"{UA}.{k}" for k in ("approximation.inv_delta", "approximation.n",
                                         "approximation.d", "approximation.inv_delta_max",
                                         "approximation.memorization_budget",
                                         "approximation.certificate_budget")),
             _approximation_tables),
    *(two_windows(f"{TM}.{family}")
      for family in ("memorization", "heads_rank", "width_search", "copy", "sparsity", "hybrid",
                     "capacity")),
    at_most(f"{TM}.capacity.batch", f"{TM}.capacity.N",
            "a minibatch holds at most the smallest training set's N sentences"),
    Relation(tuple(f"{TM}.capacity.{k}" for k in ("N", "pairs", "n", "V", "d")), _capacity_pairs),
    segment_pairs(f"{TM}.memorization"),
    segment_pairs(f"{TM}.heads_rank"),
    segment_pairs(f"{TM}.masked", f"{TM}.masked.n"),
    at_most(f"{TM}.masked.n", f"{TM}.memorization.vocab_size",
            "a prefix segment pair's n distinct tokens come from the vocabulary"),
    Relation((f"{TM}.masked.arms",), _masked_controls),
    token_sets(f"{TM}.width_search.N", f"{TM}.memorization"),
    at_most(f"{TM}.heads_rank.head_sizes", f"{TM}.memorization.d",
            "a head's rank cannot exceed the token dimension d"),
    multiple_of(f"{TM}.copy"),
    multiple_of(f"{TM}.hybrid"),
    Relation((f"{TM}.hybrid.recall_kernels",), _odd_kernels),
    Relation((f"{TM}.hybrid.count_kernels",), _odd_kernels),
    Relation((f"{TM}.hybrid.recall_alternatives", f"{TM}.hybrid.count_kernels"), _some_hybrid),
    Relation((f"{TM}.hybrid.attention_layers", f"{TM}.hybrid.depth"), _hybrid_ends),
    Relation((f"{TM}.hybrid.n", f"{TM}.hybrid.recall_vocab", f"{TM}.hybrid.recall_alternatives"),
             _recall_keys),
    Relation((f"{TM}.sparsity.levels", f"{TM}.sparsity.n"), _levels_fit),
    Relation((f"{TM}.sparsity.tasks", f"{TM}.sparsity.n", f"{TM}.sparsity.recall_vocab"),
             _sweep_recall_keys),
    Relation(tuple(f"{TM}.{k}" for k in ("sparsity.configurations", "sparsity.patterns",
                                         "sparsity.levels", "sparsity.n", "copy.heads")),
             _split_heads),
    Relation((f"{TM}.star_relay.d_models", f"{TM}.copy.heads"), _heads_divide),
    Relation((f"{TM}.heads_rank.heads", f"{TM}.heads_rank.head_sizes", f"{TM}.heads_rank.full_rank",
              f"{TM}.memorization.d"), _ablation),
    Relation((f"{TM}.memorization.d", f"{TM}.memorization.vocab_size", f"{TM}.memorization.pairs",
              f"{TM}.heads_rank.pairs", f"{TM}.masked.pairs"), _line_fits),
]


def schema_relations(schema: dict, path: tuple[str, ...] = ()) -> list[Relation]:
    """The relations declared in the schema with ``x-at-most`` and ``x-increasing``."""
    found = []
    for key, prop in schema.get("properties", {}).items():
        where = ".".join((*path, key))
        other = prop.get("x-at-most")
        if other is not None:
            found.append(at_most(where, ".".join((*path, other)), f"{key} must be at most {other}"))
        if prop.get("x-increasing"):
            found.append(Relation((where,), _increasing))
        if prop.get("type") == "object":
            found += schema_relations(prop, (*path, key))
    return found


def _increasing(values):
    if all(b > a for a, b in zip(values, values[1:], strict=False)):
        return None
    return "allowed: a strictly increasing list"


def _overlaps(key: str, bad: str) -> bool:
    """Whether the dotted paths ``key`` and ``bad`` are the same, or one lies inside the other."""
    return key == bad or key.startswith(bad + ".") or bad.startswith(key + ".")


def check_relations(config: dict, relations: Iterable[Relation],
                    bad: set[str]) -> list[tuple[tuple[str, ...], str]]:
    """``(keys, message)`` of every relation that fails on ``config``, skipping those that read a
    key in ``bad`` (dotted paths that already have a problem of their own)."""
    problems = []
    for relation in relations:
        if any(_overlaps(key, b) for key in relation.keys for b in bad):
            continue
        message = relation.problem(config)
        if message is not None:
            problems.append((relation.keys, message))
    return problems
