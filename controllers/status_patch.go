package controllers

import (
	"encoding/json"
	"fmt"
	"regexp"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// statusChange is what a pass changed in status, as stored: the JSON patch
// (RFC 6902) operations from the status it read to the one it built. A
// merge patch would resend every list it touches whole (JSON merge patch
// replaces lists), so a pass that moved one target along resent every
// target's results: megabytes per pass at the documented maxima.
type statusChange struct {
	// resourceVersion is the version the pass read.
	resourceVersion string
	ops             []jsonpatch.Operation
}

// diffStatus is the change from one status to another as the API server
// stores them: times kept finer in memory than the second they are stored
// to are no change.
func diffStatus(before, after *sbv1.StorageBenchmark) (statusChange, error) {
	from, err := json.Marshal(map[string]any{"status": before.Status})
	if err != nil {
		return statusChange{}, err
	}
	to, err := json.Marshal(map[string]any{"status": after.Status})
	if err != nil {
		return statusChange{}, err
	}
	ops, err := jsonpatch.CreatePatch(from, to)
	if err != nil {
		return statusChange{}, fmt.Errorf("computing the status patch: %w", err)
	}
	return statusChange{resourceVersion: before.ResourceVersion, ops: ops}, nil
}

// none reports whether the two statuses store the same JSON.
func (c statusChange) none() bool { return len(c.ops) == 0 }

// progressPath is a field that says how far the run got: the cell runs
// done and the targets' messages, which say how far a phase got.
var progressPath = regexp.MustCompile(`^/status/(progress/(cellsDone|summary)|targets/[0-9]+/message)$`)

// progressOnly reports whether the change is to progress alone.
func (c statusChange) progressOnly() bool {
	for _, op := range c.ops {
		if !progressPath.MatchString(op.Path) {
			return false
		}
	}
	return !c.none()
}

// patch is the change as a JSON patch that first sets the resourceVersion
// the pass read: the API server refuses it with a conflict when the object
// has changed since (a newer pass stored something), the optimistic lock
// of MergeFromWithOptimisticLock.
func (c statusChange) patch() (client.Patch, error) {
	lock := jsonpatch.NewOperation("replace", "/metadata/resourceVersion", c.resourceVersion)
	data, err := json.Marshal(append([]jsonpatch.Operation{lock}, c.ops...))
	if err != nil {
		return nil, err
	}
	return client.RawPatch(types.JSONPatchType, data), nil
}
