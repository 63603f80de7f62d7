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
# helm is pinned by hack/tools/helm/go.mod (bump it there with
# `go -C hack/tools/helm get -tool helm.sh/helm/v3/cmd/helm@VERSION`).
HELM_VERSION := $(shell awk '$$1 == "helm.sh/helm/v3" {print $$2}' hack/tools/helm/go.mod)
HELM ?= $(TOOLS_BIN)/helm-$(HELM_VERSION)
# promtool is pinned by hack/tools/promtool/go.mod (bump it there with
# `go -C hack/tools/promtool get -tool github.com/prometheus/prometheus/cmd/promtool@VERSION`).
PROMTOOL_VERSION := $(shell awk '$$1 == "github.com/prometheus/prometheus" {print $$2}' hack/tools/promtool/go.mod)
PROMTOOL ?= $(TOOLS_BIN)/promtool-$(PROMTOOL_VERSION)
HELM_DOCS_VERSION ?= v1.14.2
HELM_DOCS ?= $(TOOLS_BIN)/helm-docs-$(HELM_DOCS_VERSION)
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK ?= $(TOOLS_BIN)/staticcheck-$(STATICCHECK_VERSION)
# Modules with code of their own (vetted and linted); every module's go.mod
# is checked for tidiness.
CODE_MODULES := . hack/image hack/local-cluster hack/tools/promtool
ALL_MODULES := $(CODE_MODULES) hack/k8s hack/tools/helm hack/tools/local-path-provisioner
CHART := charts/storagebench

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)

# The image: one binary for the manager and the client pods. Its tag is the
# version with every character a tag cannot hold ([A-Za-z0-9_.-]) made "-"
# (e.g. a semver "+build"); "-dirty" is kept: such a build is not the commit.
IMG_TAG ?= $(shell printf '%s' '$(VERSION)' | tr -c 'A-Za-z0-9_.-' '-')
IMG ?= ghcr.io/storagebench/storagebench:$(IMG_TAG)
IMAGE_TAR ?= dist/storagebench-$(IMG_TAG).tar
# Fixed image timestamps (the commit's), so the same commit gives the same image.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
CONTAINER_TOOL ?= docker
LDFLAGS := -X github.com/storagebench/storagebench/internal/version.Version=$(VERSION) \
           -X github.com/storagebench/storagebench/internal/version.Commit=$(COMMIT)

# Packages tested by `make test`: everything but the e2e suite, which needs a
# running cluster (make e2e).
TEST_PACKAGES ?= ./...
# Tested alone, after the others: internal/cli runs the README's quickstart
# for real (about 100 s of measurements, a capacity search and a threshold
# comparing two targets), whose outcome other packages' load on the same
# cores (envtest, the engine against fio) would decide.
ALONE_PACKAGES ?= ./internal/cli
# Fuzz budgets are execution counts, not durations: with a duration, Go
# 1.26's fuzz coordinator can report "context deadline exceeded" when the
# deadline fires while a worker is busy (go.dev/issue/75804, fixed in Go
# 1.27), failing a run that found nothing. Minimizing a new input is bounded
# the same way so that it cannot eat the budget.
FUZZTIME ?= 100000x
FUZZMINIMIZETIME ?= 500x

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
manifests: $(CONTROLLER_GEN) ## Generate the CRD and RBAC manifests under config/ and sync them into the chart.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	go run ./hack/crd-bounds config/crd/bases/*.yaml
	$(CONTROLLER_GEN) rbac:roleName=storagebench-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	go run ./hack/sync-chart -config config -chart $(CHART)

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet on every module, the e2e-tagged tests included; the CLI also as built for macOS (it must build there and say the engine needs Linux).
	@for m in $(CODE_MODULES); do echo "go -C $$m vet -tags e2e ./..."; go -C $$m vet -tags e2e ./... || exit 1; done
	GOOS=darwin go vet ./...

.PHONY: lint
lint: $(STATICCHECK) ## Run staticcheck on every module, the e2e-tagged tests included.
	@for m in $(CODE_MODULES); do echo "staticcheck -tags e2e ./... (in $$m)"; (cd $$m && $(STATICCHECK) -tags e2e ./...) || exit 1; done

.PHONY: tidy-check
tidy-check: ## Fail when a module's go.mod or go.sum is not tidy.
	@for m in $(ALL_MODULES); do echo "go -C $$m mod tidy -diff"; go -C $$m mod tidy -diff || { echo "$$m: run go -C $$m mod tidy"; exit 1; }; done

.PHONY: envtest
envtest: ## Build etcd, kube-apiserver and kubectl for envtest (cached).
	hack/k8s-binaries.sh envtest

.PHONY: test
test: $(PROMTOOL) ## Run unit and envtest integration tests (promtool checks the metrics exposition).
	export PROMTOOL=$(PROMTOOL) KUBEBUILDER_ASSETS="$$(hack/k8s-binaries.sh envtest)"; \
	go test $$(go list $(TEST_PACKAGES) | grep -v -x -F "$$(go list $(ALONE_PACKAGES))") && \
	go test $(ALONE_PACKAGES)

.PHONY: monitoring-check
monitoring-check: $(PROMTOOL) ## Check the shipped alert rules (promtool check/test rules) and dashboard (PromQL parsed, exported metrics only).
	$(PROMTOOL) check rules $(CHART)/files/prometheus-rules.yaml
	cd hack/tools/promtool/monitoring && $(PROMTOOL) test rules rules_test.yaml
	go -C hack/tools/promtool test -count=1 ./...

.PHONY: e2e
e2e: image $(HELM) ## Run the end-to-end tests on the local two-node cluster (started and stopped here).
	IMAGE_TAR="$(IMAGE_TAR)" IMG="$(IMG)" HELM="$(HELM)" hack/e2e.sh

.PHONY: fuzz
fuzz: ## Run every fuzz target briefly (FUZZTIME executions each, default 100000x).
	@for target in engine/hist:FuzzDecode engine:FuzzParseArgs engine:FuzzParseJobFile \
	  results:FuzzReadClientReport results:FuzzMergeReportBody internal/report:FuzzReportFile; do \
	  pkg=$${target%%:*}; name=$${target##*:}; \
	  echo "go test ./$$pkg -run '^$$' -fuzz '^$$name$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME)"; \
	  go test ./$$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) || exit 1; \
	done

.PHONY: verify
verify: generate manifests helm-docs ## Regenerate everything and fail on any diff; gofmt, vet, lint, tidy modules, the documented layout.
	@changed=$$(git diff --name-only -- api config charts; git ls-files --others --exclude-standard -- api config charts); \
	if [ -n "$$changed" ]; then echo "generated files are out of date (run make generate manifests and commit):"; echo "$$changed"; exit 1; fi
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(MAKE) --no-print-directory vet lint tidy-check
	hack/verify-layout.sh

##@ Packaging

.PHONY: image
image: build ## Build the image without a Docker daemon (hack/image) into $(IMAGE_TAR), tagged $(IMG).
	@ref='$(IMG)'; name=$${ref%:*}; tag=$${ref##*:}; \
	case "$$ref" in *:*) ;; *) echo "IMG=$$ref: want NAME:TAG"; exit 1 ;; esac; \
	case "$$tag" in */*|'') echo "IMG=$$ref: want NAME:TAG"; exit 1 ;; esac; \
	mkdir -p dist; \
	echo "go -C hack/image run . build ... --name $$name --tag $$tag --out $(IMAGE_TAR)"; \
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) go -C hack/image run . build \
	  --binary "$(CURDIR)/bin/storagebench" --name "$$name" --tag "$$tag" \
	  --entrypoint /storagebench --user 65532:65532 --arch "$$(go env GOARCH)" \
	  --version '$(VERSION)' --revision '$(REVISION)' \
	  --source https://github.com/storagebench/storagebench \
	  --label org.opencontainers.image.title=storagebench \
	  --label 'org.opencontainers.image.description=Kubernetes operator and IO engine that benchmarks storage' \
	  --out "$(CURDIR)/$(IMAGE_TAR)"

.PHONY: docker-build
docker-build: ## Build $(IMG) from the Dockerfile with a daemon (the same image as make image).
	$(CONTAINER_TOOL) build --build-arg VERSION='$(VERSION)' --build-arg COMMIT='$(COMMIT)' \
	  --build-arg REVISION='$(REVISION)' -t '$(IMG)' .

.PHONY: promtool
promtool: $(PROMTOOL) ## Build Prometheus' promtool from hack/tools/promtool into the tools cache.

$(PROMTOOL):
	mkdir -p $(TOOLS_BIN)
	go -C hack/tools/promtool build -trimpath -o "$(PROMTOOL).$$$$.tmp" github.com/prometheus/prometheus/cmd/promtool && \
	  mv "$(PROMTOOL).$$$$.tmp" "$(PROMTOOL)"

.PHONY: helm
helm: $(HELM) ## Build the helm CLI from hack/tools/helm into the tools cache.

.PHONY: helm-docs
helm-docs: $(HELM_DOCS) ## Regenerate charts/storagebench/README.md from values.yaml.
	$(HELM_DOCS) --chart-search-root charts --template-files README.md.gotmpl --log-level warning

.PHONY: helm-lint
helm-lint: $(HELM) ## Lint and render the chart with default and ci/ values; run the chart tests.
	$(HELM) lint --strict $(CHART)
	for values in $(CHART)/ci/*-values.yaml; do \
	  $(HELM) lint --strict $(CHART) --values "$$values"; \
	done
	$(HELM) template storagebench $(CHART) --namespace storagebench-system >/dev/null
	for values in $(CHART)/ci/*-values.yaml; do \
	  echo "helm template --values $$values"; \
	  $(HELM) template storagebench $(CHART) --namespace storagebench-system --values "$$values" >/dev/null; \
	done
	HELM=$(HELM) KUBEBUILDER_ASSETS="$$(hack/k8s-binaries.sh envtest)" go test -count=1 -v ./hack/packaging/... | grep -Ev '^=== (RUN|PAUSE|CONT)'

$(HELM):
	mkdir -p $(TOOLS_BIN)
	@# The Kubernetes version helm assumes without a cluster (helm template,
	@# lint) is its client-go's, set as helm's own Makefile does.
	k8s=$$(go -C hack/tools/helm list -m -f '{{.Version}}' k8s.io/client-go); minor=$${k8s#v0.}; minor=$${minor%%.*}; \
	go -C hack/tools/helm build -trimpath -o "$(HELM).$$$$.tmp" \
	  -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$$minor \
	    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$$minor" \
	  helm.sh/helm/v3/cmd/helm && mv "$(HELM).$$$$.tmp" "$(HELM)"

$(HELM_DOCS):
	mkdir -p $(TOOLS_BIN)/.helm-docs-$(HELM_DOCS_VERSION)
	GOBIN=$(TOOLS_BIN)/.helm-docs-$(HELM_DOCS_VERSION) go install github.com/norwoodj/helm-docs/cmd/helm-docs@$(HELM_DOCS_VERSION)
	mv $(TOOLS_BIN)/.helm-docs-$(HELM_DOCS_VERSION)/helm-docs $(HELM_DOCS)

$(STATICCHECK):
	mkdir -p $(TOOLS_BIN)/.staticcheck-$(STATICCHECK_VERSION)
	GOBIN=$(TOOLS_BIN)/.staticcheck-$(STATICCHECK_VERSION) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(TOOLS_BIN)/.staticcheck-$(STATICCHECK_VERSION)/staticcheck $(STATICCHECK)

$(CONTROLLER_GEN):
	mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)
	mv $(TOOLS_BIN)/controller-gen $(CONTROLLER_GEN)
