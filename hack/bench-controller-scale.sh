#!/usr/bin/env bash
# The controller scale benchmark (hack/bench-controller-scale): the real
# reconciler against envtest at growing benchmark shapes and with many
# benchmarks at once; prints one row per measurement. How to read it:
# docs/controller-scale.md. Arguments go to the program, e.g.
#   hack/bench-controller-scale.sh -shapes 1x1x1,4x16x16 -many 0
set -euo pipefail
cd "$(dirname "$0")/.."
KUBEBUILDER_ASSETS="$(hack/k8s-binaries.sh envtest)" exec go run ./hack/bench-controller-scale "$@"
