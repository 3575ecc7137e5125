# The two commands a new user needs: `make paper` builds paper/main.pdf; `make test` runs the tests.
# Both install what they need on first use (see envs/setup.sh).
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: paper test setup latex trials lock clean-analysis

$(BIN)/.setup-done: envs/requirements.lock pyproject.toml envs/setup.sh envs/install_llamacpp.sh
	bash envs/setup.sh
	touch $@

setup: $(BIN)/.setup-done

latex: setup
	bash envs/setup.sh --latex

paper: latex
	$(BIN)/snakemake paper --cores $(CORES)

test: latex
	$(BIN)/slmbench models fetch smollm2-135m
	$(BIN)/ruff check code tests bench
	$(BIN)/mypy
	$(BIN)/python envs/lint_rules.py
	$(BIN)/python -m pytest -q
	$(BIN)/snakemake verify --cores $(CORES)

trials: setup
	$(BIN)/slmbench models fetch
	$(BIN)/snakemake trials --cores $(CORES)

lock:
	$(BIN)/pip freeze --exclude-editable | grep -v -e '^llama.cpp.python' -e '^slmbench' > envs/requirements.lock
