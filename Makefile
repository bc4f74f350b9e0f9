# Two commands do everything on a Linux x86_64 machine with CPython 3.11 and pip:
#   make        set up .venv, run the whole workflow (config/config.yaml), write results/report.html
#   make test   set up .venv, run the tests
# Extra Snakemake arguments: make ARGS="--forcerun hvs_theorem1"; another config: make CONFIG=config/ci.yaml
PYTHON ?= $(shell command -v python3.11 || echo python3)
VENV ?= .venv
CONFIG ?= config/config.yaml
CORES ?= all
ARGS ?=
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# torch's CPU build, locked apart (requirements-torch.lock): pip's own configuration is asked first,
# TORCH_INDEX only when that does not have the locked file (PyPI's torch 2.13.0 is a CUDA build).
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_LOCK ?= requirements-torch.lock
TORCH_STAMP := $(VENV)/.torch

.PHONY: all reproduce paper release report plan test test-cluster artifacts bench bench-clone record lint readme clean lock config-docs device-wheels
all: reproduce

# The virtual environment, from a CPython 3.11: requirements.lock is resolved for it (its wheels
# are cp311 or pure Python; other versions are refused here rather than half-installed).
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || { \
		echo "make: requirements.lock is resolved for CPython 3.11 (Linux x86_64), and PYTHON=$(PYTHON)" \
			"is $$($(PYTHON) -V 2>&1 || echo missing); install Python 3.11 and run make PYTHON=/path/to/python3.11" >&2; \
		exit 1; }
	$(PYTHON) -m venv $(VENV)

# torch alone, without dependencies (they are in requirements.lock): the locked CPU wheel from
# wherever pip's own configuration finds it (an index, --find-links, PIP_FIND_LINKS), else from
# TORCH_INDEX alone (so an unreachable extra index never slows the other packages down).
$(TORCH_STAMP): $(TORCH_LOCK) | $(BIN)/python
	@$(BIN)/python -m pip install --quiet --no-deps -r $(TORCH_LOCK) 2>$(VENV)/torch-install.log || { \
		echo "torch: the locked CPU wheel is not where pip looks by default; trying $(TORCH_INDEX)"; \
		$(BIN)/python -m pip install --quiet --no-deps --retries 1 --timeout 30 \
			--index-url $(TORCH_INDEX) -r $(TORCH_LOCK) 2>>$(VENV)/torch-install.log; } || { \
		echo "make: the torch wheel that $(TORCH_LOCK) locks (its name, version and sha256) was found" \
			"neither by pip's configuration nor at TORCH_INDEX=$(TORCH_INDEX); pip's messages are in" \
			"$(VENV)/torch-install.log. Put the wheel in a folder and run PIP_FIND_LINKS=<folder> make," \
			"or point TORCH_INDEX at an index that holds it." >&2; \
		exit 1; }
	@touch $@

# Every other package from requirements.lock (versions and sha256 hashes; `make lock` regenerates
# both lock files), then the project itself with no dependencies, built by the locked setuptools.
$(STAMP): requirements.lock $(TORCH_STAMP) pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $@

# Regenerate the lock from pyproject.toml's pins (pip-tools; ARGS=--upgrade moves every unpinned
# dependency to its newest release), resolved with torch's CPU build (this machine's disk, or
# PIP_EXTRA_INDEX_URL=$(TORCH_INDEX)); torch's entry then moves to $(TORCH_LOCK).
lock: $(STAMP)
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe \
		--strip-extras --extra test --no-emit-index-url --no-emit-find-links \
		--output-file requirements.lock $(ARGS) pyproject.toml
	@{ echo "# torch's CPU build, installed by make in a step of its own (Makefile: TORCH_INDEX)."; \
		echo "# Written by make lock from its entry in pip-compile's output; do not edit."; \
		awk '/^[^ #]/ { torch = /^torch==/ } torch' requirements.lock; } > $(TORCH_LOCK)
	@awk '/^[^ #]/ { torch = /^torch==/ } !torch' requirements.lock > requirements.lock.tmp
	@mv requirements.lock.tmp requirements.lock

# The HTML report follows a full run; after a partial run (ARGS given) build it with `make report`.
# The config files are checked first (Snakemake's own message on a missing or malformed file names
# neither file nor line): every problem, with key, file and line, before any job runs.
# The last line printed is this run's claims summary (workflow/last_line.py; none after a dry run,
# a failed run or a partial run with nothing to do).
reproduce: $(STAMP)
	@$(BIN)/python workflow/config_schema.py $(CONFIG)
	@$(BIN)/python workflow/last_line.py before
	@workflow/exclusive.sh $(CONFIG) $(BIN)/snakemake $(ARGS) --cores $(CORES) --configfile $(CONFIG)
	@if [ -z "$(ARGS)" ]; then $(MAKE) --no-print-directory report; fi
	@$(BIN)/python workflow/last_line.py after $(CONFIG) $(if $(ARGS),partial,full)

# One paper's claims across every stage they come from, running only the jobs they need and
# drawing the figures they name: make paper PAPER=kajitsuka2024 (the keys: make paper). Its table
# is results/papers/<key>.csv; the last line is its summary.
PAPER ?=
paper: $(STAMP)
	@$(BIN)/python -m expressivity.claims paper "$(PAPER)"
	@$(MAKE) --no-print-directory reproduce ARGS="results/papers/$(PAPER).csv $(ARGS)"

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

# The suite on one pytest-xdist worker per core the process may use (TEST_WORKERS=0: no workers, in
# pytest's own process). The workflow run that many tests read is built once, by whichever worker
# asks first, and copied by the others (tests/workflow/conftest.py: ci_run).
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 1)
test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(ARGS)

# Start a single-node SLURM cluster on localhost (apt-get: slurm-wlm, munge) and run config/ci.yaml
# through the SLURM executor; every CSV must equal a local run's byte for byte.
test-cluster: $(STAMP)
	bash tests/cluster/start_slurm.sh
	EXPRESSIVITY_TEST_CLUSTER=1 $(BIN)/python -m pytest tests/cluster $(ARGS)

# dist/expressivity-<commit>.tar.gz: figures, tables, claims, report and a manifest (sha256 of every
# file, the config, package versions, git commit). Verify with: .venv/bin/python workflow/bundle.py verify <archive>
artifacts: $(STAMP)
	$(BIN)/python workflow/bundle.py build --config $(CONFIG)

# The wheels benchmarks/device_check.sh needs on a GPU machine without network (pytest,
# hypothesis, pyyaml, python-flint, mpmath and theirs; CPython 3.12 manylinux, pinned and hashed
# as in requirements.lock), into wheels/device: carry that folder with the repository to the GPU
# machine.
device-wheels: $(STAMP)
	PYTHON=$(BIN)/python benchmarks/device_check.sh wheels

# Wall time and peak memory per stage of a clean run, and a no-op rerun, in a temporary copy:
# results/benchmarks.csv and figures/benchmarks/workflow.png; with the default config, also the
# record the README quotes (benchmarks/records.csv; `make readme` then updates the README). Then
# the trained models: ms per step per cell and per seed against the stage before issue 26, and the
# cells and claims whose verdicts change when torch's CPU kernels are forced to
# ATEN_CPU_CAPABILITY=default (the stage twice): results/benchmarks/trained_models_{steps,kernels}.csv.
bench: $(STAMP)
	$(BIN)/python benchmarks/workflow.py --config $(CONFIG) --csv results/benchmarks.csv --figure figures/benchmarks/workflow.png
	$(BIN)/python benchmarks/trained_models.py all --config $(CONFIG) --csv-dir results/benchmarks

# A user's first hour, timed in a fresh clone of HEAD: make (venv and workflow), a no-op make and
# make test, and the default run's stages and summary line, into benchmarks/records.csv.
bench-clone: $(STAMP)
	$(BIN)/python benchmarks/fresh_clone.py $(ARGS)

# After a full default `make` here: its summary line and each stage's compute time, recorded, and
# what the plan predicts for config/paper.yaml (the README's paper-scale numbers).
record: $(STAMP)
	$(BIN)/python benchmarks/records.py record-run
	$(BIN)/python benchmarks/records.py record-plan
	$(BIN)/python benchmarks/records.py readme --write

# A release, after a full default `make` with nothing left to do, on a clean tree: the CHANGELOG's
# Unreleased section becomes VERSION's with the run's summary line, pyproject.toml and CITATION.cff
# follow, one commit, the bundle dist/expressivity-VERSION.tar.gz and the local tag vVERSION
# (`git push origin vVERSION` publishes it: .github/workflows/release.yml).
VERSION ?=
release: $(STAMP)
	@$(BIN)/python workflow/release.py release "$(VERSION)"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint --configfile config/ci.yaml
	$(BIN)/snakefmt --check Snakefile workflow
	$(BIN)/zizmor --offline .github/workflows

# Regenerate config/README.md (every config key) from the schema's descriptions.
config-docs: $(STAMP)
	$(BIN)/python workflow/config_docs.py --write

# Regenerate the README's table of claims and references from the registry, its measured numbers
# from the record (benchmarks/records.csv), and CITATION.cff.
readme: $(STAMP)
	$(BIN)/python tests/readme_claims.py --write
	$(BIN)/python workflow/release.py citation --write
	$(BIN)/python benchmarks/records.py readme --write

clean:
	rm -rf results logs .snakemake dist figures/*/
