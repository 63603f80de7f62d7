//go:build linux

package engine

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A window whose limit any load meets ends the job as soon as the window is
// full: ss_ramp, then ss_dur of samples, long before the runtime.
func TestSteadyStateEndsTheJobOnceAttained(t *testing.T) {
	withQueueDevice(t, 100*time.Microsecond)
	start := time.Now()
	doc := mustRun(t, "--name=ss", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--ioengine=libaio", "--iodepth=16",
		"--ss=iops:1000%", "--ss_dur=2", "--ss_ramp=1", "--runtime=60", "--time_based", "--output-format=json")
	took := time.Since(start)
	ss := doc.Jobs[0].SteadyState
	if ss == nil || ss.Attained != 1 || ss.SS != "iops:1000.000000%" || ss.Duration != 2 || len(ss.Data.IOPS) != 2 {
		t.Fatalf("steadystate %+v, want attained over a full window of 2 samples", ss)
	}
	// The device serves 10,000 IOPS: so are the samples, and their mean.
	for _, v := range append(ss.Data.IOPS, ss.Data.IOPSMean) {
		if v < 5000 || v > 10500 {
			t.Fatalf("samples %v mean %d, want about 10000 IOPS", ss.Data.IOPS, ss.Data.IOPSMean)
		}
	}
	if ss.Data.BwMean < ss.Data.IOPSMean*4096*9/10 || ss.Data.BwMean > ss.Data.IOPSMean*4096*11/10 {
		t.Fatalf("bandwidth mean %d B/s for %d IOPS of 4 KiB", ss.Data.BwMean, ss.Data.IOPSMean)
	}
	// ramp 1 s, baseline at the next sample, two samples: 3 to 4 s.
	if took < 2900*time.Millisecond || took > 10*time.Second {
		t.Fatalf("the job ran %v, want it ended at about 3 s by its steady state", took)
	}
}

func TestSteadyStateNotAttainedRunsToTheEnd(t *testing.T) {
	withQueueDevice(t, 100*time.Microsecond)
	jobs, opts := job(t, "--name=ss", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--ioengine=libaio",
		"--ss=iops_slope:0%", "--ss_dur=1", "--runtime=2500ms", "--time_based")
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	j := doc.Jobs[0]
	if ss := j.SteadyState; ss == nil || ss.Attained != 0 || ss.Criterion != "0.000000%" || j.Read.Runtime < 2400 {
		t.Fatalf("steadystate %+v after %d ms; want not attained (a slope is never below 0 %%) and the whole runtime", ss, j.Read.Runtime)
	}
	var out bytes.Buffer
	if err := writeNormal(&out, doc); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\n  steadystate  : attained=no, bw=[0-9.]+MiB/s \([0-9.]+MB/s\), iops=[0-9.]+k?, iops slope=0\.000%\n`).Match(out.Bytes()) {
		t.Fatalf("normal output lacks fio's steadystate line:\n%s", out.String())
	}
}

// With group_reporting the group is judged as one and ends as one.
func TestSteadyStateWithGroupReportingJudgesTheGroup(t *testing.T) {
	withQueueDevice(t, 100*time.Microsecond)
	doc := mustRun(t, "--group_reporting", "--name=ss", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--ioengine=libaio",
		"--iodepth=16", "--numjobs=3", "--ss=iops:1000%", "--ss_dur=2", "--runtime=60", "--time_based", "--output-format=json")
	if len(doc.Jobs) != 1 {
		t.Fatalf("%d entries, want the group's one", len(doc.Jobs))
	}
	j := doc.Jobs[0]
	// Each clone has its own modelled device: the group's samples are
	// three devices' IOPS.
	if ss := j.SteadyState; ss == nil || ss.Attained != 1 || ss.Data.IOPSMean < 15000 || j.Read.Runtime > 10000 {
		t.Fatalf("steadystate %+v after %d ms, want attained on the sum of 3 clones (up to 30000 IOPS, more than one clone's 10000)", ss, j.Read.Runtime)
	}
}

// fio refuses differing steady-state settings within a reporting group,
// with or without group_reporting ("steadystate options must be consistent
// within reporting groups"); a job in a group of its own may differ.
func TestSteadyStateMustBeOneSettingPerReportingGroup(t *testing.T) {
	for _, grouped := range []string{"--group_reporting", "--group_reporting=0"} {
		jobs, opts := job(t, grouped, "--name=a", "--directory="+t.TempDir(), "--size=1m", "--ss_dur=2",
			"--name=b", "--size=1m", "--ss_dur=3")
		_, err := Run(context.Background(), jobs, opts)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `job "b": steadystate: the jobs of a reporting group must share`) ||
			!strings.Contains(err.Error(), `differ from job "a"'s`) {
			t.Fatalf("%s: error %v", grouped, err)
		}
	}
	jobs, _ := job(t, "--name=a", "--directory="+t.TempDir(), "--size=1m", "--ss_dur=2", "--name=b", "--size=1m", "--new_group")
	if err := checkSteadyGroups(runGroups(jobs)); err != nil {
		t.Fatalf("a job with new_group is a reporting group of its own: %v", err)
	}
}
