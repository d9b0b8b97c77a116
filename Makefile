# Two entry points for a fresh machine with python3 and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
JS_BOT := sample_bots/js_bot

.PHONY: demo test bench setup sandbox browser proto clean

demo: $(STAMP) sandbox
	$(BIN)/seka-arena run tournaments/demo.yaml

test: $(STAMP) $(JS_BOT)/node_modules/.installed sandbox browser
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The benchmark suite (docs/benchmarks.md), from this checkout: make bench ARGS="--quick --json bench.json"
bench: $(STAMP)
	$(BIN)/python -m benchmarks $(ARGS)

setup: $(STAMP)

# Isolation level `sandbox`, the default where the machine provides it, runs bots under bubblewrap:
# installed here when missing and root. Elsewhere the arena falls back to `none` and says why.
sandbox:
	@command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) || \
		echo "could not install bubblewrap: bots will run with isolation none (see docs/isolation.md)"

# The report's browser tests drive a real headless Chromium through Selenium and Debian's chromedriver
# (offline: nothing is downloaded at test time). Installed here when missing and root; elsewhere those
# tests are skipped and say why.
browser:
	@(command -v chromium >/dev/null && command -v chromedriver >/dev/null) || [ "$$(id -u)" != 0 ] || \
		! command -v apt-get >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null) || \
		echo "could not install chromium and chromium-driver: the browser tests will be skipped"

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
