# Two commands do everything on a machine with Python 3.11+ and pip:
#   make        set up .venv, run the whole workflow (config/config.yaml), write results/report.html
#   make test   set up .venv, run the tests
# Extra Snakemake arguments: make ARGS="--forcerun hvs_theorem1"; another config: make CONFIG=config/ci.yaml
PYTHON ?= python3
VENV ?= .venv
CONFIG ?= config/config.yaml
CORES ?= all
ARGS ?=
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all reproduce report plan test test-cluster artifacts bench lint readme clean lock config-docs device-wheels
all: reproduce

# Every package comes from requirements.lock (versions and sha256 hashes; `make lock` regenerates
# it), then the project itself with no dependencies, built by the locked setuptools.
$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

# Regenerate requirements.lock from pyproject.toml's pins (pip-tools; ARGS=--upgrade moves every
# unpinned dependency to its newest release). torch is written as its public version: pip takes
# the CPU build 2.13.0+cpu from this machine's disk (elsewhere from PyTorch's CPU index, see
# README.md), and the lock holds that file's hash.
lock: $(STAMP)
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe \
		--strip-extras --extra test --no-emit-index-url --no-emit-find-links \
		--output-file requirements.lock $(ARGS) pyproject.toml
	sed -i -E 's/^(torch==[0-9.]+)\+cpu /\1 /' requirements.lock

# The HTML report follows a full run; after a partial run (ARGS given) build it with `make report`.
# The config files are checked first (Snakemake's own message on a missing or malformed file names
# neither file nor line): every problem, with key, file and line, before any job runs.
reproduce: $(STAMP)
	@$(BIN)/python workflow/config_schema.py $(CONFIG)
	@workflow/exclusive.sh $(CONFIG) $(BIN)/snakemake $(ARGS) --cores $(CORES) --configfile $(CONFIG)
	@if [ -z "$(ARGS)" ]; then $(MAKE) --no-print-directory report; fi

# The report is rebuilt only when a figure or table is newer than it.
report: $(STAMP)
	@if [ ! -f results/report.html ] || [ -n "$$(find figures results -newer results/report.html -type f 2>/dev/null | head -n 1)" ]; then \
		workflow/exclusive.sh $(CONFIG) $(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html; \
	else echo "results/report.html is up to date"; fi

# The plan of a clean run of CONFIG before any work: per stage the jobs, the cost models' predicted
# CPU- and GPU-hours, what a cluster is asked for, peak memory, the wall time on one GPU node and
# the longest job; the run's wall time on this machine, on one GPU node and as the SLURM critical
# path; refused when a job is requested over the wall-time cap. After a run, ARGS=--measured
# compares the prediction with each job's measured time.
plan: $(STAMP)
	@$(BIN)/python workflow/config_schema.py $(CONFIG)
	@$(BIN)/python workflow/plan.py $(CONFIG) $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

# Start a single-node SLURM cluster on localhost (apt-get: slurm-wlm, munge) and run config/ci.yaml
# through the SLURM executor; every CSV must equal a local run's byte for byte.
test-cluster: $(STAMP)
	bash tests/cluster/start_slurm.sh
	EXPRESSIVITY_TEST_CLUSTER=1 $(BIN)/python -m pytest tests/cluster $(ARGS)

# dist/expressivity-<commit>.tar.gz: figures, tables, claims, report and a manifest (sha256 of every
# file, the config, package versions, git commit). Verify with: .venv/bin/python workflow/bundle.py verify <archive>
artifacts: $(STAMP)
	$(BIN)/python workflow/bundle.py build --config $(CONFIG)

# The wheels benchmarks/device_check.sh needs on a GPU machine without network (pytest, hypothesis,
# pyyaml and theirs; CPython 3.12 manylinux, pinned and hashed as in requirements.lock), into
# wheels/device: carry that folder with the repository to the GPU machine.
device-wheels: $(STAMP)
	PYTHON=$(BIN)/python benchmarks/device_check.sh wheels

# Wall time and peak memory per stage of a clean run, and a no-op rerun, in a temporary copy:
# results/benchmarks.csv and figures/benchmarks/workflow.png.
bench: $(STAMP)
	$(BIN)/python benchmarks/workflow.py --config $(CONFIG) --csv results/benchmarks.csv --figure figures/benchmarks/workflow.png

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint --configfile config/ci.yaml
	$(BIN)/snakefmt --check Snakefile workflow
	$(BIN)/zizmor --offline .github/workflows

# Regenerate config/README.md (every config key) from the schema's descriptions.
config-docs: $(STAMP)
	$(BIN)/python workflow/config_docs.py --write

# Regenerate the README's table of claims from the registry.
readme: $(STAMP)
	$(BIN)/python tests/readme_claims.py --write

clean:
	rm -rf results logs .snakemake dist figures/*/
