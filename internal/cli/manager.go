package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	// Schedules name IANA time zones; the image has no zoneinfo files.
	_ "time/tzdata"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/internal/benchmetrics"
	"github.com/storagebench/storagebench/internal/version"
)

func init() { register(newManagerCommand) }

type managerOptions struct {
	metricsAddr             string
	probeAddr               string
	leaderElect             bool
	leaderElectionNamespace string
	watchNamespaces         string
	clientImage             string
	clientPullPolicy        string
	clientPodDefaults       string
	maxConcurrent           int
	zap                     zap.Options
}

func newManagerCommand() *cobra.Command {
	o := &managerOptions{zap: zap.Options{Development: false}}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the StorageBenchmark controller (the operator)",
		Long: `Run the StorageBenchmark controller. It watches StorageBenchmark objects,
provisions volumes, starts client pods, merges their results and writes
status. Runs in the cluster (see config/ and charts/) or against the
current kubeconfig for development.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runManager(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", `address of the Prometheus metrics endpoint; "0" disables it`)
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader so that only one of several replicas reconciles")
	f.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader election Lease (default: the manager's own namespace)")
	f.StringVar(&o.watchNamespaces, "watch-namespaces", "", "comma-separated namespaces to watch; empty watches all")
	f.StringVar(&o.clientImage, "client-image", os.Getenv("STORAGEBENCH_CLIENT_IMAGE"), "image of the client pods: the operator's own image (default $STORAGEBENCH_CLIENT_IMAGE)")
	f.StringVar(&o.clientPullPolicy, "client-image-pull-policy", string(corev1.PullIfNotPresent), "pull policy of the client image: Always, IfNotPresent or Never")
	f.IntVar(&o.maxConcurrent, "max-concurrent-reconciles", controllers.DefaultMaxConcurrentReconciles, "benchmarks reconciled at once (one benchmark is never reconciled twice at once)")
	f.StringVar(&o.clientPodDefaults, "client-pod-defaults", "", `JSON or YAML with defaults for client pods: {"resources": {...}, "nodeSelector": {...}, "tolerations": [...]}; spec.clients overrides them`)
	addGoFlags(cmd, o.zap.BindFlags)
	return cmd
}

func runManager(cmd *cobra.Command, o *managerOptions) error {
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap)))
	setupLog := ctrl.Log.WithName("setup")
	clientPods, err := o.clientPodConfig()
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	if o.maxConcurrent < 1 || o.maxConcurrent > 1024 {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("--max-concurrent-reconciles=%d: want 1 to 1024", o.maxConcurrent)}
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := sbv1.AddToScheme(scheme); err != nil {
		return err
	}

	cacheOptions := controllers.CacheOptions(cache.Options{})
	if namespaces := splitList(o.watchNamespaces); len(namespaces) > 0 {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			cacheOptions.DefaultNamespaces[ns] = cache.Config{}
		}
	}

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("no cluster to talk to: %w", err)}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Cache:                   cacheOptions,
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "storagebench-manager.storagebench.io",
		LeaderElectionNamespace: o.leaderElectionNamespace,
		// The manager exits right after losing leadership, so a new leader
		// can take over without waiting for the old one's work to drain.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}

	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := controllers.Setup(mgr, controllers.Options{
		Logs: controllers.KubeletLogReader{Clientset: clientset}, ClientPods: clientPods, Clock: clock.RealClock{}, MaxConcurrentReconciles: o.maxConcurrent,
	}); err != nil {
		return fmt.Errorf("setting up the StorageBenchmark controller: %w", err)
	}
	if err := controllers.SetupScheduleWithManager(mgr, clock.RealClock{}); err != nil {
		return fmt.Errorf("setting up the StorageBenchmarkSchedule controller: %w", err)
	}
	if err := benchmetrics.Register(ctrlmetrics.Registry, benchmetrics.New(mgr.GetClient(), mgr.GetAPIReader())); err != nil {
		return fmt.Errorf("registering the benchmark metrics: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}

	setupLog.Info("Starting manager", "version", version.String(), "watchNamespaces", o.watchNamespaces, "leaderElection", o.leaderElect)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// clientPodConfig checks the client pod flags.
func (o *managerOptions) clientPodConfig() (controllers.ClientPodConfig, error) {
	cfg := controllers.ClientPodConfig{Image: o.clientImage, ImagePullPolicy: corev1.PullPolicy(o.clientPullPolicy)}
	if cfg.Image == "" {
		return cfg, errors.New("--client-image (or $STORAGEBENCH_CLIENT_IMAGE) is required: client pods run the operator's own image")
	}
	switch cfg.ImagePullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return cfg, fmt.Errorf("--client-image-pull-policy %q: use Always, IfNotPresent or Never", o.clientPullPolicy)
	}
	if o.clientPodDefaults != "" {
		var defaults struct {
			Resources    corev1.ResourceRequirements `json:"resources"`
			NodeSelector map[string]string           `json:"nodeSelector"`
			Tolerations  []corev1.Toleration         `json:"tolerations"`
		}
		if err := yaml.UnmarshalStrict([]byte(o.clientPodDefaults), &defaults); err != nil {
			return cfg, fmt.Errorf("--client-pod-defaults: %w", err)
		}
		cfg.DefaultResources, cfg.DefaultNodeSelector, cfg.DefaultTolerations = defaults.Resources, defaults.NodeSelector, defaults.Tolerations
	}
	return cfg, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
