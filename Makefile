# magi-code: a stdio coding-agent backend. `make demo` runs the main job, `make test` the tests.
GO        ?= go
# The Go release that builds, tests and lints is at least go.mod's toolchain
# line (1.27.3: no known reachable standard-library vulnerability, where
# go1.26.8 had ten; docs/testing.md, Lint). go.mod's go line stays at the
# oldest Go that builds the module (1.26.8), so that plain go commands
# (go vet, go test) work in a clone with an installed Go 1.26.8 that says
# GOTOOLCHAIN=local. The go command takes the toolchain from the module
# proxy when the installed Go is older, also under GOTOOLCHAIN=local, and for
# the tools run as `go run pkg@version`, which read their own go.mod.
# make ... GOTOOLCHAIN=goX.Y.Z on the command line picks another.
GOTOOLCHAIN := $(shell sed -n 's/^toolchain \(go[0-9.]*\)$$/\1/p' go.mod)+auto
export GOTOOLCHAIN
BIN       := bin/magi-code
PKGS      := ./...
FUZZTIME  ?= 30s
GOFLAGS_TEST ?= -race -count=1 -timeout 9m

.PHONY: all build test demo bench bench-ref fuzz fuzz-short lint clean mcp-everything cover redact-rules mutate mutate-edge caseplant

# The reference MCP server from the npm registry, used by the MCP tests when
# node and npm are present (the tests skip with a message otherwise). The
# tests find it in .tools, or install this version there themselves
# (internal/everything), so a plain `go test` runs them too.
EVERYTHING_VERSION := 2026.8.31
EVERYTHING_DIR     := $(CURDIR)/.tools/node_modules/@modelcontextprotocol/server-everything

all: build

# A static, stripped binary: no libc mapping and no symbol table to page in
# (idle RSS about 5 MiB lower; stack traces keep their file:line).
# The linked file is then copied into place, as an installer would: the
# linker writes through a memory mapping, which leaves the file's pages in
# the page cache in a shape that makes every child map about 5 MiB more of
# it (idle RSS 28 MiB instead of 22.6 for the same bytes; see docs/benchmarks.md,
# Start-up and idle memory). The rename keeps running children intact.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(BIN).link ./cmd/magi-code
	cp $(BIN).link $(BIN).new && mv -f $(BIN).new $(BIN) && rm -f $(BIN).link

# Whole-process tests find the binary through MAGI_CODE_BIN.
test: build mcp-everything acp-interop
	MAGI_CODE_BIN=$(CURDIR)/$(BIN) $(GO) test $(GOFLAGS_TEST) $(PKGS)
	$(MAKE) --no-print-directory fuzz-short
	$(GO) vet $(PKGS)
	$(MAKE) --no-print-directory cross

# The CLI, the interactive mode included, must keep building where serve is
# refused (Windows) and on macOS; vet type-checks the tests there too, so a
# test that assumes Unix fails here rather than on someone's Windows box.
.PHONY: cross
cross:
	GOOS=windows GOARCH=amd64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...
	GOOS=windows GOARCH=amd64 $(GO) vet $(PKGS)
	GOOS=darwin GOARCH=arm64 $(GO) vet $(PKGS)

# Coverage of unit and whole-process tests together: the binary is built with
# -cover and run through a wrapper that gives it GOCOVERDIR (a cover build
# prints a warning on stderr without one, and the tests demand an empty
# stderr); the test binaries write to their own directory
# (-test.gocoverdir); `go tool covdata` merges both and prints the figure of
# every package. Not part of make test (no -race, a few minutes).
COVERDIR := $(CURDIR)/.cover
# This module's packages only (-coverpkg names what is instrumented).
COVERPKG := github.com/magi-code/magi-code/...
cover:
	rm -rf $(COVERDIR) && mkdir -p $(COVERDIR)/unit $(COVERDIR)/e2e $(COVERDIR)/merged
	CGO_ENABLED=0 $(GO) build -trimpath -cover -covermode=atomic -coverpkg=$(COVERPKG) -o $(COVERDIR)/magi-code.cover ./cmd/magi-code
	printf '#!/bin/sh\nGOCOVERDIR=%s exec %s "$$@"\n' $(COVERDIR)/e2e $(COVERDIR)/magi-code.cover > $(COVERDIR)/magi-code
	chmod +x $(COVERDIR)/magi-code
	MAGI_CODE_BIN=$(COVERDIR)/magi-code $(GO) test -count=1 -timeout 15m -covermode=atomic -coverpkg=$(COVERPKG) $(PKGS) -args -test.gocoverdir=$(COVERDIR)/unit >$(COVERDIR)/test.log 2>&1; \
	  echo $$? >$(COVERDIR)/test.rc
	$(GO) tool covdata merge -i=$(COVERDIR)/unit,$(COVERDIR)/e2e -o $(COVERDIR)/merged
	$(GO) tool covdata textfmt -i=$(COVERDIR)/merged -o $(COVERDIR)/cover.out
	$(GO) tool covdata percent -i=$(COVERDIR)/merged | sed 's,\t\t\t,\t\t(no statements)\n\t,g' \
	  | sed 's,github.com/magi-code/magi-code/\?,./,' | sort
	@echo "total: $$($(GO) tool cover -func=$(COVERDIR)/cover.out | tail -1 | awk '{print $$NF}') (details: go tool cover -html=$(COVERDIR)/cover.out)"
	@if [ "$$(cat $(COVERDIR)/test.rc)" != 0 ]; then grep -E '^(--- FAIL|FAIL|panic)' $(COVERDIR)/test.log; \
	  echo "some tests failed (log: $(COVERDIR)/test.log); the figures above count the tests that ran"; exit 1; fi

# Regenerate redact/gitleaks_rules.go from the gitleaks release pinned in
# redact/internal/gen/go.mod (the generator is a module of its own: gitleaks
# and its dependencies stay out of the product's go.mod). To move to a newer
# release: cd redact/internal/gen && go get github.com/zricethezav/gitleaks/v8@vX.Y.Z
# && go mod tidy; then make redact-rules and go test ./redact/ (see docs/redaction.md).
redact-rules:
	$(GO) generate ./redact

# Mutation testing with gremlins (pinned, installed into .tools/bin): each
# package on its own, niced, one mutant at a time, under MUTATE_TIMEOUT. Slow
# (one go test per mutant) and not part of make test: `make mutate
# PKG=./history` runs one package; MUTATE_FLAGS adds gremlins flags (e.g.
# -E '^run\.go$$' to leave a file out). Only mutants that the package's own
# tests cover are run (gremlins' coverage-based selection); a run may take
# MUTATE_COEFF times the covered test run before it counts as timed out
# (GOFLAGS=-count=1: a cached coverage run would make that a fraction of a
# second). The full report goes to .mutate/<package>.log. Killed share =
# killed / (killed + lived); timed-out and uncovered mutants are counted
# apart. Each run works in a temporary directory of its own, and whatever
# still runs from there afterwards is killed: gremlins ends a timed-out
# mutant's go test, not the test binary under it, which can spin for an
# hour. No --test-cpu: gremlins v0.6.0 passes it as one argument "-cpu N",
# go test then fails to start, and every mutant counts as killed.
GREMLINS        := $(CURDIR)/.tools/bin/gremlins
GREMLINS_VERSION := v0.6.0
MUTATE_PKGS     ?= ./stages/framing ./stages/validate ./stages/wire ./stages/dispatch ./stages/writer ./stages/worker ./history ./backpressure ./redact ./runner/agent
PKG             ?= $(MUTATE_PKGS)
MUTATE_TIMEOUT  ?= 60m
MUTATE_COEFF    ?= 10
MUTATE_FLAGS    ?=
MUTATE_OUT      := $(CURDIR)/.mutate
mutate: $(GREMLINS)
	@mkdir -p $(MUTATE_OUT); for p in $(PKG); do echo "== $$p"; \
	  log=$(MUTATE_OUT)/$$(echo $$p | sed 's|^\./||; s|/|_|g').log; \
	  tmp=$$(mktemp -d -t magi-mutate.XXXXXX) && [ -n "$$tmp" ] || exit 1; \
	  TMPDIR=$$tmp GOFLAGS=-count=1 timeout $(MUTATE_TIMEOUT) nice -n 10 $(GREMLINS) unleash --workers 1 --timeout-coefficient $(MUTATE_COEFF) $(MUTATE_FLAGS) $$p >$$log 2>&1; \
	  pkill -9 -f "$$tmp/" 2>/dev/null; rm -rf $$tmp; \
	  grep -E '^ *(LIVED|TIMED OUT)|^(Killed|Timed out|Test efficacy)' $$log || echo "   $$p: no result within $(MUTATE_TIMEOUT) ($$log)"; done

# The packages around the core (`make mutate-edge`; figures in
# docs/testing.md), smallest first. history and stages/worker are run for
# retention and the turn's durability path only: their other files are
# the core run's.
MUTATE_EDGE ?= ./protocol/schemacheck ./chunk ./internal/diaglog ./runner/auth ./runner/hooks ./runner/mcp ./runner/tools ./runner/shell ./runner/config ./runner/codemode ./conformance
MUTATE_RETENTION := -E '^(doc|lease|fs_windows|decode|firstinput|page|project|reader|record|replay|store|writeback_linux|writeback_other|fs_unix|fs_other)\.go'
MUTATE_DURABILITY := -E '^(doc|sink_idle|approvals|carry|init|pool|session|sink|sink_agent)\.go'
.PHONY: mutate-edge
mutate-edge: $(GREMLINS)
	@$(MAKE) --no-print-directory mutate PKG="$(MUTATE_EDGE)"
	@$(MAKE) --no-print-directory mutate PKG=./history MUTATE_OUT=$(MUTATE_OUT)/retention MUTATE_FLAGS="$(MUTATE_RETENTION)"
	@$(MAKE) --no-print-directory mutate PKG=./stages/worker MUTATE_OUT=$(MUTATE_OUT)/durability MUTATE_FLAGS="$(MUTATE_DURABILITY)"

# Case clauses, which gremlins never mutates, planted one bug at a time by
# internal/caseplant (each plant a go test -overlay: the tree is not edited):
# `make caseplant FILES="runner/shell/git.go"`. Not part of make test; one
# go test per plant (about 2 s each for runner/shell). The report goes to
# .mutate/caseplant.log; figures in docs/testing.md.
CASEPLANT_FILES ?= $(addprefix runner/shell/,rules.go paths.go destructive.go commands.go forge.go git.go gitconfig.go words.go vcs.go vcsconfig.go arith.go) $(addprefix runner/tools/,files.go grep.go protect.go)
FILES ?= $(CASEPLANT_FILES)
.PHONY: caseplant
caseplant:
	@mkdir -p $(MUTATE_OUT); $(GO) build -o $(CURDIR)/.tools/caseplant ./internal/caseplant && \
	  nice -n 10 $(CURDIR)/.tools/caseplant $(FILES) | tee $(MUTATE_OUT)/caseplant.log | grep -E ': (lived|no-compile|timed-out)|plants,'

$(GREMLINS):
	GOBIN=$(CURDIR)/.tools/bin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

demo: build
	$(GO) run ./cmd/demo -bin $(CURDIR)/$(BIN)

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./stages/... ./backpressure/... ./history/... ./redact/... ./chunk/... ./internal/... ./cmd/magi-code/
	$(GO) run ./bench -bin $(CURDIR)/$(BIN)
	@if [ -n "$(ANCHORS)" ]; then $(MAKE) --no-print-directory bench-ref; fi

# The reference transport and two MCP SDK servers measured beside this build,
# in the same passes of one driver (see docs/benchmarks.md). ANCHORS is a
# checkout of the bench-anchors programs; PASSES defaults to 3.
bench-ref: build
	@test -x "$(ANCHORS)/product.sh" || { echo "make bench-ref ANCHORS=/path/to/bench-anchors"; exit 2; }
	"$(ANCHORS)/product.sh" $(CURDIR)/$(BIN)

# Each fuzz target runs for FUZZTIME (make fuzz) or a few seconds (make test).
FUZZ_TARGETS := \
	./stages/framing:FuzzSplitter \
	./stages/validate:FuzzParse \
	./chunk:FuzzSplit \
	./client/human:FuzzPrintable \
	./redact:FuzzString \
	./redact:FuzzStream \
	./history:FuzzReader \
	./history:FuzzProjection \
	./runner/config:FuzzFrontMatter \
	./runner/config:FuzzSettings \
	./runner/config:FuzzSetTopLevel \
	./stages/dispatch:FuzzMachine \
	./stages/dispatch:FuzzServerLines \
	./runner/shell:FuzzDestructive \
	./internal/jsonenc:FuzzUnescape \
	./acp/jsonrpc:FuzzParse \
	./runner/provider:FuzzRetryAfter \
	./internal/gorelease:FuzzWarning

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) $$pkg; done

fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3s

# Lint: gofmt, go vet, staticcheck and govulncheck, pinned and run with
# go run pkg@version (fetched once into the module cache, then offline), and
# the architecture test. govulncheck reads the Go vulnerability database as a
# module (golang.org/x/vulndb, pinned), indexed once into .tools/ by its own
# indexdb command; it checks the standard library of the Go that runs it
# (GOTOOLCHAIN above: go.mod's go line or newer). Both must report nothing (docs/testing.md, Lint).
STATICCHECK    := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOVULNCHECK    := golang.org/x/vuln/cmd/govulncheck@v1.9.0
VULNDB_VERSION := v0.0.0-20261105234957-e22db6528018
VULNDB         := $(CURDIR)/.tools/vulndb-$(VULNDB_VERSION)

$(VULNDB)/index/db.json:
	src=$$($(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/.*"Dir": "\(.*\)",/\1/p') && test -d "$$src/data/osv" && \
	  rm -rf $(VULNDB).tmp && $(GO) run golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION) -vulns "$$src/data/osv" -out $(VULNDB).tmp && \
	  rm -rf $(VULNDB) && mv $(VULNDB).tmp $(VULNDB)

lint: $(VULNDB)/index/db.json
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)
	$(GO) run $(GOVULNCHECK) -db file://$(VULNDB) $(PKGS)
	$(GO) test -count=1 ./internal/archtest
	.ci/install-check

mcp-everything:
	@if [ -d "$(EVERYTHING_DIR)" ]; then :; \
	elif command -v npm >/dev/null 2>&1; then \
	  echo "installing @modelcontextprotocol/server-everything@$(EVERYTHING_VERSION) into .tools/"; \
	  npm install --silent --no-audit --no-fund --save-exact --prefix $(CURDIR)/.tools @modelcontextprotocol/server-everything@$(EVERYTHING_VERSION) \
	    || echo "npm install failed: the MCP reference-server test will be skipped"; \
	else echo "npm not found: the MCP reference-server test will be skipped"; fi

# The ACP interop suite's pinned node dependencies (interop/acp: the ACP
# SDK's client and ajv), installed by npm ci from package-lock.json when it
# changed; e2e/acpinterop's TestInterop runs the suite (it installs them itself
# when run alone, and reports the suite as skipped, with its count, without
# node or npm).
ACP_INTEROP := $(CURDIR)/interop/acp
.PHONY: acp-interop
acp-interop: $(ACP_INTEROP)/node_modules/.package-lock.json
$(ACP_INTEROP)/node_modules/.package-lock.json: $(ACP_INTEROP)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  echo "installing the ACP interop suite's dependencies (npm ci in interop/acp)"; \
	  (cd $(ACP_INTEROP) && npm ci --prefer-offline --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the ACP interop tests will be skipped"; \
	else echo "npm not found: the ACP interop tests will be skipped"; fi

clean:
	rm -rf bin .tools .cover interop/acp/node_modules

# The opt-in test against a real llama.cpp server (docs/testing.md, "Against a
# real llama.cpp server"); not part of make test. The first run builds
# llama-server from node-llama-cpp's source (cached under ~/.cache/magi-code);
# each run writes the deterministic model beside it and runs the round trips.
.PHONY: e2e-local
e2e-local: build
	@dir=$$(sh e2e/local/llama-server.sh) && \
	$(GO) run ./e2e/local/genmodel -vocab "$$dir/src/models/ggml-vocab-qwen2.gguf" \
	  -template "$$dir/src/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" -out "$$dir/model.gguf" && \
	MAGI_CODE_BIN=$(CURDIR)/$(BIN) MAGI_CODE_LLAMA_SERVER="$$dir/llama-server" MAGI_CODE_LLAMA_MODEL="$$dir/model.gguf" \
	  $(GO) test -tags e2elocal -count=1 -v -run TestLocalServer ./e2e/local/
