//go:build linux

package engine

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// notStopped is a run that is never stopped.
var notStopped atomic.Bool

// The think comes after every thinktime_blocks IOs completed, waits for the
// IOs in flight, and lasts thinktime from the moment the last one is in.
func TestAThinkWaitsForTheQueueThenLastsThinktime(t *testing.T) {
	th := newThinker(ThinkTime{Time: time.Millisecond, Blocks: 4, BlocksSet: true}, 0)
	for range 3 {
		th.issuedOne(0)
	}
	th.completed = 3
	th.check(10)
	if free, _ := th.room(5, 0, 10, math.MaxInt64, &notStopped); free != 5 {
		t.Fatalf("3 of 4 blocks done: room %d, want the 5 free slots", free)
	}
	th.issuedOne(20)
	th.completed = 4
	th.check(30)
	if free, _ := th.room(5, 2, 30, math.MaxInt64, &notStopped); free != 0 {
		t.Fatalf("the 4th block done, 2 IOs in flight: room %d, want 0 while they drain", free)
	}
	if th.resumeAt() != 0 {
		t.Fatalf("thinking before the queue drained (resume at %d)", th.resumeAt())
	}
	drained := int64(1000)
	if free, _ := th.room(7, 0, drained, math.MaxInt64, &notStopped); free != 0 || th.resumeAt() != drained+int64(time.Millisecond) {
		t.Fatalf("drained at %d: room %d, resume at %d; want 0 until %d", drained, free, th.resumeAt(), drained+int64(time.Millisecond))
	}
	if free, _ := th.room(7, 0, drained+int64(time.Millisecond), math.MaxInt64, &notStopped); free != 7 || th.resumeAt() != 0 {
		t.Fatalf("after the think: room %d, resume at %d", free, th.resumeAt())
	}
	// The next think is 4 blocks after the count the last one saw.
	th.completed = 7
	th.check(2 * int64(time.Millisecond))
	if th.quiescing {
		t.Fatal("a think after 3 more blocks, thinktime_blocks is 4")
	}
	th.completed = 8
	th.check(2 * int64(time.Millisecond))
	if !th.quiescing {
		t.Fatal("no think after 4 more blocks")
	}
}

// thinktime_blocks_type=issue counts IOs as they are issued, and the worker
// stops issuing at the IO that makes the count.
func TestThinktimeBlocksOfTypeIssueCountIssuedIOs(t *testing.T) {
	th := newThinker(ThinkTime{Time: time.Millisecond, Blocks: 3, BlocksSet: true, ByIssue: true}, 0)
	for i := 1; i <= 2; i++ {
		if th.issuedOne(0) {
			t.Fatalf("a think after %d IOs issued, thinktime_blocks is 3", i)
		}
	}
	if !th.issuedOne(0) {
		t.Fatal("no think at the 3rd IO issued")
	}
}

// thinktime_iotime thinks after that much IO time since the last think;
// without thinktime_blocks given, the block count does not also trigger
// one (fio: the default of 1 block does not apply beside it).
func TestThinktimeIOTimeThinksAfterThatMuchIO(t *testing.T) {
	th := newThinker(ThinkTime{Time: time.Millisecond, IOTime: 10 * time.Millisecond}, 0)
	th.completed = 1000
	th.check(int64(9 * time.Millisecond))
	if th.quiescing {
		t.Fatal("a think after 9 ms of IO, thinktime_iotime is 10 ms")
	}
	th.check(int64(10 * time.Millisecond))
	if !th.quiescing {
		t.Fatal("no think after 10 ms of IO")
	}
	th.room(1, 0, int64(10*time.Millisecond), math.MaxInt64, &notStopped)
	end := th.resumeAt()
	th.room(1, 0, end, math.MaxInt64, &notStopped)
	th.completed = 5000
	th.check(end + int64(9*time.Millisecond))
	if th.quiescing {
		t.Fatal("the IO time counts from the end of the last think")
	}
}

// A run with thinktime: each burst of IOs is followed by a think, so a job
// of 300 ms thinking 20 ms after every 4 IOs issued does at most 16 bursts
// of 4 (null completes each IO at once, so without the thinks it would do
// millions), and its IOs' latency holds none of the thinks.
func TestThinktimeSpacesAJobsIOs(t *testing.T) {
	doc := mustRun(t, "--name=t", "--ioengine=null", "--size=1m", "--rw=randread", "--bs=4k", "--iodepth=8",
		"--time_based", "--runtime=300ms", "--thinktime=20ms", "--thinktime_blocks=4", "--thinktime_blocks_type=issue",
		"--output-format=json")
	r := doc.Jobs[0].Read
	if r.TotalIOs < 4 || r.TotalIOs > 16*4 {
		t.Fatalf("%d reads in 300 ms with a 20 ms think after every 4, want 4..64", r.TotalIOs)
	}
	if r.LatNs.Max >= int64(20*time.Millisecond) {
		t.Fatalf("an IO's latency %v holds a think", time.Duration(r.LatNs.Max))
	}
}

func TestThinktimeRefusesWhatItCannotMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--thinktime=1ms", "--thinktime_spin=2ms"}, "thinktime_spin: 2ms is more than thinktime 1ms"},
		{[]string{"--thinktime=1ms", "--rate_iops=100"}, "thinktime: not with rate or rate_iops"},
		{[]string{"--thinktime=1ms", "--latency_target=1ms", "--latency_window=1s"}, "thinktime: not with latency_target"},
		{[]string{"--thinktime=1ms", "--thinktime_blocks_type=sometimes"}, `"sometimes" is not complete or issue`},
	} {
		jobs, opts, err := ParseArgs(append([]string{"--name=t", "--ioengine=null", "--size=1m"}, c.args...))
		if err == nil {
			_, err = Run(context.Background(), jobs, opts)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// A think's spin ends at the job's end, as fio caps a think at the runtime
// left.
func TestAThinksSpinEndsAtTheJobsEnd(t *testing.T) {
	th := newThinker(ThinkTime{Time: time.Hour, Spin: time.Hour}, 0)
	th.completed = 1
	th.check(0)
	now := nanotime()
	end := now + int64(20*time.Millisecond)
	if _, after := th.room(1, 0, now, end, &notStopped); after < end || after > end+int64(time.Second) {
		t.Fatalf("the spin ended at %d, the job at %d", after, end)
	}
}
