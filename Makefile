# restartsim — run `make` to list the targets.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

# ENVTEST_K8S_VERSION names bin/k8s/<version>; internal/envtestassets.Version must match (a test checks).
ENVTEST_K8S_VERSION := 1.37.2
BIN                 := $(CURDIR)/bin
ENVTEST_ASSETS      := $(BIN)/k8s/$(ENVTEST_K8S_VERSION)
CONTROLLER_GEN      := $(BIN)/controller-gen
# golangci-lint is installed with `go install` at this version, as its authors advise (its own
# go.mod, not ours, picks its dependencies); the version in the file name makes a bump reinstall it.
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_LINT       := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
SCENARIO            ?= scenarios/quickstart.yaml
# The sim package's envtest suite takes about 20 min on 2 quiet cores and reached 30 beside two CPU hogs and
# a 20,000-pod LBC run; the timeout is for a hung test, not a busy machine.
GO_TEST_FLAGS       ?= -race -timeout 50m
VERSION             ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS             := -X github.com/restartsim/restartsim/cmd/restartsim/app.version=$(VERSION)

export KUBEBUILDER_ASSETS ?= $(ENVTEST_ASSETS)

# GO_QUIET runs a go command without its one "go: downloading" line per module (about 190 on a cold
# first build, burying the steps' own messages); errors and the exit status pass through. Each build
# step prints one line instead: what it builds and how long that takes cold (2 cores).
GO_QUIET := $(CURDIR)/hack/quiet-downloads.sh

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

##@ Build

.PHONY: build
build: ## Build bin/restartsim.
	@echo "building bin/restartsim (cold: about 7 min on 2 cores; seconds once cached)"
	@$(GO_QUIET) go build -ldflags "$(LDFLAGS)" -o $(BIN)/restartsim ./cmd/restartsim

# kube-apiserver and etcd come from setup-envtest's release index (controller-tools' envtest archives,
# SHA-512 checked) into setup-envtest's store, linked into bin/k8s/<version>: seconds. When the index
# cannot be had (no network, a proxy, a timeout), one line says why and they build from the Go
# modules embedded in internal/envtestassets, as kube-controller-manager always does: the same code
# as `restartsim assets`. ENVTEST_ASSETS_FLAGS=--source skips the index; --index URL names a mirror.
# With the binaries in place, a run takes under a second and makes no request and no build.
ENVTEST_ASSETS_FLAGS ?=
ENVTEST_ASSETS_TOOL := go run ./hack/envtest-assets --dir $(ENVTEST_ASSETS) $(ENVTEST_ASSETS_FLAGS)

.PHONY: envtest-assets
envtest-assets: ## Download kube-apiserver and etcd (setup-envtest's index; seconds), else build them from source (once, 5-15 min), into bin/k8s/<version>/.
	@$(ENVTEST_ASSETS_TOOL)

.PHONY: cluster-assets
cluster-assets: ## Also build kube-controller-manager, for the local cluster (make cluster-up).
	@$(ENVTEST_ASSETS_TOOL) --with kube-controller-manager

.PHONY: scheduler-assets
scheduler-assets: ## Also build kube-scheduler, for scenarios with cluster.scheduler (Karpenter).
	@$(ENVTEST_ASSETS_TOOL) --with kube-scheduler

$(CONTROLLER_GEN): hack/tools/go.mod hack/tools/go.sum
	@mkdir -p $(@D)
	@echo "building controller-gen (about 2 min on 2 cores; once)"
	@cd hack/tools && $(GO_QUIET) go build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

$(GOLANGCI_LINT):
	@mkdir -p $(@D)/.golangci-lint-install
	@echo "building golangci-lint $(GOLANGCI_LINT_VERSION) (about 4 min on 2 cores, up to 17 on a busy machine; once)"
	@GOBIN=$(@D)/.golangci-lint-install $(GO_QUIET) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv $(@D)/.golangci-lint-install/golangci-lint $@ && rmdir $(@D)/.golangci-lint-install

# external-dns (scenarios/external-dns), built from its module through the module proxy: hack/external-dns
# pins it and its dependencies, and none of its code enters this repository. It declares go 1.27, so the go
# command fetches that toolchain through the proxy (GOTOOLCHAIN); the binary's path carries the version.
EXTERNAL_DNS_VERSION   := $(shell sed -n 's|^\tsigs.k8s.io/external-dns \(v[^ ]*\).*|\1|p' hack/external-dns/go.mod)
EXTERNAL_DNS_TOOLCHAIN ?= go1.27.4
EXTERNAL_DNS           := $(BIN)/external-dns/$(EXTERNAL_DNS_VERSION)/external-dns
# External-dns links its Civo provider, whose module some proxies do not serve; go.mod replaces it with this
# directory, which hack/external-dns/civogo.sh fills from the proxy (or put a checkout there).
CIVOGO_DIR             := $(BIN)/external-dns/src/civogo

.PHONY: external-dns
external-dns: $(EXTERNAL_DNS) ## Build external-dns from the module proxy into bin/external-dns/<version>/.

$(EXTERNAL_DNS): hack/external-dns/go.mod hack/external-dns/go.sum
	@mkdir -p $(@D)
	@test -f $(CIVOGO_DIR)/go.mod || hack/external-dns/civogo.sh $(CIVOGO_DIR)
	@echo "building external-dns $(EXTERNAL_DNS_VERSION) with $(EXTERNAL_DNS_TOOLCHAIN) through the module proxy (cold: 9 min of CPU, about 5 on 2 idle cores, an hour on a busy machine; once)"
	@cd hack/external-dns && GOTOOLCHAIN=$(EXTERNAL_DNS_TOOLCHAIN) $(GO_QUIET) go build -trimpath \
		-ldflags "-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$(EXTERNAL_DNS_VERSION)" -o $@.tmp sigs.k8s.io/external-dns
	@mv $@.tmp $@
	@echo "built $@"

# Karpenter's AWS provider (scenarios/karpenter), built from its module through the module proxy with its CRDs
# (pkg/apis/crds of the same module) beside it: hack/karpenter pins it and its dependencies, and none of its code
# enters this repository. It pins timestreamwrite v1.45.6 and fis v1.46.12 above what v1.15.0 asks for (the
# proxy refuses those versions), and builds with a newer Go than this module's (GOTOOLCHAIN, fetched through
# the proxy). The operator's Version is stamped as Karpenter's own release build does.
KARPENTER_VERSION   := $(shell sed -n 's|^\tgithub.com/aws/karpenter-provider-aws \(v[^ ]*\).*|\1|p' hack/karpenter/go.mod)
KARPENTER_TOOLCHAIN ?= go1.27.3
KARPENTER           := $(BIN)/karpenter/$(KARPENTER_VERSION)/karpenter
KARPENTER_GO        := cd hack/karpenter && GOTOOLCHAIN=$(KARPENTER_TOOLCHAIN)

.PHONY: karpenter
karpenter: $(KARPENTER) ## Build Karpenter (AWS provider) from the module proxy into bin/karpenter/<version>/, its CRDs in crds/.

$(KARPENTER): hack/karpenter/go.mod hack/karpenter/go.sum
	@mkdir -p $(@D)
	@echo "building karpenter $(KARPENTER_VERSION) with $(KARPENTER_TOOLCHAIN) through the module proxy (cold: about 3 min on 2 idle cores; once)"
	@$(KARPENTER_GO) $(GO_QUIET) go build -trimpath -ldflags "-s -w -X sigs.k8s.io/karpenter/pkg/operator.Version=$(KARPENTER_VERSION)" \
		-o $@.tmp github.com/aws/karpenter-provider-aws/cmd/controller
	@src=$$($(KARPENTER_GO) go list -m -f '{{.Dir}}' github.com/aws/karpenter-provider-aws) && rm -rf $(@D)/crds && \
		mkdir -p $(@D)/crds && cp $$src/pkg/apis/crds/*.yaml $(@D)/crds/ && chmod u+w $(@D)/crds/*.yaml
	@mv $@.tmp $@
	@echo "built $@ (CRDs in $(@D)/crds)"

##@ Code generation

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate DeepCopy code with controller-gen.
	$(CONTROLLER_GEN) object paths=./controller/api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRD YAML with controller-gen.
	$(CONTROLLER_GEN) crd paths=./controller/api/... output:crd:artifacts:config=controller/config/crd

.PHONY: schema
schema: ## Regenerate the strategy fields of controller.Knobs, then the scenario's JSON Schema (docs/scenario.schema.json) from its Go types and doc comments.
	go generate ./sim/scenario
	go generate ./sim/scenario/schema
	go test ./sim/scenario/schema -run TestGeneratedFilesUpToDate -update

.PHONY: verify
verify: generate manifests lint ## Fail when generated files are stale or lint finds problems.
	@if ! git diff --quiet -- controller/api controller/config; then \
		echo "generated files are stale; run 'make generate manifests' and commit:"; \
		git diff --stat -- controller/api controller/config; exit 1; fi
	@if [ -n "$$(git status --porcelain -- controller/api controller/config)" ]; then \
		echo "generated files are not committed:"; git status --porcelain -- controller/api controller/config; exit 1; fi

.PHONY: lint
lint: $(GOLANGCI_LINT) ## gofmt check, go vet and golangci-lint (.golangci.yml).
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: $(GOLANGCI_LINT) ## Apply golangci-lint's fixes and formatters (review the diff before committing).
	$(GOLANGCI_LINT) run --fix ./...

##@ Run and test

.PHONY: test
test: cluster-assets scheduler-assets verify ## Build the envtest, local-cluster and scheduler assets, verify, and run all tests (unit + envtest + local-cluster integration).
	@echo "running every test under -race (about 35 min on 2 cores, most of it the sim package; on a slow machine RESTARTSIM_TEST_TIMEOUT_SCALE=3 waits 3 times longer)"
	@$(GO_QUIET) go test $(GO_TEST_FLAGS) ./...

# Benchmarks. Every figure worth comparing is a ratio measured in the same run
# (x-sha256, x-cache-get, x-yaml, write-ratio, the fakeaws ratio): the machines are noisy.
BENCH_PKGS     ?= ./controller/internal/checkpoint ./controller ./sim/scenario ./fakeaws ./sim/workload
BENCH_TIME     ?= 1s
BENCH_COUNT    ?= 1
SWEEP_SCENARIO ?= scenarios/scale-sweep.yaml
SWEEP_SIZES    ?= 100,1000,10000
BENCH_OUT      ?= out/bench

.PHONY: bench
bench: bench-quick build ## Go benchmarks, then the scale sweep (SWEEP_SIZES) into $(BENCH_OUT)/ with results.json + report per size and a sweep report.
	$(BIN)/restartsim sweep -f $(SWEEP_SCENARIO) --sizes $(SWEEP_SIZES) --out $(BENCH_OUT) $(SWEEP_FLAGS)

.PHONY: bench-quick
bench-quick: envtest-assets ## Go benchmarks only (checkpoint hash, early-exit reconcile, scenario parse, fakeaws, fleet setup); output in $(BENCH_OUT)/go-bench.txt.
	@mkdir -p $(BENCH_OUT)
	go test -run '^$$' -bench . -benchmem -benchtime $(BENCH_TIME) -count $(BENCH_COUNT) -timeout 20m \
		$(BENCH_PKGS) | tee $(BENCH_OUT)/go-bench.txt

SOAK_DURATION       ?= 10m

FAKEAWS_SOAK_DURATION ?= 2m

.PHONY: soak-fakeaws
soak-fakeaws: build ## fakeaws alone on loopback, hostile and valid traffic mixed for FAKEAWS_SOAK_DURATION (default 2m): RSS, CPU per request, goroutines before/after; out/soak/fakeaws-soak.txt.
	go run ./hack/fakeaws-soak -binary $(BIN)/restartsim -duration $(FAKEAWS_SOAK_DURATION) -out $(CURDIR)/out/soak/fakeaws-soak.txt

.PHONY: soak
soak: envtest-assets soak-fakeaws ## The fakeaws soak, then a long seed sweep: mutation score, then crash-anywhere and faults over seeds for SOAK_DURATION (default 10m); prints runs, seeds, faults, violations.
	RESTARTSIM_SOAK=1 RESTARTSIM_SOAK_DURATION=$(SOAK_DURATION) RESTARTSIM_SOAK_OUT=$(CURDIR)/out/soak \
		go test -run '^TestSoak$$' -count=1 -v -timeout 90m ./sim/ | grep --line-buffered -E '^(soak|--- |ok|FAIL|panic)|_test.go'

.PHONY: simulate
simulate: envtest-assets build ## Run a scenario (SCENARIO=scenarios/quickstart.yaml) and write a report under out/.
	@echo "running $(SCENARIO) (the quickstart: about 1 min)"
	$(BIN)/restartsim simulate -f $(SCENARIO)

# report-screenshot renders REPORT_RESULTS (beside it, its timeseries.csv if any) and photographs
# report.html in a 1280-pixel-wide headless Chromium: report.png is the first screen, report-full.png
# the page down to REPORT_FULL_HEIGHT pixels. It checks by eye what CI cannot (CI has no Chromium;
# reports' tests check that every table scrolls inside its own box).
REPORT_RESULTS      ?= reports/testdata/results.json
REPORT_SHOT_OUT     ?= out/report-screenshot
REPORT_FULL_HEIGHT  ?= 9000
CHROMIUM            ?= chromium
CHROMIUM_FLAGS      := --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync

.PHONY: report-screenshot
report-screenshot: ## Render REPORT_RESULTS and screenshot its report.html 1280 px wide into out/report-screenshot/ (skipped without chromium).
	@if ! command -v $(CHROMIUM) >/dev/null; then \
		echo "report-screenshot: skipped: $(CHROMIUM) not found (Debian: apt-get install -y chromium; or CHROMIUM=path)"; exit 0; fi; \
	go run ./cmd/restartsim report -f $(REPORT_RESULTS) -o $(REPORT_SHOT_OUT); \
	profile=$$(mktemp -d); trap 'rm -rf "$$profile"' EXIT; \
	for shot in report.png:900 report-full.png:$(REPORT_FULL_HEIGHT); do \
		$(CHROMIUM) $(CHROMIUM_FLAGS) --user-data-dir="$$profile" --window-size=1280,$${shot#*:} \
			--screenshot=$(abspath $(REPORT_SHOT_OUT))/$${shot%:*} file://$(abspath $(REPORT_SHOT_OUT))/report.html \
			>>$(REPORT_SHOT_OUT)/chromium.log 2>&1 || { echo "$(CHROMIUM) failed: see $(REPORT_SHOT_OUT)/chromium.log"; exit 1; }; \
		echo "wrote $(REPORT_SHOT_OUT)/$${shot%:*} (1280x$${shot#*:})"; \
	done

GATE_SCENARIO       ?= scenarios/ci-gate.yaml
GATE_BASELINE       ?= scenarios/baselines/ci-gate.json
GATE_OUT            ?= out/ci-gate
# GATE_BASE is the baseline build of the A/B comparison: a git ref, by default the known-good commit
# pinned in scenarios/baselines/gate-base.ref (bumped deliberately after an accepted change, so a
# slowdown followed by unrelated commits is still caught). GATE_BASE=HEAD compares the working tree
# with its last commit (an A/A run on a clean tree).
GATE_BASE           ?= $(shell cat scenarios/baselines/gate-base.ref)
GATE_FLAGS          ?=

.PHONY: gate
gate: envtest-assets build ## A/B gate: build GATE_BASE (default: the pinned commit) and the working tree, run scenarios/ci-gate.yaml with both, judge (exit 1 on a regression, 75 inconclusive; the gate's own exit code in out/ci-gate/exit-code, JUnit in out/ci-gate/).
	rm -rf $(GATE_OUT)/run $(GATE_OUT)/junit.xml $(GATE_OUT)/exit-code
	mkdir -p $(GATE_OUT)
	base=$$(hack/gate-base.sh "$(GATE_BASE)"); rc=0; \
		$(BIN)/restartsim gate -f $(GATE_SCENARIO) --out $(GATE_OUT)/run --baseline-binary "$$base" \
			--candidate-binary $(BIN)/restartsim --baseline $(GATE_BASELINE) --junit $(GATE_OUT)/junit.xml $(GATE_FLAGS) || rc=$$?; \
		echo $$rc >$(GATE_OUT)/exit-code; exit $$rc

CLUSTER_DIR ?= out/cluster

.PHONY: cluster-up
cluster-up: cluster-assets build ## Start a local control plane (etcd, kube-apiserver, kube-controller-manager); kubeconfig at $(CLUSTER_DIR)/kubeconfig.
	$(BIN)/restartsim cluster up --dir $(CLUSTER_DIR)

.PHONY: cluster-down
cluster-down: build ## Stop the local control plane and remove its keys and data (logs stay in $(CLUSTER_DIR)/logs).
	$(BIN)/restartsim cluster down --dir $(CLUSTER_DIR)

.PHONY: clean
clean: ## Remove build and run outputs (keeps the envtest assets; rm -rf bin to drop them).
	rm -rf out $(BIN)/restartsim $(CONTROLLER_GEN) $(BIN)/golangci-lint-*
