package engine

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{
		"--direct=1", "--ioengine", "io_uring", "--size=1g", "--group_reporting", "--output-format=json+",
		"--name=a", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--iodepth=16", "--numjobs=4",
		"--runtime=10", "--time_based", "--ramp_time=2s", "--filename=/x/f1:/x/f2", "--sync=1",
		"--name=b", "--readwrite=write", "--bsrange=8k-64k", "--blockalign=8k", "--rate_iops=3200",
		"--sync=dsync", "--fsync=8", "--randrepeat=0", "--randseed=42", "--zero_buffers", "--fill=never",
		"--thread", "--nrfiles=3", "--offset=1m", "--directory=/d", "--percentile_list=50:99.9", "--rwmixwrite=20",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jobs))
	}
	a, b := jobs[0], jobs[1]
	wantA := JobSpec{Name: "a", Filenames: []string{"/x/f1", "/x/f2"}, NrFiles: 1, Size: 1 << 30, RW: RWRandMixed, RWMixRead: 70,
		BlockSize: 4096, BSMin: 4096, BSMax: 4096, IODepth: 16, NumJobs: 4, Runtime: 10 * time.Second, Ramp: 2 * time.Second,
		TimeBased: true, Direct: true, Sync: true, IOEngine: EngineIOUring, RandRepeat: true, RandSeed: fioDefaultSeed, Fill: FillIfMissing, Invalidate: true,
		LatencyPercentile: 100, SteadyState: defaultSteadyState}
	a.Options = nil
	if !reflect.DeepEqual(a, wantA) {
		t.Errorf("job a = %+v\nwant    %+v", a, wantA)
	}
	if b.RW != RWWrite || b.BSMin != 8192 || b.BSMax != 65536 || b.BlockAlign != 8192 || b.RateIOPS != 3200 || !b.DSync || b.Sync ||
		b.Fsync != 8 || b.RandRepeat || b.RandSeed != 42 || !b.ZeroBuffers || b.Fill != FillNever || b.NrFiles != 3 ||
		b.Offset != 1<<20 || b.Directory != "/d" || b.RWMixRead != 80 || !b.Direct || b.Size != 1<<30 || b.Filenames != nil {
		t.Errorf("job b = %+v", b)
	}
	if !opts.GroupReporting || opts.OutputFormat != "json+" || !reflect.DeepEqual(opts.PercentileList, []float64{50, 99.9}) || opts.Interval != time.Second {
		t.Errorf("opts = %+v", opts)
	}
	if opts.GlobalOptions["direct"] != "1" || a.Options != nil && a.Options["rw"] != "randrw" || jobs[1].Options["rate_iops"] != "3200" {
		t.Errorf("options echo: global %v, b %v", opts.GlobalOptions, jobs[1].Options)
	}
}

func TestParseArgsDefaults(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{"--name=d", "--size=1m"})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.RW != RWRead || j.BlockSize != 4096 || j.IODepth != 1 || j.NumJobs != 1 || j.IOEngine != EngineAuto || !j.RandRepeat || j.Fill != FillIfMissing {
		t.Errorf("defaults: %+v", j)
	}
	if opts.OutputFormat != "normal" || !reflect.DeepEqual(opts.PercentileList, DefaultPercentiles) {
		t.Errorf("default opts: %+v", opts)
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--name=a", "--size=1m", "--bogus=1"}, `"--bogus"`},
		{[]string{"--name=a", "--size=1m", "--plan=x"}, `"--plan"`},
		{[]string{"--name=a", "--size=1m", "--rw=trim"}, "unknown pattern"},
		{[]string{"--name=a", "--size=1m", "--ioengine=posixaio"}, "unsupported engine"},
		{[]string{"--name=a", "--size=1m", "--bs=4k,8k,16k,32k"}, "has 4 sizes"},
		{[]string{"--name=a", "--size=1m", "--bs=abc"}, "not a size"},
		{[]string{"--name=a", "--size=1m", "--bsrange=4k"}, "not a range"},
		{[]string{"--name=a", "--size=1m", "--runtime=5x"}, "unknown time unit"},
		{[]string{"--name=a", "--size=1m", "--direct=maybe"}, "not a boolean"},
		{[]string{"--name=a", "--size=1m", "--sync=fast"}, "none, sync, dsync"},
		{[]string{"--name=a", "--size=1m", "--fill=sometimes"}, "unknown policy"},
		{[]string{"--name=a", "--size=1m", "--output-format=terse"}, "unsupported output format"},
		{[]string{"--name=a", "--size=1m", "--percentile_list=99:101"}, "not a percentile"},
		{[]string{"--name=a", "--size=1m", "--randseed=x"}, "not a seed"},
		{[]string{"--name=a", "--size=1m", "--filename=a::b"}, "empty file name"},
		{[]string{"--name=a", "--size=1m", "--directory=a:b"}, "several directories"},
		{[]string{"--name=a", "--size=1m", "--iodepth"}, "needs a value"},
		{[]string{"--name=a", "--size=1m", "--iodepth=0"}, "iodepth"},
		{[]string{"--name=a", "--size=1m", "--iodepth=100000"}, "iodepth"},
		{[]string{"--name=a", "--size=1m", "--numjobs=0"}, "numjobs"},
		{[]string{"--name=a", "--size=1m", "--iodepth_batch_submit=-1"}, `--iodepth_batch_submit=-1: "-1" is not a count (negative)`},
		{[]string{"--name=a", "--size=1m", "--iodepth_batch=x"}, `--iodepth_batch_submit=x: "x" is not a count`},
		{[]string{"--name=a", "--size=1m", "--nrfiles=0"}, "nrfiles"},
		{[]string{"--name=a", "--size=1m", "--rwmixread=101"}, "rwmixread"},
		{[]string{"--name=a", "--size=1m", "--time_based"}, "needs a runtime"},
		{[]string{"--name=a", "--size=1m", "--bs=2g"}, "larger than 1 GiB"},
		{[]string{"--name=a"}, "size: needed"},
		{[]string{"--name=a", "--size=2k", "--bs=4k"}, "less than one block"},
		{[]string{"--size=1m"}, "no job given"},
		{[]string{"--name=a", "--size=1m", "--name=a", "--size=1m"}, "two jobs are named"},
		{[]string{"/nonexistent/job.fio"}, "job file"},
	} {
		_, _, err := ParseArgs(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrUsage) {
			t.Errorf("ParseArgs(%q) error = %v, want one containing %q and wrapping ErrUsage", tc.args, err, tc.want)
		}
	}
}

func TestParseArgsReadsJobFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.fio")
	if err := os.WriteFile(path, []byte("[global]\nsize=1m\npercentile_list=99\n[r]\nrw=randread\n[w]\nrw=randwrite\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, opts, err := ParseArgs([]string{"--output-format=json", path})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "r" || jobs[1].RW != RWRandWrite || opts.OutputFormat != "json" || !reflect.DeepEqual(opts.PercentileList, []float64{99}) {
		t.Errorf("jobs %+v opts %+v", jobs, opts)
	}
}

func TestHelpListsEveryOption(t *testing.T) {
	help := HelpText()
	for name := range jobOptions {
		if !strings.Contains(help, "--"+name) {
			t.Errorf("help text lacks --%s", name)
		}
	}
	for _, name := range []string{"--group_reporting", "--percentile_list", "--output-format"} {
		if !strings.Contains(help, name) {
			t.Errorf("help text lacks %s", name)
		}
	}
}

func TestOptionErrorsSayWhichKindOfValue(t *testing.T) {
	const count1 = "is not a count"
	for _, tc := range []struct {
		name string
		arg  string
		want []string
	}{
		{"a negative iodepth asks for a count of at least 1", "--iodepth=-1", []string{`--iodepth=-1: "-1" is not a count (negative): want a whole number >= 1`}},
		{"a negative numjobs asks for a count of at least 1", "--numjobs=-2", []string{count1, "(negative)", "a whole number >= 1"}},
		{"a zero numjobs is below the minimum", "--numjobs=0", []string{count1, "(below 1)", "a whole number >= 1"}},
		{"a non-numeric nrfiles asks for a count", "--nrfiles=many", []string{`"many" is not a count: want a whole number >= 1`}},
		{"a negative fsync asks for a count of at least 0", "--fsync=-1", []string{count1, "a whole number >= 0"}},
		{"a negative rate_iops asks for IOs per second", "--rate_iops=-5", []string{`"-5" is not a rate (negative): want IOs per second, a whole number >= 0`}},
		{"a negative runtime asks for a time", "--runtime=-1", []string{`"-1" is not a time (negative): want a whole number >= 0 with an optional unit us, ms, s, m, h, d`}},
		{"a ramp_time with an unknown unit names the unit", "--ramp_time=5y", []string{"is not a time", `unknown time unit "y"`}},
		{"a rwmixread above 100 asks for a percentage", "--rwmixread=101", []string{`"101" is not a percentage (above 100): want a whole number 0..100`}},
		{"a negative rwmixwrite asks for a percentage", "--rwmixwrite=-1", []string{"is not a percentage (negative)"}},
		{"a negative bs asks for a size", "--bs=-4k", []string{`"-4k" is not a size (negative): want a size such as 4k, 1m`}},
		{"a size with an unknown unit names the unit", "--size=4x", []string{"is not a size", `unknown size unit "x"`}},
		{"a negative offset asks for a size", "--offset=-1", []string{"is not a size (negative)"}},
		{"a too large iodepth says so", "--iodepth=99999999999", []string{count1, "above 2147483647"}},
		{"a count too large for any unit says so", "--numjobs=99999999999999999999", []string{count1, "(too large)"}},
		{"an over-long value is quoted as a short excerpt", "--iodepth=" + strings.Repeat("x", 5000), []string{`--iodepth="xxxxxxxx`, `"...`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseArgs([]string{"--name=a", "--size=1m", tc.arg})
			if err == nil || !errors.Is(err, ErrUsage) {
				t.Fatalf("error %v, want a usage error", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if tc.arg != "--bs=-4k" && tc.arg != "--size=4x" && tc.arg != "--offset=-1" && strings.Contains(msg, "not a size") {
				t.Errorf("error %q calls a count, rate, percentage or time a size", msg)
			}
			if len(msg) > 300 {
				t.Errorf("error is %d bytes long: %.100q...", len(msg), msg)
			}
		})
	}
}

func TestCountsAndRatesTakeFioUnits(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--iodepth=1k", "--rate_iops=2k", "--fsync=0x10", "--offset=010"})
	if err != nil {
		t.Fatal(err)
	}
	if j := jobs[0]; j.IODepth != 1024 || j.RateIOPS != 2048 || j.Fsync != 16 || j.Offset != 10 {
		t.Errorf("iodepth %d, rate_iops %d, fsync %d, offset %d; want 1024, 2048, 16 and 10 (a leading 0 is decimal, as in fio)",
			j.IODepth, j.RateIOPS, j.Fsync, j.Offset)
	}
}
