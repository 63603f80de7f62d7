package controllers

import (
	"encoding/json"
	"fmt"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// statusPatch is a JSON patch (RFC 6902) from one status to another: only
// the fields that changed, down to single list items. A merge patch would
// resend every list it touches whole (JSON merge patch replaces lists), so
// a pass that moved one target along resent every target's results:
// megabytes per pass at the documented maxima. The patch first sets the
// resourceVersion the pass read: the API server refuses it with a conflict
// when the object has changed since (a newer pass stored something), the
// optimistic lock of MergeFromWithOptimisticLock. It is nil when the two
// statuses store the same JSON.
func statusPatch(before, after *sbv1.StorageBenchmark) (client.Patch, error) {
	from, err := json.Marshal(map[string]any{"status": before.Status})
	if err != nil {
		return nil, err
	}
	to, err := json.Marshal(map[string]any{"status": after.Status})
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(from, to)
	if err != nil {
		return nil, fmt.Errorf("computing the status patch: %w", err)
	}
	if len(ops) == 0 {
		// Different in memory, the same as stored (times are stored to
		// the second): nothing to write.
		return nil, nil
	}
	lock := jsonpatch.NewOperation("replace", "/metadata/resourceVersion", before.ResourceVersion)
	data, err := json.Marshal(append([]jsonpatch.Operation{lock}, ops...))
	if err != nil {
		return nil, err
	}
	return client.RawPatch(types.JSONPatchType, data), nil
}
