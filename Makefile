# storagebench Makefile. `make help` lists the targets.
#
# Tools are built from Go modules (nothing is downloaded as a binary) into a
# cache outside the repo, keyed by version, so clones and CI runs share them.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

CACHE_DIR ?= $(HOME)/.cache/storagebench
TOOLS_BIN ?= $(CACHE_DIR)/bin
CONTROLLER_TOOLS_VERSION ?= v0.23.0
CONTROLLER_GEN ?= $(TOOLS_BIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X github.com/storagebench/storagebench/internal/version.Version=$(VERSION) \
           -X github.com/storagebench/storagebench/internal/version.Commit=$(COMMIT)

# Packages tested by `make test`: everything but the e2e suite, which needs a
# running cluster (make e2e).
TEST_PACKAGES ?= ./...

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

##@ Development

.PHONY: build
build: ## Build bin/storagebench.
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/storagebench .

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRD and RBAC manifests under config/.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=storagebench-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: envtest
envtest: ## Build etcd, kube-apiserver and kubectl for envtest (cached).
	hack/k8s-binaries.sh envtest

.PHONY: test
test: ## Run unit and envtest integration tests.
	KUBEBUILDER_ASSETS="$$(hack/k8s-binaries.sh envtest)" go test $(TEST_PACKAGES)

.PHONY: verify
verify: generate manifests ## Regenerate everything and fail on any diff; check gofmt and vet.
	@changed=$$(git diff --name-only -- api config charts; git ls-files --others --exclude-standard -- api config charts); \
	if [ -n "$$changed" ]; then echo "generated files are out of date (run make generate manifests and commit):"; echo "$$changed"; exit 1; fi
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	go vet ./...

$(CONTROLLER_GEN):
	mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
	mv $(TOOLS_BIN)/controller-gen $(CONTROLLER_GEN)
