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

.PHONY: all reproduce report test lint readme clean
all: reproduce

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

reproduce: $(STAMP)
	$(BIN)/snakemake $(ARGS) --cores $(CORES) --configfile $(CONFIG)
	@$(MAKE) --no-print-directory report

# The report is rebuilt only when a figure or table is newer than it.
report: $(STAMP)
	@if [ ! -f results/report.html ] || [ -n "$$(find figures results -newer results/report.html -type f 2>/dev/null | head -n 1)" ]; then \
		$(BIN)/snakemake --cores 1 --configfile $(CONFIG) --report results/report.html; \
	else echo "results/report.html is up to date"; fi

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint --configfile config/ci.yaml

# Regenerate the README's table of claims from the registry.
readme: $(STAMP)
	$(BIN)/python tests/readme_claims.py --write

clean:
	rm -rf results figures logs .snakemake
