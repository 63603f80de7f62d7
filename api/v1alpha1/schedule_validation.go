package v1alpha1

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ParseSchedule reads a schedule's cron expression in its time zone with
// the parser the Kubernetes CronJob controller uses (robfig/cron, five
// fields or a descriptor). The zone is the spec's, else the manager's
// local one.
func (s *StorageBenchmarkScheduleSpec) ParseSchedule() (cron.Schedule, *time.Location, error) {
	loc := time.Local
	if s.TimeZone != nil {
		l, err := time.LoadLocation(*s.TimeZone)
		if err != nil {
			return nil, nil, field.Invalid(field.NewPath("spec", "timeZone"), *s.TimeZone, "not an IANA time zone name (e.g. Europe/Berlin, UTC)")
		}
		loc = l
	}
	if strings.Contains(s.Schedule, "TZ=") {
		// As CronJob: one place says the zone.
		return nil, nil, field.Invalid(field.NewPath("spec", "schedule"), s.Schedule, "a time zone inside the schedule (TZ= or CRON_TZ=) is not supported: set spec.timeZone")
	}
	sched, err := cron.ParseStandard(s.Schedule)
	if err != nil {
		return nil, nil, field.Invalid(field.NewPath("spec", "schedule"), s.Schedule,
			fmt.Sprintf("not a cron schedule (minute hour day-of-month month day-of-week, or @hourly, @daily, @every 1h...): %v", err))
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok && (every.Delay < time.Minute || every.Delay%time.Minute != 0) {
		// Runs are named by the minute of their time, as a CronJob's Jobs.
		return nil, nil, field.Invalid(field.NewPath("spec", "schedule"), s.Schedule, "@every takes whole minutes (at least 1m)")
	}
	return sched, loc, nil
}

// Validate checks what admission cannot: the cron expression, the time
// zone, the template's benchmark spec (as a StorageBenchmark's, with its
// paths under spec.template.spec) and that the drift thresholds compare
// with no more runs than the schedule keeps.
func (s *StorageBenchmarkScheduleSpec) Validate() field.ErrorList {
	var errs field.ErrorList
	if _, _, err := s.ParseSchedule(); err != nil {
		errs = append(errs, err.(*field.Error))
	}
	for _, e := range s.Template.Spec.Validate() {
		moved := *e
		moved.Field = "spec.template." + e.Field
		errs = append(errs, &moved)
	}
	kept := s.RunsKept()
	for i := range s.Template.Spec.Thresholds {
		r := s.Template.Spec.Thresholds[i].MaxRegression
		if r.AgainstHistory() && r.HistoryRuns() > kept {
			path := field.NewPath("spec", "template", "spec", "thresholds").Index(i).Child("maxRegression")
			var value any = r.HistoryRuns()
			if r.Runs != nil {
				path = path.Child("runs")
			} else {
				path, value = path.Child("against"), string(r.Against)
			}
			errs = append(errs, field.Invalid(path, value,
				fmt.Sprintf("compares with %d earlier run(s), but the schedule keeps at most %d (successfulRunsHistoryLimit + failedRunsHistoryLimit)", r.HistoryRuns(), kept)))
		}
	}
	return errs
}

// SuccessfulRunsKept is successfulRunsHistoryLimit or its default, 3.
func (s *StorageBenchmarkScheduleSpec) SuccessfulRunsKept() int {
	if s.SuccessfulRunsHistoryLimit == nil {
		return 3
	}
	return int(*s.SuccessfulRunsHistoryLimit)
}

// FailedRunsKept is failedRunsHistoryLimit or its default, 1.
func (s *StorageBenchmarkScheduleSpec) FailedRunsKept() int {
	if s.FailedRunsHistoryLimit == nil {
		return 1
	}
	return int(*s.FailedRunsHistoryLimit)
}

// RunsKept is the most completed runs the schedule keeps.
func (s *StorageBenchmarkScheduleSpec) RunsKept() int {
	return s.SuccessfulRunsKept() + s.FailedRunsKept()
}
