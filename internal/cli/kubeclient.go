package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// kubeFlags are the cluster connection flags of report and gate.
type kubeFlags struct {
	kubeconfig string
	context    string
	namespace  string
}

func (k *kubeFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	f.StringVar(&k.context, "context", "", "kubeconfig context to use")
	f.StringVarP(&k.namespace, "namespace", "n", "", "namespace of the benchmark (default: the context's)")
}

// client connects as kubectl would and returns the namespace to use.
func (k *kubeFlags) client() (client.Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.context})
	rest, err := cfg.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("no cluster to talk to: %w", err)
	}
	namespace := k.namespace
	if namespace == "" {
		if namespace, _, err = cfg.Namespace(); err != nil {
			return nil, "", err
		}
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	if err := sbv1.AddToScheme(scheme); err != nil {
		return nil, "", err
	}
	c, err := client.New(rest, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to the cluster: %w", err)
	}
	return c, namespace, nil
}
