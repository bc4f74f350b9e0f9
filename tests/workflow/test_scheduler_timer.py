"""The scheduler's re-evaluation timer (workflow/scheduler_timer.py): one wake-up pending however
many rounds ask for one, the next armed once it has fired, and a clear refusal where the pinned
Snakemake's method is missing."""

import threading
from types import SimpleNamespace

import pytest
import scheduler_timer
from scheduler_timer import METHOD, install, one_pending_timer
from snakemake.scheduling.job_scheduler import JobScheduler


class Timers:
    """Records the timers armed instead of starting threads; ``fire`` runs the oldest unfired."""

    def __init__(self):
        self.armed = []

    def __call__(self, delay, function):
        timer = SimpleNamespace(delay=delay, function=function, daemon=False, started=False)
        timer.start = lambda: setattr(timer, "started", True)
        self.armed.append(timer)
        return timer

    def fire(self):
        timer = next(t for t in self.armed if t.started and not getattr(t, "fired", False))
        timer.fired = True
        timer.function()


@pytest.fixture
def timers(monkeypatch):
    recorded = Timers()
    monkeypatch.setattr(scheduler_timer.threading, "Timer", recorded)
    return recorded


def test_many_rounds_arm_one_wake_up_and_it_wakes_the_scheduler_once(timers):
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    for _ in range(50):  # fifty rounds, each ending with a re-evaluation
        one_pending_timer(scheduler, 1)
    assert len(timers.armed) == 1
    assert timers.armed[0].started and timers.armed[0].daemon and timers.armed[0].delay == 1
    timers.fire()
    assert scheduler._open_jobs.acquire(blocking=False)
    assert not scheduler._open_jobs.acquire(blocking=False)


def test_the_round_a_wake_up_starts_arms_the_next(timers):
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    one_pending_timer(scheduler, 1)
    timers.fire()
    one_pending_timer(scheduler, 1)
    assert [t.started for t in timers.armed] == [True, True]


def test_each_scheduler_has_its_own_pending_wake_up(timers):
    first, second = (SimpleNamespace(_open_jobs=threading.Semaphore(0)) for _ in range(2))
    one_pending_timer(first, 1)
    one_pending_timer(second, 1)
    assert len(timers.armed) == 2


def test_install_replaces_the_pinned_snakemakes_method(monkeypatch):
    monkeypatch.setattr(JobScheduler, METHOD, getattr(JobScheduler, METHOD))
    install()
    assert getattr(JobScheduler, METHOD) is one_pending_timer


def test_install_refuses_a_snakemake_without_the_method(monkeypatch):
    monkeypatch.delattr(JobScheduler, METHOD)
    with pytest.raises(RuntimeError, match=METHOD):
        install()
