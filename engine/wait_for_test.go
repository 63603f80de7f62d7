//go:build linux

package engine

import (
	"context"
	"strings"
	"testing"
)

// A job with wait_for starts once every clone of the job it names has
// ended, while the other jobs of the group run from the start.
func TestAWaitForJobStartsWhenItsJobEnds(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--directory="+dir, "--ioengine=psync", "--rw=write", "--bs=4k",
		"--name=first", "--size=128k", "--numjobs=2", "--time_based", "--runtime=300ms",
		"--name=beside", "--size=64k", "--time_based", "--runtime=600ms",
		"--name=after", "--size=64k", "--wait_for=first", "--output-format=json")
	ext := doc.Storagebench.Jobs
	byName := map[string][]int{}
	for i, j := range ext {
		byName[j.JobName] = append(byName[j.JobName], i)
	}
	after := ext[byName["after"][0]]
	for _, i := range byName["first"] {
		if after.StartUnixNano < ext[i].EndUnixNano {
			t.Errorf("after started at %d, before a clone of first ended at %d", after.StartUnixNano, ext[i].EndUnixNano)
		}
	}
	if beside := ext[byName["beside"][0]]; after.StartUnixNano <= beside.StartUnixNano || beside.EndUnixNano <= after.StartUnixNano {
		t.Errorf("beside ran %d..%d, after started at %d: beside runs from the start, beside after", beside.StartUnixNano, beside.EndUnixNano, after.StartUnixNano)
	}
	for _, j := range doc.Jobs {
		if j.GroupID != 0 {
			t.Errorf("%s is in group %d: wait_for starts no new group", j.JobName, j.GroupID)
		}
	}
}

func TestWaitForNamesAnEarlierJobOfItsOwn(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--name=a", "--wait_for=nobody"}, `job "a": wait_for: no job is named "nobody"`},
		{[]string{"--name=a", "--wait_for=b", "--name=b"}, `job "a": wait_for: job "b" is not defined before it`},
		{[]string{"--name=b", "--name=b", "--stonewall", "--name=a", "--wait_for=b"}, `job "a": wait_for: 2 jobs are named "b"`},
		{[]string{"--name=a", "--wait_for=a"}, `job "a": wait_for: job "a" is not defined before it`},
	} {
		jobs, opts, err := ParseArgs(append([]string{"--ioengine=null", "--size=1m"}, c.args...))
		if err == nil {
			_, err = Run(context.Background(), jobs, opts)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
}
