package clientrun

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/storagebench/storagebench/internal/plan"
)

// PollInterval is how often a waiting cluster client reads the start
// ConfigMap (the controller's start lead allows for it).
const PollInterval = plan.StartPollInterval

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
	// Log receives a line when reading the ConfigMap fails.
	Log io.Writer

	// lastMiss is when the last successful read that found no record for
	// this generation was sent: the record was published after it.
	lastMiss time.Time
}

// Prime reads the ConfigMap until one read succeeds, so that the client
// only reports ready once it can see the start: the controller publishes
// when every client is ready, and each then sees the record within a poll.
func (s *ConfigMapSignal) Prime(ctx context.Context) error {
	_, err := s.poll(ctx, s.Key, true, nil)
	return err
}

// Wait polls until the record for this generation appears and checks the
// client's clock against the controller's (see clockWindow).
func (s *ConfigMapSignal) Wait(ctx context.Context) (time.Time, time.Duration, error) {
	var record plan.StartRecord
	offset, err := s.poll(ctx, s.Key, false, func(value string) (plan.StartRecord, bool, error) {
		r, err := plan.DecodeStartRecord(value)
		record = r
		return r, err == nil && r.Generation == s.Generation, err
	})
	return record.Start, offset, err
}

// WaitRound polls until the controller publishes the given search round of
// this generation, and checks the clock as Wait does. A later round than
// the one asked for means this client fell behind the others: an error.
func (s *ConfigMapSignal) WaitRound(ctx context.Context, round int32) (plan.RoundRecord, time.Duration, error) {
	var record plan.RoundRecord
	s.lastMiss = time.Time{}
	offset, err := s.poll(ctx, plan.RoundKey(s.Key), false, func(value string) (plan.StartRecord, bool, error) {
		r, err := plan.DecodeRoundRecord(value)
		if err != nil || r.Generation != s.Generation || r.Round < round {
			return r.StartRecord, false, err
		}
		if r.Round > round {
			return r.StartRecord, false, fmt.Errorf("round %d is published while this client waits for round %d: it fell behind the others", r.Round, round)
		}
		record = r
		if r.Done {
			// Nothing is timed after it: neither its lateness nor the
			// clock matters, and a client must not fail on them there.
			return plan.StartRecord{}, true, nil
		}
		return r.StartRecord, true, nil
	})
	return record, offset, err
}

// poll reads the ConfigMap until the value under key is a record accept
// takes (or, primeOnly, until one read succeeds), and returns the clock
// offset the record's publication time implies.
func (s *ConfigMapSignal) poll(ctx context.Context, key string, primeOnly bool, accept func(string) (plan.StartRecord, bool, error)) (time.Duration, error) {
	ticker := time.NewTicker(PollInterval)
	defer ticker.Stop()
	failures := 0
	for {
		sent := time.Now()
		cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
		received := time.Now()
		switch {
		case err == nil || apierrors.IsNotFound(err):
			var value string
			var found bool
			if err == nil {
				value, found = cm.Data[key]
			}
			if found && accept != nil {
				record, ok, err := accept(value)
				if err != nil {
					return 0, err
				}
				if ok {
					return s.clockWindow(record, received)
				}
			}
			s.lastMiss = sent
			if primeOnly {
				return 0, nil
			}
		case ctx.Err() == nil:
			// Transient API errors: keep polling until the deadline, and
			// say so now and then.
			if failures++; failures == 1 || failures%25 == 0 {
				s.logf("reading configmap %s/%s failed (%d times so far): %v", s.Namespace, s.Name, failures, err)
			}
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("nothing published in configmap %s/%s key %s: %w", s.Namespace, s.Name, key, context.Cause(ctx))
		case <-ticker.C:
		}
	}
}

// clockWindow bounds the client's clock offset from the controller's. The
// record was published (at publishedAt, controller clock) after the last
// read that missed it was sent and before this read returned, so
//
//	lastMiss - publishedAt <= offset <= received - publishedAt
//
// (local clock minus controller clock). The run is refused only when the
// whole window lies beyond the bound: a slow or failing API widens the
// window but never makes a good clock look bad. A client that sees the
// start only after it has passed is refused too: its cells would not
// overlap the others'.
func (s *ConfigMapSignal) clockWindow(record plan.StartRecord, received time.Time) (time.Duration, error) {
	if record.PublishedAt.IsZero() {
		return 0, nil // a record that times nothing (a done round)
	}
	hi := received.Sub(record.PublishedAt)
	estimate := hi
	if !s.lastMiss.IsZero() {
		lo := s.lastMiss.Sub(record.PublishedAt)
		estimate = (lo + hi) / 2
		if s.MaxClockOffset > 0 && lo > s.MaxClockOffset {
			return estimate, clockError(lo, s.MaxClockOffset)
		}
	}
	if s.MaxClockOffset > 0 && hi < -s.MaxClockOffset {
		return estimate, clockError(hi, s.MaxClockOffset)
	}
	if late := received.Sub(record.Start); late > 0 && !record.Start.IsZero() {
		return estimate, fmt.Errorf("the start (%s) had passed %d ms before this client could read it: the API server was slow or unreachable from the pod (reads are retried every %s)",
			record.Start.UTC().Format(time.RFC3339Nano), late.Milliseconds(), PollInterval)
	}
	return estimate, nil
}

func clockError(offset, bound time.Duration) error {
	return fmt.Errorf("this node's clock is at least %d ms off the controller's (bound %d ms): synchronize the node clocks (NTP) or raise spec.clients.maxClockOffsetMilliseconds",
		offset.Milliseconds(), bound.Milliseconds())
}

func (s *ConfigMapSignal) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, "%s %s\n", time.Now().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
}
