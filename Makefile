# make demo   set up .venv, compile the bundled example model into a bundle, run it and verify it
# make test   set up .venv and run the lit and pytest suites (what CI runs)
# make lock   re-resolve requirements.lock to the newest versions pyproject.toml allows
# make conformance   run every ONNX backend node test case through both paths (over 2 cores)
# make conformance-update   run them and rewrite the expected-failure list and the counts
# make fuzz   a longer fuzzing search (test/fuzz) with a new seed: FUZZ_SCALE times the
#             inputs of make test's fixed corpus; FUZZ_SEED=N replays a search
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
LOCK := requirements.lock
UV_VERSION := 0.13.9
EXAMPLE := examples/mnist.onnx
DEMO := build/demo

.PHONY: demo test lock lit pytest test-slow conformance conformance-update fuzz bench regenerate clean cross-tools

# The development environment is exactly the lock (every package, hashes checked), made anew
# whenever the lock or pyproject.toml changes; the project itself goes in editable.
$(INSTALLED): pyproject.toml $(LOCK)
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# A deliberate refresh: the newest versions pyproject.toml's ranges admit, for every
# platform and Python >= 3.11, with hashes. uv is pinned and kept out of the project's venv.
lock:
	$(PYTHON) -m venv build/uv
	build/uv/bin/python -m pip install --quiet uv==$(UV_VERSION)
	build/uv/bin/uv pip compile pyproject.toml --extra test --universal --python-version 3.11 --upgrade \
		--generate-hashes --custom-compile-command "make lock" --quiet -o $(LOCK)

demo: $(INSTALLED)
	mkdir -p $(DEMO)
	$(BIN)/mrvl-compile $(EXAMPLE) -o $(DEMO)/mnist.tar --num-tiles 4
	$(BIN)/mrvl-run $(DEMO)/mnist.tar --outputs $(DEMO)/predict.npz --verify $(EXAMPLE)

test: cross-tools lit pytest

# The aarch64 cross compiler and qemu-user, from Debian's packages, for the tests that build
# the generated C for the Neoverse-N2 host and run it (test/test_cross_compile.py), llvm-19,
# whose llvm-mca models the N2's pipelines (benchmarks/n2_mca.py), and chromium, whose
# headless mode renders the HTML report (test/test_report_html.py), and Open MPI, whose mpirun
# runs a pipeline archive's stages (test/test_pipeline_run.py). Installed only as root
# with apt-get; anywhere else those tests are skipped.
CROSS_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user llvm-19 chromium openmpi-bin libopenmpi-dev
cross-tools:
	@if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null && \
	  command -v llvm-mca-19 >/dev/null && command -v mpirun >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing $(CROSS_PACKAGES) (apt-get)"; \
	  { apt-get install -y -qq --no-install-recommends $(CROSS_PACKAGES) >/dev/null 2>&1 || \
	    { apt-get update -qq >/dev/null 2>&1 && \
	      apt-get install -y -qq --no-install-recommends $(CROSS_PACKAGES) >/dev/null 2>&1; }; } || \
	  echo "note: could not install $(CROSS_PACKAGES); the tests that need them will be skipped"; \
	else echo "note: no aarch64-linux-gnu-gcc / qemu-aarch64 / llvm-mca-19 / mpirun (install $(CROSS_PACKAGES)); the tests that need them will be skipped"; fi

# The project's bytecode, written before the suites: the tests start the tools afresh, and
# where PYTHONDONTWRITEBYTECODE is set every start would compile every module again (about
# 0.25 s of CPU a call). compileall writes only what changed since.
SOURCES := mrvl mrvl_dialect target frontend passes backend

lit: $(INSTALLED)
	$(BIN)/python -m compileall -q $(SOURCES)
	$(BIN)/lit -sv test/filecheck

# The two pytest-xdist workers share what they build (test/conftest.py's session_dir, under
# locks), so any test can go to either.
pytest: $(INSTALLED)
	$(BIN)/python -m compileall -q $(SOURCES)
	$(BIN)/python -m pytest -q -n 2

test-slow: $(INSTALLED)
	$(BIN)/python -m pytest -q -m slow

conformance: $(INSTALLED)
	$(BIN)/python -m pytest -q -m '' -n 2 test/conformance

conformance-update: $(INSTALLED)
	$(BIN)/python test/conformance/update.py

FUZZ_SCALE ?= 20
FUZZ_SEED ?= $(shell date +%s)
fuzz: $(INSTALLED)
	@echo "fuzz: scale $(FUZZ_SCALE), seed $(FUZZ_SEED) (replay: make fuzz FUZZ_SEED=$(FUZZ_SEED))"
	MRVL_FUZZ_SCALE=$(FUZZ_SCALE) MRVL_FUZZ_SEED=$(FUZZ_SEED) $(BIN)/python -m pytest -q -n 2 -p no:cacheprovider \
		test/fuzz --hypothesis-seed=$(FUZZ_SEED)

# Compile times are ratios to the compiler at git ref AGAINST, timed in the same run
# (benchmarks/checkouts.py): seconds do not carry between machines. Default: main before issue 28.
AGAINST ?= 840c1df
# Host glue of partitioned models: ratios to main before issue 29, profiled in the same run.
GLUE_AGAINST ?= 3ee5481
bench: $(INSTALLED)
	$(BIN)/python benchmarks/resnet50_compile.py
	$(BIN)/python benchmarks/compile_resnet50.py --against $(AGAINST)
	$(BIN)/python benchmarks/consts_json.py
	$(BIN)/python benchmarks/conv_chain.py --against $(AGAINST)
	$(BIN)/python benchmarks/host_c_vs_onnxruntime.py --baseline
	@if command -v aarch64-linux-gnu-gcc >/dev/null && command -v llvm-mca-19 >/dev/null; then \
	  $(BIN)/python benchmarks/n2_mca.py; else echo "note: no llvm-mca-19; benchmarks/n2_mca.py skipped"; fi
	@if [ "$$(uname -m)" = x86_64 ] && command -v llvm-mca-19 >/dev/null; then \
	  $(BIN)/python benchmarks/n2_mca.py --x86; else echo "note: not x86-64 or no llvm-mca-19; n2_mca.py --x86 skipped"; fi
	$(BIN)/python benchmarks/host_glue.py --against $(GLUE_AGAINST)

# Regenerate committed generated files (a test fails while they are stale).
regenerate: $(INSTALLED)
	$(BIN)/python -m mrvl_dialect.gen_graph_ops
	$(BIN)/python scripts/supported_ops_doc.py
	$(BIN)/python examples/zoo.py --example

clean:
	rm -rf $(VENV) build *.egg-info
