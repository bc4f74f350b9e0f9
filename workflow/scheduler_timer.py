"""The scheduler's re-evaluation timer: one pending at a time, not one more per scheduling round.

Snakemake 9.27's ``JobScheduler`` ends every scheduling round, when a job rate limit is set (always:
the command line's default ``--max-jobs-per-timespan`` is ``100/1s``), with
``_schedule_reevalutation(timespan)``: a ``threading.Timer`` that wakes the scheduler once more
after ``timespan`` seconds. The round that this wake-up starts arms another timer, so every job
that finishes starts a chain of rounds that lasts until the run ends: after ``J`` jobs the
scheduler runs about ``J`` rounds a second, and each round stats the inputs of every ready job
(``update_input_sizes``; our rules name their library modules as inputs). Measured on
``config/ci.yaml`` (152 jobs, 2 cores, 4.7 minutes): 13,803 rounds, of which 151 started a job,
and the scheduler's process busy for most of the run, on a machine whose two cores the jobs need.

``install`` replaces that method: a timer is armed only when none is pending, and a timer marks
itself done before it wakes the scheduler, so the round it starts can arm the next. The rate limit
is re-evaluated within ``timespan`` as Snakemake intends (a pending timer is never dropped), and
rounds otherwise follow the events that change what can run (a job finished, a job failed). The
timer is a daemon thread, so the process exits without waiting for it.
"""

from __future__ import annotations

import threading

from snakemake.scheduling.job_scheduler import JobScheduler

#: The method replaced (its name, misspelt as in Snakemake).
METHOD = "_schedule_reevalutation"
#: Guards every scheduler's pending flag (the scheduler's thread arms, a timer's thread clears).
_LOCK = threading.Lock()


def one_pending_timer(scheduler, delay: float) -> None:
    """Wake ``scheduler`` (release its ``_open_jobs``) after ``delay`` seconds, unless a wake-up
    is already pending."""
    with _LOCK:
        if getattr(scheduler, "_reevaluation_pending", False):
            return
        scheduler._reevaluation_pending = True

    def wake():
        with _LOCK:
            scheduler._reevaluation_pending = False
        scheduler._open_jobs.release()

    timer = threading.Timer(delay, wake)
    timer.daemon = True
    timer.start()


def install() -> None:
    """Replace ``JobScheduler._schedule_reevalutation`` by ``one_pending_timer``; refuse, naming
    the method, when this Snakemake has no such method (a version whose scheduler changed)."""
    if not callable(getattr(JobScheduler, METHOD, None)):
        raise RuntimeError(
            f"snakemake.scheduling.job_scheduler.JobScheduler has no method {METHOD}: this "
            "Snakemake is not the pinned one (requirements.lock); workflow/scheduler_timer.py "
            "replaces that method and must be checked against the new scheduler"
        )
    setattr(JobScheduler, METHOD, one_pending_timer)
