package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/internal/version"
)

func init() { register(newManagerCommand) }

type managerOptions struct {
	metricsAddr             string
	probeAddr               string
	leaderElect             bool
	leaderElectionNamespace string
	watchNamespaces         string
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
	addGoFlags(cmd, o.zap.BindFlags)
	return cmd
}

func runManager(cmd *cobra.Command, o *managerOptions) error {
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.zap)))
	setupLog := ctrl.Log.WithName("setup")

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := sbv1.AddToScheme(scheme); err != nil {
		return err
	}

	cacheOptions := cache.Options{}
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

	reconciler := &controllers.StorageBenchmarkReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("storagebench"),
		Clock:    clock.RealClock{},
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the StorageBenchmark controller: %w", err)
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

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
