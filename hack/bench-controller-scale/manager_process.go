package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/internal/testenv"
)

// The manager runs in a process of its own, so that what it allocates,
// the heap it needs and the CPU it uses are its own, not the harness's
// (which writes the client logs and plays the kubelet). The harness drives
// its clock and reads its figures over HTTP on loopback, and hands it
// the client logs as files.

// managerStats are the manager process's figures since it started.
type managerStats struct {
	Reconciles       float64        `json:"reconciles"`
	QueueWaitSeconds float64        `json:"queueWaitSeconds"`
	Requests         map[string]int `json:"requests"`
	StatusPatches    int            `json:"statusPatches"`
	StatusPatchBytes int64          `json:"statusPatchBytes"`
	StatusConflicts  int            `json:"statusConflicts"`
	TotalAlloc       uint64         `json:"totalAlloc"`
	PeakHeap         uint64         `json:"peakHeap"`
	CPUSeconds       float64        `json:"cpuSeconds"`
}

// runManagerProcess is the -manager-mode entry point.
func runManagerProcess(kubeconfig, logDir string, workers int, profile string) error {
	if profile != "" {
		stop, err := startProfiles(profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	scheme, err := testenv.NewScheme()
	if err != nil {
		return err
	}
	counter := newAPICounter()
	cfg.QPS = -1 // as ctrl.GetConfig: API priority and fairness, no client-side limiter
	cfg.Wrap(counter.wrap)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  controllers.CacheOptions(cache.Options{}),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return err
	}
	clock := &leapingClock{}
	pods := controllers.ClientPodConfig{Image: "storagebench:bench", ImagePullPolicy: corev1.PullNever}
	if err := controllers.Setup(mgr, controllers.Options{Logs: fileLogs{dir: logDir}, ClientPods: pods, Clock: clock, MaxConcurrentReconciles: workers}); err != nil {
		return err
	}
	peak := &heapPeak{}
	go peak.follow()

	mux := http.NewServeMux()
	mux.HandleFunc("POST /clock", func(w http.ResponseWriter, r *http.Request) {
		ns, err := strconv.ParseInt(r.URL.Query().Get("to"), 10, 64)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		clock.leapTo(time.Unix(0, ns))
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		reconciles, wait := controllerMetrics()
		api := counter.snapshot()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
		_ = json.NewEncoder(w).Encode(managerStats{Reconciles: reconciles, QueueWaitSeconds: wait, Requests: api.byRequest,
			StatusPatches: api.statusPatches, StatusPatchBytes: api.statusPatchBytes, StatusConflicts: api.statusConflicts,
			TotalAlloc: m.TotalAlloc, PeakHeap: peak.take(), CPUSeconds: cpu})
	})
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(listener, mux) }()
	fmt.Printf("listening %s\n", listener.Addr())
	return mgr.Start(ctrl.SetupSignalHandler())
}

// heapPeak follows the heap; take returns the peak since the last take.
type heapPeak struct {
	mu   sync.Mutex
	peak uint64
}

func (h *heapPeak) follow() {
	for range time.Tick(100 * time.Millisecond) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.mu.Lock()
		h.peak = max(h.peak, m.HeapInuse)
		h.mu.Unlock()
	}
}

func (h *heapPeak) take() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.peak
	h.peak = 0
	return p
}

// fileLogs are client logs as files, DIR/NAMESPACE/POD: the harness writes
// them (a fakecluster.LogStore), the manager reads them (a
// controllers.LogReader).
type fileLogs struct{ dir string }

func (f fileLogs) path(namespace, pod string) string { return filepath.Join(f.dir, namespace, pod) }

func (f fileLogs) Set(namespace, pod, log string) {
	path := f.path(namespace, pod)
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		panic(err) // the harness's own temporary directory
	}
}

func (f fileLogs) ReadLog(_ context.Context, namespace, pod, _ string, limitBytes int64) (io.ReadCloser, error) {
	file, err := os.Open(f.path(namespace, pod))
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(file, limitBytes), file}, nil
}

// managerProcess is the harness's handle on a manager process.
type managerProcess struct {
	addr string
	stop func() error
}

// startManagerProcess runs this program in -manager-mode against the
// envtest API server and waits until it listens.
func startManagerProcess(env *testenv.Env, logDir string, workers int, profile string) (*managerProcess, error) {
	kubeconfig := filepath.Join(logDir, "kubeconfig")
	if err := env.WriteKubeconfig(kubeconfig); err != nil {
		return nil, err
	}
	stderr, err := os.Create(filepath.Join(logDir, "manager.log"))
	if err != nil {
		return nil, err
	}
	cmd := execSelf("-manager-mode", "-api-kubeconfig", kubeconfig, "-logs", logDir, "-max-concurrent-reconciles", strconv.Itoa(workers), "-profile", profile)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	var addr string
	if _, scanErr := fmt.Sscanf(line, "listening %s", &addr); err != nil || scanErr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// The log directory is removed when the program ends: quote the
		// log's end rather than pointing at a file that will be gone.
		return nil, fmt.Errorf("the manager process did not start: %q %v; the end of its log:\n%s", line, err, logTail(stderr.Name(), 20))
	}
	return &managerProcess{addr: addr, stop: func() error {
		_ = cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		stderr.Close()
		return err
	}}, nil
}

func (m *managerProcess) stats() (managerStats, error) {
	var s managerStats
	resp, err := http.Get("http://" + m.addr + "/stats")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

func (m *managerProcess) advanceTo(t time.Time) error {
	resp, err := http.Post("http://"+m.addr+"/clock?to="+strconv.FormatInt(t.UnixNano(), 10), "", nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("advancing the manager's clock: %s", resp.Status)
	}
	return nil
}

func execSelf(args ...string) *exec.Cmd { return exec.Command(os.Args[0], args...) }

// logTail is the last lines of a log file, or why it could not be read.
func logTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// leapingClock is the manager's clock: real time plus a lead that the
// harness adds to. It runs as a cluster's clock does while claims bind and
// pods start and finish (the controller paces some status writes by it),
// and leaps over the timetable, whose cells take no time here.
type leapingClock struct {
	clock.RealClock
	mu   sync.Mutex
	lead time.Duration
}

func (c *leapingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.lead)
}

func (c *leapingClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// leapTo moves the clock to t, if t is ahead of it.
func (c *leapingClock) leapTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ahead := t.Sub(time.Now().Add(c.lead)); ahead > 0 {
		c.lead += ahead
	}
}
