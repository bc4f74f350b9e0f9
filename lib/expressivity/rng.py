"""Seeded randomness: one root seed, one independent stream per job.

``generator(root_seed, stage, **keys)`` derives a ``numpy.random.Generator`` from a stable hash of
the stage name and the job's keys (its wildcards and trial index). The stream does not depend on the
order in which jobs run or on ``--cores``, so the same config gives the same bytes out.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from expressivity.arguments import integer


def stream_key(stage: str, **keys: object) -> int:
    """A 128-bit integer from the SHA-256 of ``[stage, sorted(keys)]`` written as canonical JSON."""
    text = json.dumps([stage, sorted((str(k), str(v)) for k, v in keys.items())])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")


def generator(root_seed: int, stage: str, **keys: object) -> np.random.Generator:
    """An independent PCG64 generator for (root_seed, stage, keys)."""
    seq = np.random.SeedSequence([integer("root seed", root_seed, 0), stream_key(stage, **keys)])
    return np.random.Generator(np.random.PCG64(seq))
