#!/usr/bin/env bash
# Benchmark storagebench's engine against fio on the same file or device with
# the same arguments. Runs fio and `storagebench engine` alternately, in
# turn first (A B B A A B ...), so that drift in the machine or device and
# the after-effects of one run on the next affect both alike, and prints
# one line per workload: IOPS medians and their ratio, CPU per IO (from each
# tool's JSON: (usr_cpu+sys_cpu)% x job_runtime / total IOs, and from the
# whole process's rusage, which also counts io_uring worker threads and
# runtime threads) and their ratio, clat p50/p99, and the queue depth each
# tool actually kept (fio's iodepth_level buckets: "4-7" means 4 to 7 IOs in
# flight). The depths can differ: fio's io_uring engine rounds --iodepth up
# to a power of two (3 runs as 4), so a depth that is not one gets a second
# line at the next power of two where both tools run the same depth.
#
# Three targets, each with its own table:
#   device  a loop device over a file on tmpfs, built (and removed) by the
#           script: O_DIRECT IO goes through the block layer into memory, so
#           the device costs little and the tools' own cost per IO decides
#           the rate, as on local NVMe (../shared/notes/storage-on-this-machine.md)
#   file    a file on the machine's disk, where the disk decides
#   zram    a zram device (compressed memory; the random data laid out is
#           incompressible and kept as is), built and removed by the script:
#           zram does a psync or libaio IO in the thread that submits it,
#           with no kernel worker between, as an NVMe queue completes on
#           the submitting CPU. The loop device hands every IO to a worker
#           thread, and where the scheduler puts that worker changes what
#           one job waiting on one IO at a time gets (docs/engine-vs-fio.md).
#           io_uring cannot issue to zram without blocking, so it hands
#           each IO to its own worker threads there
#   null    no storage at all: ioengine=null in both tools (no file, each
#           IO completes at once), so IOPS and CPU per IO are each tool's
#           own cost per IO and nothing else
#   metadata  a directory on the machine's disk: fio's file engines
#           (filecreate, then filestat, then filedelete on the same files,
#           each tool on its own fresh directory, the tools in turn
#           first); "IOPS" is operations per second and CPU per IO is CPU
#           per operation. fio runs with openfiles=1, as its own example
#           job does
#
# Environment:
#   BENCH_TARGETS  any of device, zram, file, null, metadata (default: device
#                  file metadata)
#   BENCH_FILE     test file (default /var/tmp/storagebench-bench/bench.dat)
#   BENCH_SIZE     size of the file and of the device (default 2g)
#   BENCH_RUNTIME  seconds per run (default 5)
#   BENCH_ROUNDS   runs per tool and workload (default 3, at least 3)
#   BENCH_ONLY     run only workloads whose name contains this string
#   BENCH_MD_DIR   metadata directory (default /var/tmp/storagebench-bench/md)
#   BENCH_MD_FILES files per metadata run (default 8000)
#   BENCH_RAW      directory to keep every JSON document in (default: a temp dir)
#   BENCH_BIN      a storagebench binary to use instead of building one
#   BENCH_ARGS     more arguments for both tools on every line, such as
#                  "--cpus_allowed=0-1 --cpus_allowed_policy=split" to compare
#                  them with their threads pinned
#   BENCH_ONE_CPU  1: run both tools, and the kernel's unbound workqueues (the
#                  loop device's worker among them), on CPU 0 only, restoring
#                  the workqueue mask afterwards. Nothing runs on another CPU,
#                  so no IO waits for a wake-up across CPUs and the sum of the
#                  tool's and the kernel's cost per IO decides the rate
set -euo pipefail

BENCH_FILE=${BENCH_FILE:-/var/tmp/storagebench-bench/bench.dat}
BENCH_SIZE=${BENCH_SIZE:-2g}
BENCH_RUNTIME=${BENCH_RUNTIME:-5}
BENCH_TARGETS=${BENCH_TARGETS:-device file metadata}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_ONLY=${BENCH_ONLY:-}
BENCH_MD_DIR=${BENCH_MD_DIR:-/var/tmp/storagebench-bench/md}
BENCH_MD_FILES=${BENCH_MD_FILES:-8000}
BENCH_ONE_CPU=${BENCH_ONE_CPU:-0}
read -r -a bench_args <<<"${BENCH_ARGS:-}"
(( BENCH_ROUNDS >= 3 )) || { echo "BENCH_ROUNDS must be at least 3" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
raw=${BENCH_RAW:-$(mktemp -d /tmp/bench-engine-vs-fio.XXXXXX)}
mkdir -p "$raw"

if ! command -v fio >/dev/null; then
	echo "installing Debian's fio" >&2
	apt-get install -y fio >/dev/null || { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
fi
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON results" >&2; exit 2; }

sb=${BENCH_BIN:-$raw/storagebench}
[[ -n ${BENCH_BIN:-} ]] || (cd "$repo" && go build -o "$sb" .)

# One CPU: the tools under taskset, the unbound workqueues' mask set to CPU 0
# (and put back on exit).
pin=()
wq_mask=/sys/devices/virtual/workqueue/cpumask
wq_saved=""
if [[ $BENCH_ONE_CPU == 1 ]]; then
	command -v taskset >/dev/null || { echo "BENCH_ONE_CPU needs taskset (util-linux)" >&2; exit 2; }
	[[ -w $wq_mask ]] || { echo "BENCH_ONE_CPU needs a writable $wq_mask (root)" >&2; exit 2; }
	wq_saved=$(cat "$wq_mask")
	echo 1 >"$wq_mask"
	pin=(taskset -c 0)
fi

# The memory-backed device: a loop device over a file on tmpfs.
device_dir="" device=""
remove_device() {
	[[ -n $device ]] && losetup -d "$device" 2>/dev/null || true
	if [[ -n $device_dir ]]; then
		sleep 1 # the loop device lets go of its backing file asynchronously
		umount "$device_dir" 2>/dev/null || true
		rmdir "$device_dir" 2>/dev/null || true
	fi
}
cleanup() {
	remove_device
	remove_zram
	[[ -z $wq_saved ]] || echo "$wq_saved" >"$wq_mask"
}
trap cleanup EXIT
make_device() {
	command -v losetup >/dev/null || { echo "losetup (util-linux) is needed for the device target" >&2; exit 2; }
	device_dir=$(mktemp -d /tmp/bench-engine-device.XXXXXX)
	local bytes
	bytes=$(python3 -c "import sys; u={'k':1<<10,'m':1<<20,'g':1<<30}; s=sys.argv[1].lower(); print(int(s[:-1])*u[s[-1]] if s[-1] in u else int(s))" "$BENCH_SIZE")
	mount -t tmpfs -o size=$((bytes + (256 << 20))) tmpfs "$device_dir"
	truncate -s "$bytes" "$device_dir/img"
	device=$(losetup -f --show --direct-io=on "$device_dir/img")
}

# The device without a worker thread: a zram device of its own, added
# through zram-control (so that one in use, as swap say, is not touched).
zram=""
remove_zram() {
	[[ -n $zram ]] || return 0
	echo 1 >"/sys/block/$zram/reset" 2>/dev/null || true
	echo "${zram#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null || true
	zram=""
}
make_zram() {
	[[ -r /sys/class/zram-control/hot_add ]] || { echo "the zram target needs the kernel's zram driver (no /sys/class/zram-control)" >&2; exit 2; }
	zram=zram$(cat /sys/class/zram-control/hot_add) # reading it adds a device
	echo "$BENCH_SIZE" >"/sys/block/$zram/disksize"
}

# Lay a target out once with random data (both tools then reuse it: fio
# sees a file of the right size, our engine a complete non-sparse one).
layout() {
	"$sb" engine --name=layout --filename="$1" --size="$BENCH_SIZE" --rw=read --bs=1m \
		--runtime=1 --time_based --output-format=json >/dev/null
}

# name|arguments: the same for both tools. Every backend, one and several
# jobs, queue depths 1 to 64, 4 KiB and 128 KiB, reads, writes and mixes.
workloads=(
	"uring-4k-randread-qd1|--ioengine=io_uring --rw=randread --bs=4k --iodepth=1 --numjobs=1"
	"uring-4k-randread-qd8|--ioengine=io_uring --rw=randread --bs=4k --iodepth=8 --numjobs=1"
	"uring-4k-randread-qd32|--ioengine=io_uring --rw=randread --bs=4k --iodepth=32 --numjobs=1"
	"uring-4k-randread-qd64|--ioengine=io_uring --rw=randread --bs=4k --iodepth=64 --numjobs=1"
	"uring-4k-randread-qd8-4jobs|--ioengine=io_uring --rw=randread --bs=4k --iodepth=8 --numjobs=4"
	"uring-4k-randwrite-qd32|--ioengine=io_uring --rw=randwrite --bs=4k --iodepth=32 --numjobs=1"
	"uring-4k-randrw70-qd16-4jobs|--ioengine=io_uring --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --numjobs=4"
	"uring-128k-read-qd8|--ioengine=io_uring --rw=read --bs=128k --iodepth=8 --numjobs=1"
	"uring-128k-write-qd8|--ioengine=io_uring --rw=write --bs=128k --iodepth=8 --numjobs=1"
	"uring-8k-randwrite-qd4-8jobs-sync|--ioengine=io_uring --rw=randwrite --bs=8k --iodepth=4 --numjobs=8 --sync=1"
	"libaio-4k-randread-qd1|--ioengine=libaio --rw=randread --bs=4k --iodepth=1 --numjobs=1"
	"libaio-4k-randread-qd8|--ioengine=libaio --rw=randread --bs=4k --iodepth=8 --numjobs=1"
	"libaio-4k-randread-qd32|--ioengine=libaio --rw=randread --bs=4k --iodepth=32 --numjobs=1"
	"libaio-4k-randrw70-qd16-2jobs|--ioengine=libaio --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --numjobs=2"
	"libaio-128k-write-qd8|--ioengine=libaio --rw=write --bs=128k --iodepth=8 --numjobs=1"
	"psync-4k-randread-1job|--ioengine=psync --rw=randread --bs=4k --numjobs=1"
	"psync-4k-randread-8jobs|--ioengine=psync --rw=randread --bs=4k --numjobs=8"
	"psync-4k-randwrite-4jobs|--ioengine=psync --rw=randwrite --bs=4k --numjobs=4"
	"psync-128k-read-2jobs|--ioengine=psync --rw=read --bs=128k --numjobs=2"
	# bssplit with --norandommap: fio's random map (its default) shortens
	# IOs whose blocks were partly visited, which changes fio's size mix
	# (4k/70:64k/30 then averages 11.5k instead of 22.5k); the engine
	# has no random map.
	"uring-bssplit-randread-qd16|--ioengine=io_uring --rw=randread --bssplit=4k/70:64k/30 --norandommap --iodepth=16 --numjobs=1"
	"uring-4k-randread-zipf1.2-qd16|--ioengine=io_uring --rw=randread --random_distribution=zipf:1.2 --bs=4k --iodepth=16 --numjobs=1"
	"uring-4k-randread-30pct-random-qd8|--ioengine=io_uring --rw=randread --percentage_random=30 --bs=4k --iodepth=8 --numjobs=1"
	# Paced with Poisson arrivals: both tools should deliver the rate; the
	# latency columns differ by design (the engine times a paced IO from
	# its arrival, fio from its issue).
	"uring-4k-randread-poisson-20k-qd16|--ioengine=io_uring --rw=randread --bs=4k --iodepth=16 --numjobs=1 --rate_iops=20000 --rate_process=poisson"
	# Verified writes, read back every 1024 writes (a time-based job reads
	# nothing back otherwise, in both tools): IOPS counts the writes and
	# the checked reads; each tool checks its own header format.
	"uring-4k-randwrite-verify-crc32c-qd16|--ioengine=io_uring --rw=randwrite --bs=4k --iodepth=16 --numjobs=1 --verify=crc32c --verify_backlog=1024"
	"uring-128k-write-verify-md5-qd8|--ioengine=io_uring --rw=write --bs=128k --iodepth=8 --numjobs=1 --verify=md5 --verify_backlog=256"
)

# run TOOL NAME ARGS...: runs one tool and stores its JSON and process CPU.
run() {
	local tool=$1 name=$2 round=$3
	shift 3
	local out="$raw_dir/$name.$tool.$round.json"
	local cmd
	if [[ $tool == fio ]]; then cmd=("${pin[@]}" fio); else cmd=("${pin[@]}" "$sb" engine); fi
	python3 - "$out" "${cmd[@]}" --name="${JOB_NAME:-$name}" "$@" <<'PY'
import resource, subprocess, sys
out = sys.argv[1]
with open(out, "w") as f:
    p = subprocess.run(sys.argv[2:], stdout=f)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out + ".cpu", "w") as f:
    f.write("%f\n" % (r.ru_utime + r.ru_stime))
sys.exit(p.returncode)
PY
}

# pair_order ROUND: the two tools in the order they run in that round, fio
# first in even rounds and storagebench first in odd ones. A disk's state
# after a run (a write-back cache still flushing, a burst budget spent) can
# fall on the run after it; with fio always first, such an after-effect
# would count against the engine in every round (docs/engine-vs-fio.md has
# the case that showed it).
pair_order() {
	if (($1 % 2)); then echo "sb fio"; else echo "fio sb"; fi
}

# run_pair NAME ROUND ARGS...: both tools, in the round's order.
run_pair() {
	local tool
	for tool in $(pair_order "$2"); do
		run "$tool" "$@"
	done
}

# bench TARGET-PATH DESCRIPTION: the whole table for one target.
bench() {
	local target=$1 what=$2
	raw_dir=$raw/$3
	mkdir -p "$raw_dir"
	local common=(--filename="$target" --size="$BENCH_SIZE" --direct=1
		--time_based --runtime="$BENCH_RUNTIME" --group_reporting --output-format=json "${bench_args[@]}")
	echo "$what"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(uname -r); fio $(fio --version); $target ($BENCH_SIZE); ${BENCH_RUNTIME}s x ${BENCH_ROUNDS} rounds each${BENCH_ARGS:+; both tools with $BENCH_ARGS}${pin[*]:+; everything on CPU 0}"
	print_header
	local w name args i
	for w in "${workloads[@]}"; do
		name=${w%%|*}
		read -r -a args <<<"${w#*|}"
		[[ -z $BENCH_ONLY || $name == *"$BENCH_ONLY"* ]] || continue
		for ((i = 0; i < BENCH_ROUNDS; i++)); do
			run_pair "$name" "$i" "${common[@]}" "${args[@]}"
		done
		summarize "$name"
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_null: each tool's own cost per IO, with fio's null engine in both
# (no file is opened; the name only labels the job).
null_workloads=(
	"null-4k-randread-qd1|--ioengine=null --rw=randread --bs=4k --iodepth=1 --numjobs=1"
	"null-4k-randread-qd32|--ioengine=null --rw=randread --bs=4k --iodepth=32 --numjobs=1"
	"null-4k-randrw70-qd8-2jobs|--ioengine=null --rw=randrw --rwmixread=70 --bs=4k --iodepth=8 --numjobs=2"
)
bench_null() {
	raw_dir=$raw/null
	mkdir -p "$raw_dir"
	local common=(--filename=null-bench --size=1g --time_based --runtime="$BENCH_RUNTIME" --group_reporting --output-format=json "${bench_args[@]}")
	echo "== ioengine=null in both tools: no storage, each tool's own cost per IO"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(uname -r); fio $(fio --version); ${BENCH_RUNTIME}s x ${BENCH_ROUNDS} rounds each${pin[*]:+; everything on CPU 0}"
	print_header
	local w name args i
	for w in "${null_workloads[@]}"; do
		name=${w%%|*}
		read -r -a args <<<"${w#*|}"
		[[ -z $BENCH_ONLY || $name == *"$BENCH_ONLY"* ]] || continue
		for ((i = 0; i < BENCH_ROUNDS; i++)); do
			run_pair "$name" "$i" "${common[@]}" "${args[@]}"
		done
		summarize "$name"
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_metadata DIR: the file engines' table. Each round runs the three
# phases on fresh files with one tool, then with the other.
metadata_phases=(filecreate filestat filedelete)
bench_metadata() {
	local dir=$1
	raw_dir=$raw/metadata
	mkdir -p "$raw_dir"
	local common=(--nrfiles="$BENCH_MD_FILES" --filesize=4k --bs=4k --openfiles=1 --output-format=json "${bench_args[@]}")
	echo "== directory $dir on the machine's disk: fio's file engines, $BENCH_MD_FILES files, one job; IOPS = operations/s"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(uname -r); fio $(fio --version); ${BENCH_ROUNDS} rounds each"
	local i tool phase
	for ((i = 0; i < BENCH_ROUNDS; i++)); do
		for tool in $(pair_order "$i"); do
			rm -rf "${dir:?}/$tool"
			mkdir -p "$dir/$tool"
			for phase in "${metadata_phases[@]}"; do
				JOB_NAME=md run "$tool" "md-$phase" "$i" --directory="$dir/$tool" --ioengine="$phase" "${common[@]}"
			done
		done
	done
	rm -rf "${dir:?}"
	print_header
	for phase in "${metadata_phases[@]}"; do
		[[ -z $BENCH_ONLY || "md-$phase" == *"$BENCH_ONLY"* ]] || continue
		summarize "md-$phase"
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

print_header() {
	printf '%-34s %9s %9s %6s | %8s %8s %6s | %8s %8s %6s | %13s %13s | %-11s | %s\n' \
		workload fio_iops sb_iops ratio cpu_fio cpu_sb ratio pcpu_fio pcpu_sb ratio "fio_p50/p99" "sb_p50/p99" "qd fio/sb" "iops spread fio / sb"
	printf '%-34s %9s %9s %6s | %8s %8s %6s | %8s %8s %6s | %13s %13s | %-11s |\n' \
		"" "" "" "" "us/IO" "us/IO" "" "us/IO" "us/IO" "" "us" "us" "in flight"
}

summarize() {
	python3 - "$raw_dir" "$1" "$BENCH_ROUNDS" <<'PY'
import json, statistics, sys
raw, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])

def one(tool, i):
    path = "%s/%s.%s.%d.json" % (raw, name, tool, i)
    with open(path) as f:
        text = f.read()
    doc = json.loads(text[text.index("{"):])
    ios = iops = cpu_s = 0.0
    best = None
    for j in doc["jobs"]:
        for d in ("read", "write"):
            ios += j[d]["total_ios"]
            iops += j[d]["iops"]
            if j[d]["runtime"] == 0 and j[d]["total_ios"] > 0:
                # fio gives its verify reads no runtime (and iops 0):
                # count them over the job's.
                iops += j[d]["total_ios"] / (j["job_runtime"] / 1000)
            if best is None or j[d]["total_ios"] > best["total_ios"]:
                best = j[d]
        cpu_s += (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000
    with open(path + ".cpu") as f:
        proc_cpu = float(f.read())
    pct = best["clat_ns"].get("percentile", {})
    return dict(iops=iops, cpu=cpu_s / ios * 1e6, pcpu=proc_cpu / ios * 1e6,
                p50=pct.get("50.000000", 0) / 1e3, p99=pct.get("99.000000", 0) / 1e3,
                depth=depth_bucket(doc["jobs"]))

# The iodepth_level bucket holding most submissions, summed over jobs.
DEPTH_RANGES = {"1": "1", "2": "2-3", "4": "4-7", "8": "8-15", "16": "16-31", "32": "32-63", ">=64": ">=64"}
def depth_bucket(jobs):
    share = {}
    for j in jobs:
        for k, v in j.get("iodepth_level", {}).items():
            share[k] = share.get(k, 0) + float(v)
    if not share or max(share.values()) == 0:
        return "?"
    return DEPTH_RANGES.get(max(share, key=share.get), "?")

res = {t: [one(t, i) for i in range(rounds)] for t in ("fio", "sb")}
med = {t: {k: statistics.median(r[k] for r in res[t]) for k in res[t][0] if k != "depth"} for t in res}
depth = {t: "/".join(sorted({r["depth"] for r in res[t]})) for t in res}
f, s = med["fio"], med["sb"]
ratio = lambda a, b: (a / b) if b else float("nan")
spread = lambda t: "%.0f-%.0f" % (min(r["iops"] for r in res[t]), max(r["iops"] for r in res[t]))
print("%-34s %9.0f %9.0f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %6.0f/%-6.0f %6.0f/%-6.0f | %-11s | %s / %s" % (
    name, f["iops"], s["iops"], ratio(s["iops"], f["iops"]),
    f["cpu"], s["cpu"], ratio(s["cpu"], f["cpu"]),
    f["pcpu"], s["pcpu"], ratio(s["pcpu"], f["pcpu"]),
    f["p50"], f["p99"], s["p50"], s["p99"], depth["fio"] + "/" + depth["sb"], spread("fio"), spread("sb")))
if depth["fio"] != depth["sb"]:
    print("  ^ not the same queue depth as the tools count it: the ratio may compare unequal work (fio's io_uring engine rounds iodepth up to a power of two; fio's null engine counts each one-IO commit as depth 1; otherwise the tools did hand IOs to the kernel with different numbers already in flight)")
PY
}

for t in $BENCH_TARGETS; do
	case $t in
	device)
		make_device
		layout "$device"
		bench "$device" "== memory-backed loop device $device (tmpfs): the tools' own cost per IO decides" device
		remove_device
		device="" device_dir=""
		;;
	zram)
		make_zram
		layout "/dev/$zram"
		bench "/dev/$zram" "== zram device /dev/$zram (memory; psync and libaio IO done in the submitting thread, io_uring's by its workers): the tools' own cost per IO decides" zram
		remove_zram
		;;
	file)
		mkdir -p "$(dirname "$BENCH_FILE")"
		layout "$BENCH_FILE"
		bench "$BENCH_FILE" "== file $BENCH_FILE on the machine's disk: the disk decides" file
		;;
	null)
		bench_null
		;;
	metadata)
		bench_metadata "$BENCH_MD_DIR"
		;;
	*) echo "BENCH_TARGETS: unknown target $t (device, zram, file, null, metadata)" >&2; exit 2 ;;
	esac
	echo
done
echo "raw results in $raw"
