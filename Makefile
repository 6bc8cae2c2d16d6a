# make demo   set up .venv and run the compiler on the bundled example model
# make test   set up .venv and run the lit and pytest suites (what CI runs)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
EXAMPLE := examples/mnist.onnx

.PHONY: demo test lit pytest test-slow bench regenerate clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(INSTALLED)
	$(BIN)/mrvl-opt $(EXAMPLE) -t summary
	$(BIN)/mrvl-opt $(EXAMPLE) -p mrvl-pipeline
	$(BIN)/mrvl-opt $(EXAMPLE) -p mrvl-pipeline -t placement-report

test: lit pytest

lit: $(INSTALLED)
	$(BIN)/lit -sv test/filecheck

pytest: $(INSTALLED)
	$(BIN)/python -m pytest -q

test-slow: $(INSTALLED)
	$(BIN)/python -m pytest -q -m slow

bench: $(INSTALLED)
	$(BIN)/python benchmarks/resnet50_compile.py
	$(BIN)/python benchmarks/consts_json.py
	$(BIN)/python benchmarks/host_c_vs_onnxruntime.py --native

# Regenerate committed generated files (a test fails while they are stale).
regenerate: $(INSTALLED)
	$(BIN)/python -m mrvl_dialect.gen_graph_ops
	$(BIN)/python -m passes.supported_ops_doc
	$(BIN)/python examples/zoo.py --example

clean:
	rm -rf $(VENV) build *.egg-info
