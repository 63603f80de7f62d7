package clientrun

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/storagebench/storagebench/internal/plan"
)

// PollInterval is how often a waiting cluster client reads the start
// ConfigMap. It also bounds the clock-offset estimate's uncertainty.
const PollInterval = 200 * time.Millisecond

// ConfigMapSignal waits for the controller to publish the start instant in
// a ConfigMap the client may read (and nothing else: its Role names just
// that object). Clients never write to the API.
type ConfigMapSignal struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	Key       string
	// Generation is the plan's: a record for another generation is stale.
	Generation int64
	// MaxClockOffset is the plan's bound on the clock offset.
	MaxClockOffset time.Duration
}

// Wait polls until the record for this generation appears. The clock check
// relies on clients polling before the controller publishes (it publishes
// only once all are ready): the record is then seen within one poll
// interval of its publication, so local receive time minus publishedAt is
// the clock offset give or take half an interval.
func (s *ConfigMapSignal) Wait(ctx context.Context) (time.Time, time.Duration, error) {
	ticker := time.NewTicker(PollInterval)
	defer ticker.Stop()
	for {
		cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
		received := time.Now()
		switch {
		case err == nil:
			if value, ok := cm.Data[s.Key]; ok {
				record, err := plan.DecodeStartRecord(value)
				if err != nil {
					return time.Time{}, 0, err
				}
				if record.Generation == s.Generation {
					offset := received.Sub(record.PublishedAt) - PollInterval/2
					return record.Start, offset, CheckClockOffset(offset, s.MaxClockOffset)
				}
			}
		case apierrors.IsNotFound(err):
			// Not published yet.
		case ctx.Err() != nil:
			return time.Time{}, 0, fmt.Errorf("no start published in configmap %s/%s: %w", s.Namespace, s.Name, context.Cause(ctx))
		default:
			// Transient API errors: keep polling until the deadline.
		}
		select {
		case <-ctx.Done():
			return time.Time{}, 0, fmt.Errorf("no start published in configmap %s/%s key %s: %w", s.Namespace, s.Name, s.Key, context.Cause(ctx))
		case <-ticker.C:
		}
	}
}

// CheckClockOffset refuses to start with a clock too far from the
// controller's: the client's cells would not overlap with the others'. Half
// a poll interval of slack covers the estimate's own uncertainty.
func CheckClockOffset(offset, bound time.Duration) error {
	if bound <= 0 {
		return nil
	}
	limit := bound + PollInterval/2
	if offset > limit || offset < -limit {
		return fmt.Errorf("this node's clock is %d ms off the controller's (bound %d ms): synchronize the node clocks (NTP) or raise spec.clients.maxClockOffsetMilliseconds",
			offset.Milliseconds(), bound.Milliseconds())
	}
	return nil
}
