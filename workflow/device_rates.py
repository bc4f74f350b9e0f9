"""The measured rates of GPUs that plan the jobs able to use one: ``benchmarks/device_rates.csv``.

One row per measurement: the device (as torch names it), the date, the quantity, its value and
unit, what was measured and by what. ``benchmarks/device_check.sh`` appends the rows of a GPU it
ran on; the rows seeded by hand say where their figures came from. The plan (``make plan``) and the
rules (which jobs of ``device: auto`` go to the GPU, and their predicted time) take, for the GPU
the config names (``node.gpu``, matched in the device's name), the latest value of each quantity.

Quantities (``QUANTITIES``): a GPU job's start (process, imports, CUDA context, first kernels,
until its first trial); a sweep trial's fixed seconds and the search's rate at large n (``2 n^2
d_max`` flops per second, checks included); seconds per training step, the seeds side by side
(one encoder layer; one full-batch memorization epoch; one minibatch step of the capacity
experiment); and, for the record, a plain float64 product's rate on the same device, against which
the search's is judged.
"""

from __future__ import annotations

import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "benchmarks" / "device_rates.csv"
#: The ``source`` of the rows the device check measures.
CHECK = "benchmarks/device_check.sh"
COLUMNS = ("device", "date", "quantity", "value", "unit", "measured", "source")
#: quantity: (unit, meaning); those in ``PLANNING`` plan jobs, the others are recorded beside them.
QUANTITIES = {
    "gpu_job_start_s": ("s", "a GPU job's start until its first trial or step"),
    "sweep_trial_fixed_s": ("s", "one sweep trial's seconds beyond its products"),
    "search_kernel_flops": ("FLOP/s", "the torch search's rate (2 n^2 d_max flops per second)"),
    "encoder_layer_step_s": ("s", "one Adam step of one encoder layer, seeds side by side"),
    "memorization_step_s": ("s", "one full-batch memorization epoch, seeds side by side"),
    "minibatch_step_s": ("s", "one minibatch memorization step (capacity), seeds side by side"),
    "plain_fp64_flops": ("FLOP/s", "a plain float64 product of the same shape"),
}
#: Quantities a plan needs.
PLANNING = ("gpu_job_start_s", "sweep_trial_fixed_s", "search_kernel_flops",
            "encoder_layer_step_s", "memorization_step_s", "minibatch_step_s")


def read(path: Path = TABLE) -> list[dict]:
    """Every row of the table, values as floats; a row with an unknown quantity is refused."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for i, row in enumerate(rows, start=2):
        if row.get("quantity") not in QUANTITIES:
            raise ValueError(f"{path}, line {i}: unknown quantity {row.get('quantity')!r}; "
                             f"known: {', '.join(QUANTITIES)}")
        row["value"] = float(row["value"])
    return rows


def _newer(row: dict, than: dict) -> bool:
    """Whether ``row`` supersedes ``than``: a later date, or on the same date a measurement by the
    device check over a figure seeded by hand (then the later row of the table)."""
    def rank(r):
        return r["date"], r["source"] == CHECK
    return rank(row) >= rank(than)


def rates(gpu: str, path: Path = TABLE) -> dict[str, dict]:
    """``{quantity: row}``: the latest row of each quantity for the devices whose name contains
    ``gpu`` (case-insensitive). Refused, naming what is there, when a planning quantity is missing."""
    chosen: dict[str, dict] = {}
    for row in read(path):
        if gpu.lower() in row["device"].lower():
            if row["quantity"] not in chosen or _newer(row, chosen[row["quantity"]]):
                chosen[row["quantity"]] = row
    missing = [q for q in PLANNING if q not in chosen]
    if missing:
        devices = sorted({row["device"] for row in read(path)})
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        raise ValueError(f"{where} has no {', '.join(missing)} for a device named "
                         f"like {gpu!r} (node.gpu in the config); devices there: "
                         f"{', '.join(devices)}")
    return chosen


def write(rows: list[dict], path: Path = TABLE) -> None:
    """Add ``rows`` to the table, replacing any row of the same device, date and quantity."""
    new = {(r["device"], r["date"], r["quantity"]): r for r in rows}
    kept = [r for r in read(path) if (r["device"], r["date"], r["quantity"]) not in new]
    out = sorted(kept + list(new.values()), key=lambda r: (r["device"], r["date"], r["quantity"]))
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in out:
            writer.writerow({**row, "value": f"{float(row['value']):.6g}"})
    tmp.replace(path)
