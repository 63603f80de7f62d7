package results

import sbv1 "github.com/storagebench/storagebench/api/v1alpha1"

// A step that fails its bound is measured once more before the search
// backs off below it. One step's percentile decides where a search goes
// next, and a single stall of the host or the network (tens of
// milliseconds, once) can fail a load the storage carries: without a
// second look the search would settle below it for good (seen in the e2e,
// a capped class answered 25 % under its cap after one such step). The
// load fails only if it fails twice; both measurements stay in the curve.
// The probe is not measured again: it is the ceiling, and meant to fail.

// toConfirm is the load to measure again when the last step failed and is
// not itself a second look; nil otherwise. The callers leave out the probe
// and a search that has no step left.
func toConfirm(steps []SearchStep) *sbv1.StepLoad {
	last := len(steps) - 1
	if last < 0 || steps[last].Passed || confirms(steps, last) {
		return nil
	}
	load := steps[last].StepLoad
	return &load
}

// confirms says whether step i is the second look at the step before it:
// the same load right after a failure that was not a second look itself.
func confirms(steps []SearchStep, i int) bool {
	second := false
	for j := 1; j <= i; j++ {
		second = !second && !steps[j-1].Passed && steps[j].StepLoad == steps[j-1].StepLoad
	}
	return second
}

// standing is the steps whose verdict stands: a failure that its second
// look overruled (the load passed the second time) is left out. The
// search decides from these; its curve keeps every step.
func standing(steps []SearchStep) []SearchStep {
	out := make([]SearchStep, 0, len(steps))
	for i := range steps {
		if i+1 < len(steps) && steps[i+1].Passed && confirms(steps, i+1) {
			continue
		}
		out = append(out, steps[i])
	}
	return out
}
