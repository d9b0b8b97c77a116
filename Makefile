# Two entry points for a fresh machine with python3 and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
JS_BOT := sample_bots/js_bot

.PHONY: demo test bench setup proto clean

demo: $(STAMP)
	$(BIN)/seka-arena run tournaments/demo.yaml

test: $(STAMP) $(JS_BOT)/node_modules/.installed
	@# Isolation level `sandbox` (tests/hostile) runs bots under bubblewrap: install it when missing and root.
	@command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The benchmark suite (docs/benchmarks.md), from this checkout: make bench ARGS="--quick --json bench.json"
bench: $(STAMP)
	$(BIN)/python -m benchmarks $(ARGS)

setup: $(STAMP)

$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

$(JS_BOT)/node_modules/.installed: $(JS_BOT)/package.json
	cd $(JS_BOT) && npm install --no-audit --no-fund --loglevel=error
	touch $@

# Regenerate the Python gRPC code from protos/ (the generated files are committed).
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iarena/_proto=protos --python_out=. --grpc_python_out=. --pyi_out=. \
		arena/_proto/seka/v1/seka.proto

clean:
	rm -rf $(VENV) $(JS_BOT)/node_modules
