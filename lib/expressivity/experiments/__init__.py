"""Which instances we run: the rows of each workflow job, built from the job's wildcards and its
config section (passed by keyword), one module or package per stage.

This layer sits between the mathematics (``expressivity.<object>``, which it imports) and the
claims (``expressivity.claims.<stage>``, which read the tables it produces); the mathematics never
imports it. Workflow scripts, tests and benchmarks call the same functions. A point whose trials
(or cells) are too many for one job is split into chunks of consecutive ones (``trial_chunks``),
whose rows are those of the same trials in one job of all of them.
"""

import math


def trial_chunks(trials: int, trial_seconds: float, job_hours: float) -> list[tuple[int, int]]:
    """Split trials 0..trials-1 into consecutive chunks ``(first, last)`` (inclusive), as few as
    keep each chunk's planned time ``count * trial_seconds`` within ``job_hours`` (a single trial
    longer than that is a chunk of its own), their sizes differing by at most one."""
    if trials < 1 or not trial_seconds >= 0 or not job_hours > 0:
        raise ValueError(f"need trials >= 1, trial_seconds >= 0, job_hours > 0; got {trials}, "
                         f"{trial_seconds}, {job_hours}")
    size = max(1, min(trials, math.floor(job_hours * 3600 / trial_seconds)
                      if trial_seconds > 0 else trials))
    chunks = math.ceil(trials / size)
    bounds = [trials * i // chunks for i in range(chunks + 1)]
    return [(first, last - 1) for first, last in zip(bounds, bounds[1:], strict=False)]
