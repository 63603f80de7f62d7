package engine

import (
	"strings"
	"testing"
)

// FuzzParseArgs: no command line may panic the parser, and whatever it
// accepts must be a valid job set.
func FuzzParseArgs(f *testing.F) {
	f.Add("--name=a --size=1m --rw=randrw --bs=4k --iodepth=32")
	f.Add("--direct=1 --name=x --filename=/tmp/a:/tmp/b --bsrange=4k-1m --rate_iops=100 --runtime=1h --time_based")
	f.Add("--name=a --size=0x1000 --sync=dsync --percentile_list=1:99.99 --output-format=json+")
	f.Add("--name --size")
	f.Add("--bssplit=4k/50:64k/ --name=a --size=1m --bs=0 --rate=1m --random_distribution=zoned:60/10:40/90 --number_ios=3")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return // positional arguments would be opened as files
			}
		}
		jobs, _, err := ParseArgs(args)
		if err != nil {
			return
		}
		for i := range jobs {
			if err := jobs[i].validate(); err != nil {
				t.Fatalf("accepted an invalid job: %v", err)
			}
		}
	})
}

// FuzzParseJobFile: no job file may panic the parser; accepted jobs are
// valid.
func FuzzParseJobFile(f *testing.F) {
	f.Add("[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=4k\nnumjobs=4\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\n")
	f.Add("[a]\nsize=1m\n; c\n# c\ntime_based\nruntime=1\n[global]\nrate_iops=5\n[b]\nsize=2m\n")
	f.Add("[\n=\n[x]\nbs=\n")
	f.Add("[a]\nsize=${SIZE}\nbs=$pagesize ; c\nname=b # c\nstonewall\n[c]\nnew_group\nsize=1m\n")
	f.Add("[global-x]\nbssplit=4k/10:64k/50\n[a]\nsize=1m\nbs=0\nrate=1m\nrandom_distribution=zipf:1.2:0.5\nloops=3\nio_size=1t\n")
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "include") {
			return // an include would open whatever file it names (a FIFO, a terminal)
		}
		jobs, err := ParseJobFile(strings.NewReader(src), "fuzz.fio")
		if err != nil {
			return
		}
		for i := range jobs {
			if err := jobs[i].validate(); err != nil {
				t.Fatalf("accepted an invalid job: %v", err)
			}
		}
	})
}
