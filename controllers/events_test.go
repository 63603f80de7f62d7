package controllers

import (
	"sort"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// manualTimers is a clock whose timers fire only when the test moves it,
// outside any lock of the clock's own (k8s.io/utils' fake clock runs them
// under its lock, where the debouncer's Now would deadlock).
type manualTimers struct {
	now     time.Time
	pending []manualTimer
}

type manualTimer struct {
	at time.Time
	f  func()
}

func (m *manualTimers) Now() time.Time { return m.now }

func (m *manualTimers) AfterFunc(d time.Duration, f func()) clock.Timer {
	m.pending = append(m.pending, manualTimer{at: m.now.Add(d), f: f})
	return nil
}

// advance moves the clock to now+d, firing the timers due on the way in
// order, each at its own time.
func (m *manualTimers) advance(d time.Duration) {
	until := m.now.Add(d)
	for {
		sort.SliceStable(m.pending, func(i, j int) bool { return m.pending[i].at.Before(m.pending[j].at) })
		if len(m.pending) == 0 || m.pending[0].at.After(until) {
			break
		}
		next := m.pending[0]
		m.pending = m.pending[1:]
		m.now = next.at
		next.f()
	}
	m.now = until
}

// recordingQueue records when each request was enqueued.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	clock *manualTimers
	mu    sync.Mutex
	added []enqueued
}

type enqueued struct {
	name string
	at   time.Duration
}

var epoch = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

func (q *recordingQueue) Add(r reconcile.Request) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.added = append(q.added, enqueued{r.Name, q.clock.now.Sub(epoch)})
}

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

func TestABurstOfChildEventsStartsOnePassOnceItIsOver(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		// events are the times of the events, by benchmark.
		events map[string][]time.Duration
		want   []enqueued
	}{
		{"one event: a pass after the quiet time",
			map[string][]time.Duration{"a": {0}},
			[]enqueued{{"a", 100 * ms}}},
		{"a short burst: one pass, the quiet time after its last event",
			map[string][]time.Duration{"a": {0, 10 * ms, 30 * ms, 90 * ms, 140 * ms}},
			[]enqueued{{"a", 240 * ms}}},
		{"a long burst: a pass at the most wait, then one after its end",
			map[string][]time.Duration{"a": {0, 50 * ms, 100 * ms, 150 * ms, 200 * ms, 249 * ms, 300 * ms, 350 * ms}},
			[]enqueued{{"a", 250 * ms}, {"a", 450 * ms}}},
		{"two benchmarks: each its own burst",
			map[string][]time.Duration{"a": {0, 50 * ms}, "b": {20 * ms}},
			[]enqueued{{"b", 120 * ms}, {"a", 150 * ms}}},
		{"events after a pass: a new burst",
			map[string][]time.Duration{"a": {0, 300 * ms}},
			[]enqueued{{"a", 100 * ms}, {"a", 400 * ms}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &manualTimers{now: epoch}
			q := &recordingQueue{clock: clk}
			d := newDebouncer(clk)
			type event struct {
				name string
				at   time.Duration
			}
			var events []event
			for name, ats := range tc.events {
				for _, at := range ats {
					events = append(events, event{name, at})
				}
			}
			sort.Slice(events, func(i, j int) bool { return events[i].at < events[j].at })
			for _, e := range events {
				clk.advance(epoch.Add(e.at).Sub(clk.now))
				debouncedQueue{TypedRateLimitingInterface: q, debouncer: d}.Add(request(e.name))
			}
			clk.advance(time.Second)
			if len(q.added) != len(tc.want) {
				t.Fatalf("enqueued %v, want %v", q.added, tc.want)
			}
			for i := range tc.want {
				if q.added[i] != tc.want[i] {
					t.Errorf("enqueued %v, want %v", q.added, tc.want)
					break
				}
			}
			if len(d.bursts) != 0 || len(clk.pending) != 0 {
				t.Errorf("left %d bursts and %d timers after the events", len(d.bursts), len(clk.pending))
			}
		})
	}
}
