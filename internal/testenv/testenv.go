// Package testenv starts a real etcd and kube-apiserver (envtest) with the
// project's CRDs installed, for integration tests of the API and the
// controller. The binaries are built from Go modules by hack/k8s-binaries.sh;
// `make test` points KUBEBUILDER_ASSETS at them.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	storagebenchv1alpha1 "github.com/storagebench/storagebench/api/v1alpha1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// Env is a running test API server with the CRDs installed.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *k8sruntime.Scheme
	env    *envtest.Environment
}

// RepoRoot is the repository's top folder, found from this file's location
// so tests work from any package directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Start launches etcd and kube-apiserver and installs the CRDs from
// config/crd/bases. It fails with instructions when the binaries are not
// there, rather than skipping: a test suite that silently skips its API
// tests is worse than one that stops.
func Start() (*Env, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, errors.New("KUBEBUILDER_ASSETS is not set: run `make test`, or `export KUBEBUILDER_ASSETS=$(hack/k8s-binaries.sh)` before `go test`")
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(RepoRoot(), "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	cfg, err := env.Start()
	if err != nil {
		// Start leaves etcd and the apiserver running when a later step
		// (installing the CRDs) fails: stop them, or every failed run leaks
		// two processes.
		_ = env.Stop()
		return nil, fmt.Errorf("starting envtest (etcd and kube-apiserver from KUBEBUILDER_ASSETS=%s): %w", os.Getenv("KUBEBUILDER_ASSETS"), err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: env}, nil
}

// NewScheme holds the Kubernetes types and the StorageBenchmark API.
func NewScheme() (*k8sruntime.Scheme, error) {
	scheme := k8sruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := storagebenchv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return scheme, nil
}

// WriteKubeconfig writes a kubeconfig for the test API server's admin user,
// for a process of its own (the controller scale benchmark's manager).
func (e *Env) WriteKubeconfig(path string) error {
	c := e.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.CertData, ClientKeyData: c.KeyData, Token: c.BearerToken}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	kc.CurrentContext = "envtest"
	return clientcmd.WriteToFile(*kc, path)
}

// Stop shuts the servers down.
func (e *Env) Stop() error { return e.env.Stop() }

// Codecs decodes YAML manifests into typed objects of the test scheme.
func (e *Env) Codecs() serializer.CodecFactory { return serializer.NewCodecFactory(e.Scheme) }

// Main is a test package's TestMain body: it starts the servers, runs setup
// (may be nil) for what the package needs on top, runs the tests, then
// tears down and stops the servers, and exits with the tests' status. The
// started Env is stored through env before setup runs.
func Main(m *testing.M, env **Env, setup func(*Env) (teardown func(), err error)) {
	e, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*env = e
	teardown := func() {}
	if setup != nil {
		if teardown, err = setup(e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			_ = e.Stop()
			os.Exit(1)
		}
	}
	code := m.Run()
	teardown()
	if err := e.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
}
