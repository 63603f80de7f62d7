// Package podsecurity checks pod specs against the "restricted" Pod Security
// Standard with Kubernetes' own admission checks (k8s.io/pod-security-admission),
// so tests of the client pods and of the Helm chart judge them exactly as a
// namespace labelled pod-security.kubernetes.io/enforce=restricted would.
package podsecurity

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// RestrictedViolations lists every way the pod breaks the latest
// "restricted" standard; empty means it would be admitted.
func RestrictedViolations(meta *metav1.ObjectMeta, spec *corev1.PodSpec) ([]string, error) {
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return nil, fmt.Errorf("building the pod security evaluator: %w", err)
	}
	var out []string
	level := api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}
	for _, r := range evaluator.EvaluatePod(level, meta, spec) {
		if !r.Allowed {
			out = append(out, r.ForbiddenReason+": "+r.ForbiddenDetail)
		}
	}
	return out, nil
}
