#!/usr/bin/env bash
# End-to-end tests on a real cluster, as `make e2e` runs them:
#   1. start the local cluster, two nodes (hack/local-cluster.sh up),
#   2. import the operator's image (make image) into its nodes' containerd,
#   3. install the operator with its Helm chart, as a user would,
#   4. run the e2e Go tests (hack/e2e, build tag e2e) against it,
#   5. stop the cluster (hack/local-cluster.sh down), also on failure.
# Needs IMAGE_TAR, IMG and HELM (make e2e passes them). Set
# STORAGEBENCH_E2E_KEEP_CLUSTER=1 to leave the cluster running afterwards,
# and E2E_RUN=regexp to run some tests only.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${IMAGE_TAR:?set by make e2e}" "${IMG:?set by make e2e}" "${HELM:?set by make e2e}"
namespace=storagebench-system
kubectl=$(hack/k8s-binaries.sh all)/kubectl

if [ "${STORAGEBENCH_E2E_KEEP_CLUSTER:-}" = "" ]; then
  trap 'echo "=== e2e: stopping the cluster"; hack/local-cluster.sh down' EXIT
fi
echo "=== e2e: starting the local cluster"
hack/local-cluster.sh up
KUBECONFIG=$(hack/local-cluster.sh kubeconfig)
export KUBECONFIG

echo "=== e2e: importing $IMG"
hack/local-cluster.sh load-image "$IMAGE_TAR"

echo "=== e2e: installing the operator with its Helm chart"
"$kubectl" create namespace "$namespace" --dry-run=client -o yaml | "$kubectl" apply -f -
"$kubectl" label namespace "$namespace" --overwrite pod-security.kubernetes.io/enforce=restricted
"$HELM" upgrade --install storagebench charts/storagebench --namespace "$namespace" \
  --set image.repository="${IMG%:*}" --set image.tag="${IMG##*:}" --set image.pullPolicy=IfNotPresent \
  --wait --timeout 5m

echo "=== e2e: tests"
# -parallel: the samples test applies every sample side by side and mostly
# waits on fixed cell durations, so it need not be limited to GOMAXPROCS
# (2 here) subtests at a time.
STORAGEBENCH_E2E_MANAGER_NAMESPACE=$namespace \
  go test -tags e2e -count=1 -timeout 40m -parallel 8 -v -run "${E2E_RUN:-.}" ./hack/e2e/ 2>&1 | grep -Ev '^=== (PAUSE|CONT)'
