#!/usr/bin/env bash
# Builds Kubernetes test binaries from Go modules (no prebuilt binary can be
# downloaded here) into a cache outside the repo, keyed by version, and prints
# that folder on stdout: use it as KUBEBUILDER_ASSETS for envtest.
#
#   hack/k8s-binaries.sh                 etcd, kube-apiserver, kubectl (envtest)
#   hack/k8s-binaries.sh all             also kube-controller-manager,
#                                        kube-scheduler, kubelet (local cluster)
#   hack/k8s-binaries.sh kubelet ...     just the named ones
#
# Idempotent: a binary already in the cache is not rebuilt. The cache folder is
# $STORAGEBENCH_CACHE/k8s/<version> (default $HOME/.cache/storagebench).
set -euo pipefail

k8s_version=v1.37.2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${STORAGEBENCH_CACHE:-$HOME/.cache/storagebench}
out=$cache_root/k8s/$k8s_version

envtest_set=(etcd kube-apiserver kubectl)
cluster_set=(etcd kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet)

case "${1:-envtest}" in
  envtest) wanted=("${envtest_set[@]}") ;;
  all) wanted=("${cluster_set[@]}") ;;
  *) wanted=("$@") ;;
esac

package_of() {
  case "$1" in
    etcd) echo go.etcd.io/etcd/server/v3 ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kubectl) echo "k8s.io/kubernetes/cmd/$1" ;;
    *) echo "k8s-binaries: unknown component \"$1\" (known: ${cluster_set[*]}, envtest, all)" >&2; return 1 ;;
  esac
}

missing=()
for name in "${wanted[@]}"; do
  pkg=$(package_of "$name")
  [ -x "$out/$name" ] || missing+=("$name=$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  mkdir -p "$out"
  # Without these the servers report v0.0.0-master+$Format:%H$ and kubectl
  # refuses to talk to them.
  major=${k8s_version#v}; major=${major%%.*}
  minor=${k8s_version#v*.}; minor=${minor%%.*}
  build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date -X $pkg.gitCommit=module-$k8s_version"
  done
  for entry in "${missing[@]}"; do
    name=${entry%%=*}; pkg=${entry#*=}
    echo "k8s-binaries: building $name ($pkg) into $out" >&2
    # Build into a temp name and rename, so an interrupted build never leaves
    # a half-written binary that a later run would take as cached.
    (cd "$here/k8s" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/.$name.tmp" "$pkg")
    mv "$out/.$name.tmp" "$out/$name"
  done
fi

echo "$out"
