// Package packaging tests how storagebench is installed: the kustomize
// config (config/default), the Helm chart (charts/storagebench), the
// Dockerfile and `make image`. The tests render the manifests with the real
// tools, check them (restricted Pod Security, least-privilege RBAC, the chart
// in sync with config/), validate every object against a real
// kube-apiserver (envtest), and run the storagebench manager with exactly
// the rendered arguments and RBAC until it starts a benchmark's client pods.
//
// The kustomize tests run in `make test` (kubectl comes with the envtest
// binaries). The chart tests need the helm binary in $HELM: `make helm-lint`
// builds it and runs them; without it they skip.
package packaging
