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

.PHONY: all reproduce report test test-cluster artifacts bench lint readme clean
all: reproduce

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

# The HTML report follows a full run; after a partial run (ARGS given) build it with `make report`.
reproduce: $(STAMP)
	$(BIN)/snakemake $(ARGS) --cores $(CORES) --configfile $(CONFIG)
	@if [ -z "$(ARGS)" ]; then $(MAKE) --no-print-directory report; fi

# The report is rebuilt only when a figure or table is newer than it.
report: $(STAMP)
	@if [ ! -f results/report.html ] || [ -n "$$(find figures results -newer results/report.html -type f 2>/dev/null | head -n 1)" ]; then \
		$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html; \
	else echo "results/report.html is up to date"; fi

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

# Wall time and peak memory per stage of a clean run, and a no-op rerun, in a temporary copy:
# results/benchmarks.csv and figures/benchmarks/workflow.png.
bench: $(STAMP)
	$(BIN)/python benchmarks/workflow.py --config $(CONFIG) --csv results/benchmarks.csv --figure figures/benchmarks/workflow.png

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint --configfile config/ci.yaml

# Regenerate the README's table of claims from the registry.
readme: $(STAMP)
	$(BIN)/python tests/readme_claims.py --write

clean:
	rm -rf results logs .snakemake dist figures/*/
