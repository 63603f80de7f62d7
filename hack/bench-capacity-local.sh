#!/usr/bin/env bash
# Capacity searches against a known knee, without a cluster: `storagebench
# run` searches the most IOPS a capped device carries with p99 within a
# bound, and prints what it found against the cap.
#
# The device is a loop device over a file in memory (so the device itself is
# far faster than the cap), with ext4 on it, throttled by a blkio cgroup
# (v1) to CAP read and write IOPS. Below the cap every IO is served at once;
# above it the queue grows for as long as the step runs, so latency measured
# from each IO's intended start passes the bound within a second. The search
# must find the cap within 5 %.
#
# Needs root, cgroup v1 blkio, losetup and mkfs.ext4. Usage:
#   hack/bench-capacity-local.sh            # caps 1500 and 4000, Rate and QueueDepth
#   CAPS="800 3000" BOUND_US=5000 hack/bench-capacity-local.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

caps=${CAPS:-1500 4000}
bound_us=${BOUND_US:-20000}
varies=${VARIES:-Rate QueueDepth}
work=$(mktemp -d /tmp/storagebench-capacity.XXXXXX)
cgroup=/sys/fs/cgroup/blkio/storagebench-capacity-$$
dev=""

cleanup() {
  set +e
  mountpoint -q "$work/mnt" && umount "$work/mnt"
  [ -n "$dev" ] && losetup -d "$dev"
  mountpoint -q "$work/mem" && umount "$work/mem"
  [ -d "$cgroup" ] && rmdir "$cgroup"
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "${KEEP_JSON:-}" ] && trap 'cp "$work/out.json" "$KEEP_JSON"; cleanup' EXIT

[ "$(id -u)" = 0 ] || { echo "bench-capacity-local: needs root (loop devices, cgroups)" >&2; exit 2; }
[ -d /sys/fs/cgroup/blkio ] || { echo "bench-capacity-local: needs the cgroup v1 blkio controller at /sys/fs/cgroup/blkio" >&2; exit 2; }

go build -o "$work/storagebench" "$repo"
mkdir -p "$work/mem" "$work/mnt"
mount -t tmpfs -o size=1200m tmpfs "$work/mem"
truncate -s 1g "$work/mem/backing"
dev=$(losetup --find --show "$work/mem/backing")
mkfs.ext4 -q -F "$dev"
mount "$dev" "$work/mnt"
majmin=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
mkdir "$cgroup"

spec() { # vary
  cat <<EOF
apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata:
  name: capacity-local
spec:
  targets:
  - name: capped
    storageClassName: capped
    size: 1Gi
  dataset:
    sizePerClient: 256Mi
  workloads:
  - name: knee
    blockSizes: [4Ki]
    readPercents: [100]
    queueDepths: [128]
    rampSeconds: 1
    durationSeconds: 4
    latencyTarget:
      percentile: P99
      microseconds: $bound_us
      vary: $1
EOF
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $dev (ext4 on a loop device in memory), bound P99 <= $bound_us us"
printf '%-11s %6s %10s %8s %7s %9s %6s %8s  %s\n' vary cap found ratio steps p99_us qd seconds outcome
status=0
for cap in $caps; do
  echo "$majmin $cap" >"$cgroup/blkio.throttle.read_iops_device"
  echo "$majmin $cap" >"$cgroup/blkio.throttle.write_iops_device"
  for vary in $varies; do
    spec "$vary" >"$work/spec.yaml"
    began=$(date +%s.%N)
    # The run's threads are in the capped cgroup: v1 throttles apply to the
    # cgroup of the thread that submits the IO.
    sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$cgroup" \
      "$work/storagebench" run -f "$work/spec.yaml" --target "capped=$work/mnt" -o json >"$work/out.json" 2>"$work/err.log" ||
      { echo "run failed ($vary, cap $cap):"; cat "$work/err.log"; exit 1; }
    took=$(echo "$(date +%s.%N) - $began" | bc)
    python3 - "$work/out.json" "$cap" "$vary" "$took" <<'PY' || status=1
import json, sys
doc, cap, vary, took = json.load(open(sys.argv[1])), float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
s = doc["targets"][0]["searches"][0]
c = s.get("capacity") or {}
found = c.get("achievedIOPS", 0.0)
ratio = found / cap
print("%-11s %6d %10.1f %8.3f %7d %9.1f %6s %8.1f  %s" % (vary, cap, found, ratio, len(s["steps"]),
      c.get("atPercentileNs", 0) / 1000, c.get("queueDepth", "-"), took, s["message"]))
sys.exit(0 if abs(ratio - 1) <= 0.05 else 1)
PY
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$status" = 0 ] && echo "every search found its cap within 5 %" || echo "a search missed its cap by more than 5 %"
exit "$status"
