package clientrun

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/storagebench/storagebench/internal/plan"
)

// signalCluster is a fake API with the start ConfigMap; publish writes a
// record as the controller would, with the controller's clock skewed by
// controllerAhead from this process's.
type signalCluster struct {
	cs      *fake.Clientset
	failing atomic.Bool
}

func newSignalCluster() *signalCluster {
	c := &signalCluster{cs: fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b-start"}})}
	c.cs.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if c.failing.Load() {
			return true, nil, errors.New("connection refused")
		}
		return false, nil, nil
	})
	return c
}

func (c *signalCluster) publish(t *testing.T, generation int64, controllerAhead time.Duration) plan.StartRecord {
	t.Helper()
	return c.publishWithLead(t, generation, controllerAhead, plan.StartLead(0, 500*time.Millisecond))
}

func (c *signalCluster) publishWithLead(t *testing.T, generation int64, controllerAhead, lead time.Duration) plan.StartRecord {
	t.Helper()
	now := time.Now().Add(controllerAhead)
	record := plan.StartRecord{Generation: generation, Start: now.Add(lead), PublishedAt: now}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b-start"}, Data: map[string]string{"t": record.Encode()}}
	if _, err := c.cs.CoreV1().ConfigMaps("ns").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return record
}

func (c *signalCluster) signal() *ConfigMapSignal {
	return &ConfigMapSignal{Client: c.cs, Namespace: "ns", Name: "b-start", Key: "t", Generation: 2, MaxClockOffset: 500 * time.Millisecond}
}

func waitInBackground(s *ConfigMapSignal) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, err := s.Wait(ctx)
		done <- err
	}()
	return done
}

func TestStartSignalAcceptsAGoodClock(t *testing.T) {
	c := newSignalCluster()
	s := c.signal()
	if err := s.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.publish(t, 1, 0) // an older generation's record is ignored
	done := waitInBackground(s)
	time.Sleep(300 * time.Millisecond)
	want := c.publish(t, 2, 0)
	if err := <-done; err != nil {
		t.Fatalf("a client on the controller's clock was refused: %v", err)
	}
	start, offset, err := s.Wait(context.Background())
	if err != nil || !start.Equal(want.Start) || offset > PollInterval || offset < -PollInterval {
		t.Fatalf("start %v (want %v), offset %v, %v", start, want.Start, offset, err)
	}
}

func TestStartSignalRefusesASkewedClock(t *testing.T) {
	for name, controllerAhead := range map[string]time.Duration{"client behind": 2 * time.Second, "client ahead": -2 * time.Second} {
		t.Run(name, func(t *testing.T) {
			c := newSignalCluster()
			s := c.signal()
			if err := s.Prime(context.Background()); err != nil {
				t.Fatal(err)
			}
			done := waitInBackground(s)
			time.Sleep(300 * time.Millisecond)
			c.publish(t, 2, controllerAhead)
			err := <-done
			if err == nil || !strings.Contains(err.Error(), "off the controller's (bound 500 ms)") {
				t.Fatalf("want a clock error, got %v", err)
			}
		})
	}
}

func TestStartSignalToleratesASlowAPIButNotAMissedStart(t *testing.T) {
	c := newSignalCluster()
	s := c.signal()
	if err := s.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The API fails for 600 ms around the publication of a start with the
	// lead the controller gives when its own read was fast: the clock
	// window widens, but a good clock is still accepted.
	c.failing.Store(true)
	done := waitInBackground(s)
	c.publishWithLead(t, 2, 0, plan.StartLead(5*time.Millisecond, 500*time.Millisecond))
	time.Sleep(600 * time.Millisecond)
	c.failing.Store(false)
	if err := <-done; err != nil {
		t.Fatalf("a slow API made a good clock look bad: %v", err)
	}

	// Unreachable until the start has passed: refused, naming the cause.
	c = newSignalCluster()
	s = c.signal()
	if err := s.Prime(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.failing.Store(true)
	done = waitInBackground(s)
	c.publishWithLead(t, 2, 0, 100*time.Millisecond)
	time.Sleep(400 * time.Millisecond) // the start passes while reads fail
	c.failing.Store(false)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "had passed") {
		t.Fatalf("want a missed start, got %v", err)
	}
}

func (c *signalCluster) publishRound(t *testing.T, r plan.RoundRecord) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b-start"}, Data: map[string]string{plan.RoundKey("t"): r.Encode()}}
	if _, err := c.cs.CoreV1().ConfigMaps("ns").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestWaitRoundTakesItsRoundAndRefusesToFallBehind(t *testing.T) {
	c := newSignalCluster()
	s := &ConfigMapSignal{Client: c.cs, Namespace: "ns", Name: "b-start", Key: "t", Generation: 2, MaxClockOffset: 500 * time.Millisecond}
	slots := []plan.Slot{{Repetition: 1, Cells: nil}}
	record := func(gen int64, round int32) plan.RoundRecord {
		now := time.Now() // published now, as the controller does
		return plan.RoundRecord{StartRecord: plan.StartRecord{Generation: gen, Start: now.Add(time.Second), PublishedAt: now}, Round: round, Slots: slots}
	}
	// The previous round (and another generation's) are waited past.
	c.publishRound(t, record(2, 1))
	go func() {
		time.Sleep(3 * PollInterval)
		c.publishRound(t, record(1, 2))
		time.Sleep(2 * PollInterval)
		c.publishRound(t, record(2, 2))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, _, err := s.WaitRound(ctx, 2)
	if err != nil || got.Round != 2 || got.Generation != 2 {
		t.Fatalf("round %d of generation %d, %v", got.Round, got.Generation, err)
	}
	// A client still waiting for round 2 while round 3 is out fell behind.
	c.publishRound(t, record(2, 3))
	if _, _, err := s.WaitRound(ctx, 2); err == nil || !strings.Contains(err.Error(), "round 3 is published while this client waits for round 2") {
		t.Fatalf("err %v", err)
	}
}
