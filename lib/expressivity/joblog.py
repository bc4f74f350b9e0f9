"""A workflow job's log and its progress lines.

Every workflow script starts with ``log = job_log(snakemake)``: from then on the job's log file
(``log:`` of its rule) receives a start line with the job's wildcards and parameters, everything
written to stderr or through :mod:`logging` (warnings included), the traceback of an error that
ends the job, and an end line with the elapsed time and the process's CPU time
(``done <rule> in 41 s, CPU 35.2 s``; ``logged_cpu_seconds`` reads it back). Snakemake's benchmark
records sample the CPU time, every 0.5 s for the first 15 s and then every 30 s, so they miss up to
30 s at a job's end (a 41 s job recorded 14 s of its 35); the log's line is the process's own
count at its exit. Snakemake's ``show-failed-logs`` then prints a
failed job's traceback, and under SLURM, where nobody watches the console, the log holds it.

Long loops report through :class:`Progress`: plain lines (no carriage returns, readable with
``tail -f``), at most one every ``min_seconds`` or every ``min_fraction`` of the work, each with
done/total, the elapsed and the estimated remaining time.
"""

from __future__ import annotations

import atexit
import logging
import re
import resource
import sys
import time
import traceback
from typing import TextIO

_FORMAT = "%(asctime)s %(levelname)s %(message)s"


def _duration(seconds: float) -> str:
    """``"42 s"``, ``"3.5 min"`` or ``"2.1 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def cpu_seconds() -> float:
    """User and system CPU seconds of this process (all its threads) and of its waited-for
    children, from its start."""
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


#: The end line's CPU time, as ``job_log`` writes it.
_CPU_LINE = re.compile(r" INFO done \S+ in [^,\n]+, CPU ([0-9.]+) s$", re.M)


def logged_cpu_seconds(text: str) -> float | None:
    """The CPU seconds of the end line of a job's log ``text`` (None without one: a failed, killed
    or running job, or a log written before the line had its CPU time)."""
    found = _CPU_LINE.findall(text)
    return float(found[-1]) if found else None


def job_log(snakemake, name: str = "job") -> logging.Logger:
    """Send this job's messages, warnings and any final traceback to its first log file.

    ``snakemake`` is the object Snakemake hands to a script; a script whose rule declares no log
    keeps logging to stderr. Returns the logger to write progress and results to."""
    start = time.perf_counter()
    stream: TextIO = sys.stderr
    if snakemake.log:
        stream = open(snakemake.log[0], "w", buffering=1)
        sys.stderr = stream
    logging.basicConfig(stream=stream, level=logging.INFO, format=_FORMAT, force=True)
    logging.captureWarnings(True)
    log = logging.getLogger(name)
    rule = getattr(snakemake, "rule", "?")
    wildcards = dict(snakemake.wildcards.items()) if snakemake.wildcards else {}
    params = dict(snakemake.params.items()) if snakemake.params else {}
    log.info("start %s %s params %s", rule, wildcards, params)
    failed = []

    def on_error(kind, value, tb):
        failed.append(kind)
        log.error("failed after %s:\n%s", _duration(time.perf_counter() - start),
                  "".join(traceback.format_exception(kind, value, tb)).rstrip())
        if stream is not sys.__stderr__:
            sys.__stderr__.write(f"{rule}: {kind.__name__}: {value} (traceback in "
                                 f"{snakemake.log[0]})\n")

    def on_exit():
        if not failed:
            log.info("done %s in %s, CPU %.1f s", rule, _duration(time.perf_counter() - start),
                     cpu_seconds())
        logging.shutdown()

    sys.excepthook = on_error
    atexit.register(on_exit)
    return log


class Progress:
    """Progress lines of a loop of ``total`` units of work with elapsed and remaining time.

    ``update(done)`` writes a line when at least ``min_seconds`` have passed since the last one or
    the work advanced by ``min_fraction`` of the total, and always at the end. The remaining time
    assumes the rate so far (units of work may be weighted, e.g. by their flops)."""

    def __init__(self, log: logging.Logger, what: str, total: float, *, min_seconds: float = 30,
                 min_fraction: float = 0.05):
        if not total > 0:
            raise ValueError(f"Progress of {what!r}: total must be > 0, got {total!r}")
        self.log, self.what, self.total = log, what, float(total)
        self.min_seconds, self.min_fraction = min_seconds, min_fraction
        self.start = self.last_time = time.perf_counter()
        self.last_done = 0.0

    def update(self, done: float, **values: object) -> None:
        now = time.perf_counter()
        due = (now - self.last_time >= self.min_seconds
               or done - self.last_done >= self.min_fraction * self.total or done >= self.total)
        if not due:
            return
        self.last_time, self.last_done = now, done
        elapsed = now - self.start
        remaining = elapsed * (self.total - done) / done if done > 0 else float("nan")
        extra = "".join(f" {k}={v:.4g}" if isinstance(v, float) else f" {k}={v}"
                        for k, v in values.items())
        eta = _duration(remaining) if remaining == remaining else "unknown"
        self.log.info("%s: %g/%g (%.0f%%) elapsed %s, remaining %s%s", self.what, done, self.total,
                      100 * done / self.total, _duration(elapsed), eta, extra)
