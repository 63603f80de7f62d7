package engine

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The windows below are samples fio 3.33 reported on this machine, with the
// criterion it computed from them: the judgement must be fio's.
func TestSteadyWindowMatchesFio(t *testing.T) {
	for _, tc := range []struct {
		crit      string
		iops      []float64
		criterion float64 // fio's, as printed
		attained  bool
	}{
		// fio --ss=iops:5% --ss_dur=3: max_deviation 423.666667.
		{"iops:5%", []float64{14726, 14831, 14143}, 2.908467, true},
		// fio --ss=iops_slope:0% --ss_dur=5: slope 221.0.
		{"iops_slope:0%", []float64{14422, 13836, 14435, 14710, 15090}, 1.524348, false},
		{"iops_slope:2%", []float64{14422, 13836, 14435, 14710, 15090}, 1.524348, true},
	} {
		c, err := parseSteadyState(tc.crit)
		if err != nil {
			t.Fatal(err)
		}
		w := newSteadyWindow(c, len(tc.iops))
		var got bool
		for _, v := range tc.iops {
			got = w.add(v, v*4096)
		}
		if math.Abs(w.criterion-tc.criterion) > 5e-7 || got != tc.attained {
			t.Errorf("%s on %v: criterion %.6f attained %v, fio's %.6f %v", tc.crit, tc.iops, w.criterion, got, tc.criterion, tc.attained)
		}
	}
}

func TestSteadyWindowSlidesAndJudgesOnlyFullWindows(t *testing.T) {
	c, _ := parseSteadyState("iops_slope:5%")
	w := newSteadyWindow(c, 3)
	// A ramp: 100, 200, 300 has slope 100 (50 % of the mean 200): not
	// steady; then flat samples push the ramp out.
	for i, v := range []float64{100, 200, 300, 300, 300, 300} {
		steady := w.add(v, 0)
		switch {
		case i < 2 && (steady || w.criterion != 0):
			t.Fatalf("sample %d: judged %v (%v) before the window is full", i, steady, w.criterion)
		case i == 2 && (steady || math.Abs(w.criterion-50) > 1e-9):
			t.Fatalf("ramp judged %v, criterion %v; want not steady, 50", steady, w.criterion)
		case i == 5 && !steady:
			t.Fatalf("flat window not steady: %v, samples %v", w.criterion, w.iops)
		}
	}
	if got := w.result(); got.Attained != 1 || len(got.Data.IOPS) != 3 || got.Data.IOPSMean != 300 || got.SS != "iops_slope:5.000000%" || got.Criterion != "0.000000%" {
		t.Fatalf("result %+v", got)
	}
}

func TestSteadyWindowWithoutIOIsNotSteady(t *testing.T) {
	c, _ := parseSteadyState("iops:10%")
	w := newSteadyWindow(c, 2)
	w.add(0, 0)
	if w.add(0, 0) {
		t.Fatal("a window of zero IOPS is steady by percentage")
	}
	if _, err := json.Marshal(w.result()); err != nil {
		t.Fatalf("the result of a window without IO does not encode: %v", err)
	}
}

func TestParseSteadyState(t *testing.T) {
	for in, want := range map[string]SteadyStateCriterion{
		"iops:2%":          {Limit: 2, Percent: true},
		"IOPS_SLOPE:0.1%":  {Slope: true, Limit: 0.1, Percent: true},
		"bw:100m":          {Bandwidth: true, Limit: 100 << 20},
		"bw_slope:5":       {Bandwidth: true, Slope: true, Limit: 5},
		"iops_slope:0.01%": defaultSteadyState,
	} {
		got, err := parseSteadyState(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"iops":         "not criterion:limit",
		"lat:5%":       "unknown criterion",
		"iops:-1%":     "not a percentage",
		"iops:abc":     "not a number",
		"bw:fast":      "not a size",
		"iops:NaN%":    "not a percentage",
		"iops_slope:x": "not a number",
	} {
		if _, err := parseSteadyState(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
}
