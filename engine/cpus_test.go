package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{
		"0":           {0},
		"0-3,6":       {0, 1, 2, 3, 6},
		" 2 , 0-1":    {2, 0, 1},
		"1,1,0-1":     {1, 0},
		"1023":        {1023},
		"8-9,4-5,0-0": {8, 9, 4, 5, 0},
	} {
		got, err := parseCPUList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "3-1", "-1", "1024", "0-", "0-2000", "1,,2", "0-3-5"} {
		if got, err := parseCPUList(in); err == nil || !strings.Contains(err.Error(), "is not a CPU list") {
			t.Errorf("parseCPUList(%q) = %v, %v; want a CPU list error", in, got, err)
		}
	}
}

func TestFormatCPUListWritesRanges(t *testing.T) {
	for want, cpus := range map[string][]int{
		"":          nil,
		"0":         {0},
		"0-3,6":     {0, 1, 2, 3, 6},
		"5,4":       {5, 4},
		"0-1023":    seq(0, 1023),
		"1,3,5-6,9": {1, 3, 5, 6, 9},
	} {
		if got := formatCPUList(cpus); got != want {
			t.Errorf("formatCPUList(%v) = %q, want %q", cpus, got, want)
		}
	}
}

func seq(lo, hi int) []int {
	var s []int
	for c := lo; c <= hi; c++ {
		s = append(s, c)
	}
	return s
}

func TestCPUOptionsNameTheValue(t *testing.T) {
	for args, want := range map[string]string{
		"--cpus_allowed=0-x":          `--cpus_allowed=0-x: "0-x" is not a CPU list`,
		"--cpus_allowed_policy=half":  `--cpus_allowed_policy=half: "half" is not a policy (shared, split)`,
		"--cpus_allowed=4096":         `"4096" is not a CPU list`,
		"--cpus_allowed_policy=SPLIT": `"SPLIT" is not a policy`,
	} {
		_, _, err := ParseArgs([]string{"--name=a", "--size=1m", args})
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrUsage) {
			t.Errorf("%s: error %v, want one containing %q and wrapping ErrUsage", args, err, want)
		}
	}
	jobs, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--cpus_allowed=1,0-1", "--cpus_allowed_policy=split"})
	if err != nil {
		t.Fatal(err)
	}
	if j := jobs[0]; !reflect.DeepEqual(j.CPUsAllowed, []int{1, 0}) || j.CPUsAllowedPolicy != CPUsSplit {
		t.Errorf("parsed cpus %v policy %q", j.CPUsAllowed, j.CPUsAllowedPolicy)
	}
}
