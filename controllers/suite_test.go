package controllers_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/testenv"
)

// The controller tests run the real reconciler in a manager against a real
// kube-apiserver (envtest). There is no kubelet, scheduler or Job controller
// there: tests play their part through the API, as those components would.

var (
	env       *testenv.Env
	k8sClient client.Client
	// testClock is the controller's clock: tests step it past timetables
	// and timeouts instead of sleeping through them.
	testClock = clocktesting.NewFakeClock(time.Now())
	// podLogs serves the client logs a kubelet would.
	podLogs = fakecluster.NewLogs()
	// stopManager stops the running manager; startManager starts another
	// (restart tests).
	stopManager func()
)

func TestMain(m *testing.M) {
	testenv.Main(m, &env, func(e *testenv.Env) (func(), error) {
		k8sClient = e.Client
		ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
		if err := startManager(); err != nil {
			return nil, err
		}
		return func() { stopManager() }, nil
	})
}

// startManager runs the reconciler in a manager configured as in
// production (cache options included), with the test's clock and logs.
func startManager() error {
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Cache:                  controllers.CacheOptions(cache.Options{}),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return err
	}
	pods := controllers.ClientPodConfig{Image: "storagebench:test", ImagePullPolicy: corev1.PullNever}
	if err := controllers.Setup(mgr, controllers.Options{Logs: podLogs, ClientPods: pods, Clock: testClock}); err != nil {
		return err
	}
	if err := controllers.SetupScheduleWithManager(mgr, testClock); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	stopManager = func() { cancel(); <-done }
	return nil
}

// newNamespace gives each test its own namespace.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "sbtest-"}}
	if err := k8sClient.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// eventually polls check until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, 100*time.Millisecond, what, check)
}

func getBenchmark(t *testing.T, ns, name string) *sbv1.StorageBenchmark {
	t.Helper()
	b := &sbv1.StorageBenchmark{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, b); err != nil {
		t.Fatal(err)
	}
	return b
}
