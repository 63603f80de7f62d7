package v1alpha1

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

func validSchedule() StorageBenchmarkScheduleSpec {
	return StorageBenchmarkScheduleSpec{Schedule: "0 3 * * *", TimeZone: ptr.To("Europe/Berlin"), Template: StorageBenchmarkTemplate{Spec: validSpec()}}
}

func TestScheduleValidateNamesTheFieldAndTheValue(t *testing.T) {
	if s := validSchedule(); len(s.Validate()) > 0 {
		errs := s.Validate()
		t.Fatalf("a valid schedule: %v", errs)
	}
	for name, tc := range map[string]struct {
		change func(*StorageBenchmarkScheduleSpec)
		want   []string
	}{
		"not cron":       {func(s *StorageBenchmarkScheduleSpec) { s.Schedule = "nightly" }, []string{"spec.schedule", `"nightly"`, "not a cron schedule"}},
		"six fields":     {func(s *StorageBenchmarkScheduleSpec) { s.Schedule = "0 0 3 * * *" }, []string{"spec.schedule", "not a cron schedule"}},
		"@every seconds": {func(s *StorageBenchmarkScheduleSpec) { s.Schedule = "@every 90s" }, []string{"spec.schedule", `"@every 90s"`, "whole minutes"}},
		"previous with no run kept": {func(s *StorageBenchmarkScheduleSpec) {
			s.SuccessfulRunsHistoryLimit, s.FailedRunsHistoryLimit = ptr.To[int32](0), ptr.To[int32](0)
			s.Template.Spec.Thresholds = []Threshold{{Workload: s.Template.Spec.Workloads[0].Name, MaxRegression: &Regression{Against: AgainstPrevious, Percent: 10}}}
		}, []string{"spec.template.spec.thresholds[0].maxRegression.against", `"Previous"`, "keeps at most 0"}},
		"zone in schedule": {func(s *StorageBenchmarkScheduleSpec) { s.Schedule = "CRON_TZ=UTC 0 3 * * *" }, []string{"spec.schedule", "set spec.timeZone"}},
		"unknown zone":     {func(s *StorageBenchmarkScheduleSpec) { s.TimeZone = ptr.To("Mars/Olympus") }, []string{"spec.timeZone", `"Mars/Olympus"`, "IANA"}},
		"template spec": {func(s *StorageBenchmarkScheduleSpec) {
			s.Template.Spec.Workloads[0].BlockSizes = quantities("4Ki", "4096")
		}, []string{"spec.template.spec.workloads[0].blockSizes", "w-bs4k-r100-qd32-j1"}},
		"median of more runs than kept": {func(s *StorageBenchmarkScheduleSpec) {
			s.SuccessfulRunsHistoryLimit, s.FailedRunsHistoryLimit = ptr.To[int32](2), ptr.To[int32](1)
			s.Template.Spec.Thresholds = []Threshold{{Workload: s.Template.Spec.Workloads[0].Name,
				MaxRegression: &Regression{Against: AgainstMedianOfLast, Runs: ptr.To[int32](5), Percent: 10}}}
		}, []string{"spec.template.spec.thresholds[0].maxRegression.runs", "5 earlier run(s)", "keeps at most 3"}},
	} {
		t.Run(name, func(t *testing.T) {
			s := validSchedule()
			tc.change(&s)
			errs := s.Validate()
			if len(errs) == 0 {
				t.Fatal("accepted")
			}
			msg := errs.ToAggregate().Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestHistoryRunsOfEachReference(t *testing.T) {
	for _, tc := range []struct {
		r    *Regression
		want int
	}{
		{nil, 0},
		{&Regression{}, 0},
		{&Regression{Against: AgainstBaseline}, 0},
		{&Regression{Against: AgainstPrevious}, 1},
		{&Regression{Against: AgainstMedianOfLast}, DefaultMedianRuns},
		{&Regression{Against: AgainstMedianOfLast, Runs: ptr.To[int32](7)}, 7},
	} {
		if got := tc.r.HistoryRuns(); got != tc.want {
			t.Errorf("%+v: %d runs, want %d", tc.r, got, tc.want)
		}
	}
}
