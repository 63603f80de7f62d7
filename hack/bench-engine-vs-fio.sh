#!/usr/bin/env bash
# Benchmark storagebench's engine against fio on the same file with the same
# arguments. Runs fio and `storagebench engine` alternately (A B A B ...) so
# that drift in the machine or device affects both alike, and prints one
# line per workload: IOPS medians and their ratio, CPU per IO (from each
# tool's JSON: (usr_cpu+sys_cpu)% x job_runtime / total IOs, and from the
# whole process's rusage, which also counts io_uring worker threads and
# runtime threads) and their ratio, clat p50/p99, and the queue depth each
# tool actually kept (fio's iodepth_level buckets: "4-7" means 4 to 7 IOs in
# flight). The depths can differ: fio's io_uring engine rounds --iodepth up
# to a power of two (3 runs as 4), so a depth that is not one gets a second
# line at the next power of two where both tools run the same depth.
#
# Environment:
#   BENCH_FILE     test file (default /var/tmp/storagebench-bench/bench.dat)
#   BENCH_SIZE     its size, fio units (default 2g)
#   BENCH_RUNTIME  seconds per run (default 10)
#   BENCH_ROUNDS   runs per tool and workload (default 3, at least 3)
#   BENCH_ONLY     run only workloads whose name contains this string
#   BENCH_RAW      directory to keep every JSON document in (default: a temp dir)
#   BENCH_BIN      a storagebench binary to use instead of building one
set -euo pipefail

BENCH_FILE=${BENCH_FILE:-/var/tmp/storagebench-bench/bench.dat}
BENCH_SIZE=${BENCH_SIZE:-2g}
BENCH_RUNTIME=${BENCH_RUNTIME:-10}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_ONLY=${BENCH_ONLY:-}
(( BENCH_ROUNDS >= 3 )) || { echo "BENCH_ROUNDS must be at least 3" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
raw=${BENCH_RAW:-$(mktemp -d /tmp/bench-engine-vs-fio.XXXXXX)}
mkdir -p "$raw" "$(dirname "$BENCH_FILE")"

if ! command -v fio >/dev/null; then
	echo "installing Debian's fio" >&2
	apt-get install -y fio >/dev/null || { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
fi
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON results" >&2; exit 2; }

sb=${BENCH_BIN:-$raw/storagebench}
[[ -n ${BENCH_BIN:-} ]] || (cd "$repo" && go build -o "$sb" .)

# Lay the file out once with random data (both tools then reuse it: fio
# sees a file of the right size, our engine a complete non-sparse one).
"$sb" engine --name=layout --filename="$BENCH_FILE" --size="$BENCH_SIZE" --rw=read --bs=1m \
	--runtime=1 --time_based --output-format=json >/dev/null

common=(--filename="$BENCH_FILE" --size="$BENCH_SIZE" --direct=1 --ioengine=io_uring
	--time_based --runtime="$BENCH_RUNTIME" --group_reporting --output-format=json)

workloads=(
	"4k-randread-qd32|--rw=randread --bs=4k --iodepth=32 --numjobs=1"
	"4k-randwrite-qd32|--rw=randwrite --bs=4k --iodepth=32 --numjobs=1"
	"4k-randrw70-qd16-4jobs|--rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --numjobs=4"
	"8k-randwrite-qd3-8jobs-sync|--rw=randwrite --bs=8k --iodepth=3 --numjobs=8 --sync=1"
	"8k-randwrite-qd4-8jobs-sync|--rw=randwrite --bs=8k --iodepth=4 --numjobs=8 --sync=1"
	"1m-read-qd8|--rw=read --bs=1m --iodepth=8 --numjobs=1"
	"4k-randread-qd1|--rw=randread --bs=4k --iodepth=1 --numjobs=1"
)

# run TOOL NAME ARGS...: runs one tool and stores its JSON and process CPU.
run() {
	local tool=$1 name=$2 round=$3
	shift 3
	local out="$raw/$name.$tool.$round.json"
	local cmd
	if [[ $tool == fio ]]; then cmd=(fio); else cmd=("$sb" engine); fi
	python3 - "$out" "${cmd[@]}" --name="$name" "$@" <<'PY'
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

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $(uname -r); fio $(fio --version); file $BENCH_FILE ($BENCH_SIZE); ${BENCH_RUNTIME}s x ${BENCH_ROUNDS} rounds each"
printf '%-28s %9s %9s %6s | %8s %8s %6s | %8s %8s %6s | %13s %13s | %-11s | %s\n' \
	workload fio_iops sb_iops ratio cpu_fio cpu_sb ratio pcpu_fio pcpu_sb ratio "fio_p50/p99" "sb_p50/p99" "qd fio/sb" "iops spread fio / sb"
printf '%-28s %9s %9s %6s | %8s %8s %6s | %8s %8s %6s | %13s %13s | %-11s |\n' \
	"" "" "" "" "us/IO" "us/IO" "" "us/IO" "us/IO" "" "us" "us" "in flight"
for w in "${workloads[@]}"; do
	name=${w%%|*}
	read -r -a args <<<"${w#*|}"
	[[ -z $BENCH_ONLY || $name == *"$BENCH_ONLY"* ]] || continue
	for ((i = 0; i < BENCH_ROUNDS; i++)); do
		run fio "$name" "$i" "${common[@]}" "${args[@]}"
		run sb "$name" "$i" "${common[@]}" "${args[@]}"
	done
	python3 - "$raw" "$name" "$BENCH_ROUNDS" <<'PY'
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
print("%-28s %9.0f %9.0f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %6.0f/%-6.0f %6.0f/%-6.0f | %-11s | %s / %s" % (
    name, f["iops"], s["iops"], ratio(s["iops"], f["iops"]),
    f["cpu"], s["cpu"], ratio(s["cpu"], f["cpu"]),
    f["pcpu"], s["pcpu"], ratio(s["pcpu"], f["pcpu"]),
    f["p50"], f["p99"], s["p50"], s["p99"], depth["fio"] + "/" + depth["sb"], spread("fio"), spread("sb")))
if depth["fio"] != depth["sb"]:
    print("  ^ not the same queue depth: the ratio compares unequal work (fio's io_uring engine rounds iodepth up to a power of two)")
PY
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); raw results in $raw"
