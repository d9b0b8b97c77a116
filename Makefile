# Two entry points for a fresh machine with python3 and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
JS_BOT := sample_bots/js_bot
GO_BOT := sample_bots/go_bot
GO_BUILD := build/go_bot
GO_PACKAGES := golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev protobuf-compiler \
	protoc-gen-go protoc-gen-go-grpc

.PHONY: demo test bench setup sandbox browser go_bot proto clean

demo: $(STAMP) sandbox
	$(BIN)/seka-arena run tournaments/demo.yaml

test: $(STAMP) $(JS_BOT)/node_modules/.installed sandbox browser go_bot
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo
	$(BIN)/mypy
	$(BIN)/python -m pytest --durations=25

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

# The Go sample bot, built offline from Debian's packages (installed here when missing and root):
# protoc generates the protocol's code into a GOPATH of its own, and `go build` finds grpc-go and
# protobuf in Debian's /usr/share/gocode (GOPATH mode: no module is downloaded). docs/protocol.md.
go_bot: $(GO_BOT)/go_bot

$(GO_BOT)/go_bot: $(GO_BOT)/main.go $(GO_BOT)/hands.go protos/seka/v1/seka.proto
	@(command -v go && command -v protoc && command -v protoc-gen-go-grpc && \
		[ -d /usr/share/gocode/src/google.golang.org/grpc ] && \
		[ -d /usr/share/gocode/src/github.com/golang/protobuf ]) >/dev/null || [ "$$(id -u)" != 0 ] || \
		! command -v apt-get >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $(GO_PACKAGES) >/dev/null) || \
		(echo "could not install $(GO_PACKAGES)"; exit 1)
	rm -rf $(GO_BUILD)/gopath && mkdir -p $(GO_BUILD)/gopath/src
	protoc -Iprotos --go_out=$(GO_BUILD)/gopath/src --go-grpc_out=$(GO_BUILD)/gopath/src seka/v1/seka.proto
	cd $(GO_BOT) && GO111MODULE=off GOFLAGS= GOPATH=$(CURDIR)/$(GO_BUILD)/gopath:/usr/share/gocode \
		GOCACHE=$(CURDIR)/$(GO_BUILD)/cache go build -o go_bot .

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
	rm -rf $(VENV) $(JS_BOT)/node_modules $(GO_BUILD) $(GO_BOT)/go_bot
