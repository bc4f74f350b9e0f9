#!/usr/bin/env bash
# The GPU check anyone with a GPU can rerun (issue 29): two independent halves of a few minutes on
# one H100, each rerunnable alone after a failure; `all` runs both in one call (about 4 minutes on
# one H100; every step is stopped at its time limit, 9 min 10 s in all at most).
#
#   benchmarks/device_check.sh search   [--dry]  # GPU unit tests, kernel rate, a default job's start, CPU/GPU decisions
#   benchmarks/device_check.sh training [--dry]  # a paper-config sweep job against its plan, training steps, CUDA-graph probe
#   benchmarks/device_check.sh all      [--dry]  # both
#   benchmarks/device_check.sh wheels            # here, with network: the wheels the GPU machine lacks
#
# Needs only this repository and the GPU machine's Python (PYTHON, default python3) with torch,
# numpy, scipy and pandas. pytest, hypothesis, pyyaml, python-flint and mpmath (the arb
# certificates the capacity and memorization jobs import) come from the machine when it has them,
# else from wheels/device (`make device-wheels` fetches them beforehand for CPython 3.12
# manylinux, pinned and hashed as in requirements.lock), installed without network into
# .device-site. Snakemake is not needed: the jobs run through the functions the workflow scripts
# call. Figures go to OUT (default device_check_out/): <half>.json, the log of each step, and
# device_rates.csv, benchmarks/device_rates.csv with this GPU's rates of the day added (commit it
# as that file, then `make plan CONFIG=config/paper.yaml` plans from them). --dry runs the same
# steps on the CPU at toy sizes (the plumbing test; its figures mean nothing). OUT receives at
# most 7 files (machine.txt, gpu_unit_tests.log, search.log, search.json, training.log,
# training.json, device_rates.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
half=${1:-all}
dry=${2:-}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-device_check_out}
WHEELS=wheels/device
SITE=.device-site
# the packages the check needs beyond torch, numpy, scipy and pandas, with their dependencies
# (python-flint and mpmath: every stage's job functions import on the GPU machine, e.g. the
# trained-models capacity job's learned separation, certified in arb)
PACKAGES=(pytest pluggy iniconfig packaging hypothesis sortedcontainers attrs pyyaml python-flint mpmath)

if [ "$half" = wheels ]; then
    mkdir -p "$WHEELS"
    pins=$(mktemp)
    # each package's block of requirements.lock: its pin and its hashes
    for name in "${PACKAGES[@]}"; do
        awk -v want="$name" 'BEGIN { IGNORECASE = 1 }
            /^[a-z0-9]/ { keep = (tolower($1) ~ "^" want "==") }
            keep && !/^ *#/' requirements.lock >>"$pins"
    done
    "$PYTHON" -m pip download --quiet --require-hashes --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp --abi cp312 \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux_2_28_x86_64 --dest "$WHEELS" -r "$pins"
    rm -f "$pins"
    du -sh "$WHEELS"
    exit 0
fi
case "$half" in search | training | all) ;; *)
    echo "usage: $0 search|training|all [--dry]  or  $0 wheels" >&2
    exit 2
    ;;
esac
if [ -n "$dry" ] && [ "$dry" != --dry ]; then
    echo "unknown option $dry (only --dry)" >&2
    exit 2
fi

mkdir -p "$OUT"
export PYTHONPATH="$PWD/lib${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if ! "$PYTHON" -c "import pytest, hypothesis, yaml, flint, mpmath" 2>/dev/null; then
    echo "installing ${PACKAGES[*]} from $WHEELS into $SITE (no network)"
    "$PYTHON" -m pip install --quiet --no-index --find-links "$WHEELS" --target "$SITE" "${PACKAGES[@]}"
    export PYTHONPATH="$PYTHONPATH:$PWD/$SITE"
fi
"$PYTHON" - <<'EOF' | tee "$OUT/machine.txt"
import platform, numpy, scipy, pandas, torch
gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
print(f"{platform.node()}: Python {platform.python_version()}, torch {torch.__version__} "
      f"(CUDA {torch.version.cuda}), numpy {numpy.__version__}, scipy {scipy.__version__}, "
      f"pandas {pandas.__version__}; {gpu}; {platform.processor() or platform.machine()}, "
      f"{__import__('os').cpu_count()} CPUs")
EOF
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader \
        | tee -a "$OUT/machine.txt"
fi

step() {  # step NAME LIMIT COMMAND...: run it for LIMIT seconds at most, its output in OUT/NAME.log
    local name=$1 limit=$2 start=$SECONDS
    shift 2
    echo "== $name (at most $limit s)"
    if timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1; then
        echo "   ok in $((SECONDS - start)) s"
        tail -n 25 "$OUT/$name.log"
    else
        echo "   FAILED (or stopped at its limit) after $((SECONDS - start)) s; the end of $OUT/$name.log:"
        tail -n 40 "$OUT/$name.log"
        return 1
    fi
}

status=0
if [ "$half" = all ] || [ "$half" = search ]; then
    # on the CPU (--dry) the GPU tests are collected, not run: the plumbing only
    step gpu_unit_tests 120 "$PYTHON" -m pytest -q -p no:cacheprovider ${dry:+--collect-only} \
        tests/unit/test_torch_search.py tests/unit/test_torch_runtime.py tests/unit/test_training.py \
        tests/unit/test_minibatch_memorization.py \
        || status=1
    step search 210 "$PYTHON" benchmarks/device_check.py search "$OUT" ${dry:+"$dry"} || status=1
fi
if [ "$half" = all ] || [ "$half" = training ]; then
    step training 220 "$PYTHON" benchmarks/device_check.py training "$OUT" ${dry:+"$dry"} || status=1
fi
[ $status -eq 0 ] && echo "device check passed; figures in $OUT" || echo "device check FAILED; see $OUT"
exit $status
