#!/usr/bin/env bash
# Smoke test of a running local cluster (hack/local-cluster.sh smoke):
#  - builds an image holding the sbcluster probe (hack/image) and imports it;
#  - in a namespace enforcing the "restricted" Pod Security Standard, runs per
#    storage class a Job on a Filesystem PVC and one on the class's Block PV:
#    4 KiB O_DIRECT random reads, then random writes (QD 16);
#  - checks the Jobs complete, kubectl logs and termination messages work,
#    and every capped class measures within SMOKE_TOLERANCE_PCT of its cap;
#  - runs two pods at once on one shared (RWX) claim of the lowest-capped
#    class and prints their sum (device scope: the sum is the cap);
#  - reports whether io_uring is usable in a RuntimeDefault-seccomp pod.
# Environment: SMOKE_SECONDS [10], SMOKE_TOLERANCE_PCT [3], SMOKE_BLOCK [1].
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=$here/../local-cluster.sh
state=$(realpath -m "${STORAGEBENCH_CLUSTER_DIR:-/var/lib/storagebench-cluster}")
kubeconfig=$("$script" kubeconfig)
kubectl_bin=${STORAGEBENCH_CACHE:-$HOME/.cache/storagebench}/k8s/v1.37.2/kubectl
secs=${SMOKE_SECONDS:-10}
tol=${SMOKE_TOLERANCE_PCT:-3}
do_block=${SMOKE_BLOCK:-1}
ns=storagebench-smoke
image=localhost/storagebench/sbcluster-probe:local

k() { "$kubectl_bin" --kubeconfig "$kubeconfig" "$@"; }
log() { echo "smoke: $*" >&2; }
command -v jq >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null

[ -f "$state/run/classes.conf" ] || { log "cluster not up"; exit 1; }
go -C "$here/../image" run . build --binary "$state/bin/sbcluster" --name "${image%:*}" --tag "${image##*:}" \
  --entrypoint /sbcluster --out "$state/bin/probe.tar" >&2
"$script" load-image "$state/bin/probe.tar" >&2

k delete namespace "$ns" --ignore-not-found --wait=true >/dev/null
k create namespace "$ns" >/dev/null
k label namespace "$ns" pod-security.kubernetes.io/enforce=restricted pod-security.kubernetes.io/enforce-version=latest >/dev/null
k -n "$ns" wait --for=create serviceaccount/default --timeout=30s >/dev/null 2>&1 || sleep 2

# job NAME CLAIM MODE(fs|block) [PARALLEL]: with PARALLEL > 1 the pods start
# their measurements at one wall-clock time, so their windows overlap.
job() {
  local name=$1 claim=$2 mode=$3 par=${4:-1} target volume start=0
  [ "$par" -gt 1 ] && start=$(($(date +%s) + 30))
  if [ "$mode" = block ]; then
    target=/dev/xvda
    volume="volumeDevices: [{name: data, devicePath: /dev/xvda}]"
  else
    target='/data/probe-$(POD_NAME)'
    volume="volumeMounts: [{name: data, mountPath: /data}]"
  fi
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: $name, namespace: $ns}
spec:
  backoffLimit: 0
  completions: $par
  parallelism: $par
  template:
    spec:
      restartPolicy: Never
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        fsGroup: 65532
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: probe
        image: $image
        imagePullPolicy: Never
        env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
        args: [iotest, --file, "$target", --size, 128Mi, --rw, "randread,randwrite", --qd, "16", --seconds, "$secs", --ramp, "2", --start-at, "$start"]
        # CPU requests: a BestEffort pod has cpu.shares 2 and, on a busy
        # 2-core machine, cannot issue IO fast enough to reach the caps.
        resources: {requests: {cpu: 500m, memory: 64Mi}, limits: {memory: 256Mi}}
        $volume
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
          readOnlyRootFilesystem: true
      volumes: [{name: data, persistentVolumeClaim: {claimName: $claim}}]
EOF
}

pvc() { # NAME CLASS MODE ACCESS SIZE
  cat <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $1, namespace: $ns}
spec:
  storageClassName: $2
  volumeMode: $3
  accessModes: [$4]
  resources: {requests: {storage: $5}}
EOF
}

# run_job NAME: waits for completion, prints "pod<TAB>json lines" and checks
# the termination message.
run_job() {
  local name=$1 t0=$SECONDS pod
  if ! k -n "$ns" wait --for=condition=Complete "job/$name" --timeout=$((secs * 2 + 120))s >/dev/null; then
    log "job $name did not complete"
    k -n "$ns" describe "job/$name" >&2 || true
    k -n "$ns" get pods -o wide >&2 || true
    k -n "$ns" logs "job/$name" >&2 || true
    exit 1
  fi
  for pod in $(k -n "$ns" get pods -l "job-name=$name" -o jsonpath='{.items[*].metadata.name}'); do
    local msg
    msg=$(k -n "$ns" get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.message}')
    [ -n "$msg" ] || { log "pod $pod has no termination message"; exit 1; }
    log "$name/$pod done in $((SECONDS - t0))s, termination message: $msg"
    k -n "$ns" logs "$pod" | grep '^{' | sed "s|^|$pod\t|"
  done
}

results=()
check() { # CLASS IOPS-CAP BPS-CAP KIND JSONLINES
  local class=$1 cap=$2 bpscap=$3 kind=$4 lines=$5 rw got want field unit dev verdict
  for rw in randread randwrite; do
    field=iops unit=IOPS want=$cap
    # A bandwidth cap that binds before the IOPS cap at 4 KiB is what we check.
    if [ "$bpscap" != 0 ] && { [ "$cap" = 0 ] || [ $((bpscap / 4096)) -lt "$cap" ]; }; then
      field=bytesPerSecond unit=B/s want=$bpscap
    fi
    got=$(grep -F "\"rw\":\"$rw\"" <<<"$lines" | cut -f2 | jq -s "map(.$field) | add | floor")
    if [ "$want" = 0 ]; then
      verdict=uncapped dev=-
    else
      dev=$(jq -n "($got - $want) * 100 / $want | . * 100 | round / 100")
      if jq -e -n "($got - $want) | fabs <= $want * $tol / 100" >/dev/null; then verdict=ok; else verdict=FAIL; fi
    fi
    results+=("$(printf '%-14s %-6s %-10s %-5s %-10s %-10s %-8s %s' "$class" "$kind" "$rw" "$unit" "$want" "$got" "$dev" "$verdict")")
  done
}

# In-cluster API access (what the operator's manager needs): the kubernetes
# Service address is served by the harness's proxy; and no default route.
k -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: incluster, namespace: $ns}
spec:
  restartPolicy: Never
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: check
    image: $image
    imagePullPolicy: Never
    args: [incluster]
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, readOnlyRootFilesystem: true}
EOF
k -n "$ns" wait --for=jsonpath='{.status.phase}'=Succeeded pod/incluster --timeout=60s >/dev/null ||
  { k -n "$ns" logs incluster >&2; log "in-cluster API access FAILED"; exit 1; }
incluster=$(k -n "$ns" logs incluster)
echo "$incluster" | sed 's/^/smoke: incluster: /' >&2
grep -q '"username":"system:serviceaccount:'"$ns"':default"' <<<"$incluster" || { log "unexpected identity"; exit 1; }
if grep -q '0.0.0.0/0' <<<"$incluster"; then log "pods have a default route"; exit 1; fi

uring=
while read -r class cap bps _ blkloop _; do
  k apply -f - >/dev/null <<<"$(pvc "fs-$class" "$class" Filesystem ReadWriteOnce 200Mi)"
  k apply -f - >/dev/null <<<"$(job "fs-$class" "fs-$class" fs)"
  out=$(run_job "fs-$class")
  uring=$(head -1 <<<"$out" | cut -f2 | jq -r .ioUring)
  check "$class" "$cap" "$bps" fs "$out"
  # "-": a class without a block device (GlusterFS: local-path provisions
  # no block volumes).
  if [ "$do_block" = 1 ] && [ "$blkloop" != - ]; then
    k apply -f - >/dev/null <<<"$(pvc "blk-$class" "$class" Block ReadWriteOnce 200Mi)"
    k apply -f - >/dev/null <<<"$(job "blk-$class" "blk-$class" block)"
    out=$(run_job "blk-$class")
    check "$class" "$cap" "$bps" block "$out"
  fi
done <"$state/run/classes.conf"

# Two clients on one shared claim of the lowest-capped class: the cap is per
# device, so their sum should be the cap (device scope; twice the cap in
# container scope).
low=$(awk '$2 > 0 {print $2, $1}' "$state/run/classes.conf" | sort -n | head -1)
if [ -n "$low" ]; then
  cap=${low% *} class=${low#* }
  k apply -f - >/dev/null <<<"$(pvc "shared-$class" "$class" Filesystem ReadWriteMany 200Mi)"
  k apply -f - >/dev/null <<<"$(job "shared-$class" "shared-$class" fs 2)"
  out=$(run_job "shared-$class")
  # In container scope every container gets the full cap: expect twice it.
  cap_scope=device
  # shellcheck disable=SC1091
  . "$state/run/settings"
  [ "$cap_scope" = container ] && cap=$((cap * 2))
  check "$class" "$cap" 0 "2xRWX" "$out"
fi

echo
printf '%-14s %-6s %-10s %-5s %-10s %-10s %-8s %s\n' CLASS KIND RW UNIT CAP MEASURED DEV% VERDICT
printf '%s\n' "${results[@]}"
echo "io_uring in a RuntimeDefault-seccomp pod (containerd $(containerd --version | awk '{print $3}')): $uring"

k delete namespace "$ns" --wait=true >/dev/null
# Released PVs come back Available through the harness's recycler.
sleep 5
k get pv -l storagebench.dev/local-cluster=true --no-headers | awk '{print $5}' | sort | uniq -c | sed 's/^/smoke: PVs /' >&2
! printf '%s\n' "${results[@]}" | grep -q FAIL
