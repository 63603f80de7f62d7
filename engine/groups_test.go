package engine

import (
	"reflect"
	"testing"
)

func TestRunGroupsSplitAtStonewallAndNumberReportingGroupsAsFio(t *testing.T) {
	jobs := []JobSpec{{Name: "a", Stonewall: true}, {Name: "b"}, {Name: "c", NewGroup: true}, {Name: "last", Stonewall: true}, {Name: "after"}}
	var names [][]string
	var ids [][]int
	for _, g := range runGroups(jobs) {
		var n []string
		for _, j := range g.jobs {
			n = append(n, j.Name)
		}
		names = append(names, n)
		ids = append(ids, g.reportGroups)
	}
	// fio 3.33 gives a, b, c, last the groupids 0, 0, 1, 2 and starts
	// last once a, b and c have finished.
	if want := [][]string{{"a", "b", "c"}, {"last", "after"}}; !reflect.DeepEqual(names, want) {
		t.Errorf("run groups %v, want %v", names, want)
	}
	if want := [][]int{{0, 0, 1}, {2, 2}}; !reflect.DeepEqual(ids, want) {
		t.Errorf("reporting groups %v, want %v", ids, want)
	}
}
