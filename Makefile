# The two commands a new user needs: `make paper` builds paper/main.pdf; `make test` runs the tests.
# `make site` builds the reviewer's audit site (site/index.html) that the PDF's numbers link to.
# Both install what they need on first use (see envs/setup.sh).
VENV := .venv
BIN := $(VENV)/bin
CORES ?= $(shell nproc)
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: paper site test test-browser test-served llama-server setup latex browser trials lock clean-analysis slurm-test slurm-plumbing

# The system packages a target needs install beside the Python set-up (apt downloads while llama.cpp compiles).
paper: SYSTEM = --latex
test: SYSTEM = --latex --browser
$(BIN)/.setup-done: envs/requirements.lock pyproject.toml envs/setup.sh envs/system_packages.sh envs/install_llamacpp.sh code/slmbench/backends/llamacpp_build.py
	bash envs/setup.sh $(SYSTEM)
	touch $@

setup: $(BIN)/.setup-done

latex: setup
	bash envs/setup.sh --latex

browser: setup
	bash envs/setup.sh --browser

paper: latex
	$(BIN)/snakemake paper --cores $(CORES)

site: setup
	$(BIN)/snakemake site --cores $(CORES)

test: latex browser
	$(BIN)/slmbench models fetch smollm2-135m qwen2.5-coder-1.5b
	$(BIN)/ruff check code tests bench
	$(BIN)/ruff format --check code tests bench
	$(BIN)/mypy
	$(BIN)/python envs/lint_rules.py
	$(BIN)/python -m pytest -q -n $(CORES) --dist loadfile -m "not model" --durations=25
	$(BIN)/python -m pytest -q -m model --durations=10

test-browser: browser
	$(BIN)/python -m pytest -q tests/integration/test_site_browser.py

# llama.cpp's own server, built once from the llama.cpp that the pinned llama-cpp-python vendors (minutes; cached
# under ~/.cache/slmbench/llama-server/<version>/); the served tests run the openai backend against it.
llama-server: setup
	nice -n 10 bash envs/build_llama_server.sh

test-served: llama-server
	$(BIN)/slmbench models fetch smollm2-135m
	$(BIN)/python -m pytest -q tests/unit/backends/test_openai_backend.py tests/unit/run/test_backend_faults.py \
	  tests/integration/test_served.py

trials: setup
	$(BIN)/slmbench models fetch
	$(BIN)/snakemake trials --cores $(CORES)

# The cluster path (docs/cluster.md): Debian's slurm-wlm and munge, a private single-node SLURM started and
# stopped by the target (envs/slurm_local.sh), the smoke study's trials and paper through profiles/slurm-noacct
# under a hard timeout, then the records checked (envs/slurm_test.sh). Root (apt-get, slurmd).
slurm-test: latex
	$(BIN)/slmbench models fetch smollm2-135m
	bash envs/slurm_local.sh install
	SLMBENCH_PYTHON=$(abspath $(BIN))/python bash envs/slurm_test.sh

# The same cluster with one trivial job and no model: seconds.
slurm-plumbing: setup
	bash envs/slurm_local.sh install
	SLMBENCH_PYTHON=$(abspath $(BIN))/python bash envs/slurm_test.sh --plumbing

lock:
	$(BIN)/pip freeze --exclude-editable | grep -v -e '^llama.cpp.python' -e '^slmbench' > envs/requirements.lock
