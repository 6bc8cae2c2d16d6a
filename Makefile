# make demo   set up .venv, compile the bundled example model into a bundle, run it and verify it
# make test   set up .venv and run the lit and pytest suites (what CI runs)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
EXAMPLE := examples/mnist.onnx
DEMO := build/demo

.PHONY: demo test lit pytest test-slow bench regenerate clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(INSTALLED)
	mkdir -p $(DEMO)
	$(BIN)/mrvl-compile $(EXAMPLE) -o $(DEMO)/mnist.tar --num-tiles 4
	$(BIN)/mrvl-run $(DEMO)/mnist.tar --outputs $(DEMO)/predict.npz --verify $(EXAMPLE)

test: lit pytest

lit: $(INSTALLED)
	$(BIN)/lit -sv test/filecheck

pytest: $(INSTALLED)
	$(BIN)/python -m pytest -q

test-slow: $(INSTALLED)
	$(BIN)/python -m pytest -q -m slow

bench: $(INSTALLED)
	$(BIN)/python benchmarks/resnet50_compile.py
	$(BIN)/python benchmarks/compile_resnet50.py
	$(BIN)/python benchmarks/consts_json.py
	$(BIN)/python benchmarks/host_c_vs_onnxruntime.py --native

# Regenerate committed generated files (a test fails while they are stale).
regenerate: $(INSTALLED)
	$(BIN)/python -m mrvl_dialect.gen_graph_ops
	$(BIN)/python -m passes.supported_ops_doc
	$(BIN)/python examples/zoo.py --example

clean:
	rm -rf $(VENV) build *.egg-info
