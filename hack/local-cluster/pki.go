package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// certSpec is one certificate the cluster needs.
type certSpec struct {
	file   string // base name: file.crt and file.key
	cn     string
	orgs   []string
	server bool
	client bool
	dns    []string
	ips    []net.IP
}

// clusterCerts lists every certificate, signed by one CA. Client identities:
// admin and the apiserver's kubelet client are system:masters; the node and
// the controllers use their well-known user names so RBAC's bootstrap roles
// (and the Node authorizer) apply.
func clusterCerts(serviceIP net.IP, nodes []node) []certSpec {
	loop := []net.IP{net.ParseIP("127.0.0.1")}
	certs := []certSpec{
		{file: "apiserver", cn: "kube-apiserver", server: true,
			dns: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
			ips: append(loop, serviceIP)},
		{file: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}, client: true},
		{file: "admin", cn: "storagebench-admin", orgs: []string{"system:masters"}, client: true},
		{file: "controller-manager", cn: "system:kube-controller-manager", client: true},
		{file: "scheduler", cn: "system:kube-scheduler", client: true},
	}
	for _, n := range nodes {
		certs = append(certs,
			certSpec{file: n.certBase("kubelet-client"), cn: "system:node:" + n.name, orgs: []string{"system:nodes"}, client: true},
			certSpec{file: n.certBase("kubelet-serving"), cn: n.name, server: true, dns: []string{n.name}, ips: []net.IP{n.ip}})
	}
	return certs
}

// node is a kubelet of the cluster: its node name and the loopback address
// it serves on (the apiserver reaches a kubelet by its Hostname address, the
// node name, which for every node but localhost is that IP).
type node struct {
	name string
	ip   net.IP
}

// certBase names a node's certificate files: the first node's keep their
// plain names (kubelet-client, kubelet-serving), so an existing PKI folder
// stays valid.
func (n node) certBase(kind string) string {
	if n.name == "localhost" {
		return kind
	}
	return kind + "-" + n.name
}

// parseNodes reads NAME=IP,NAME=IP (the first node is "localhost").
func parseNodes(list string) ([]node, error) {
	var out []node
	for _, item := range strings.Split(list, ",") {
		name, addr, ok := strings.Cut(strings.TrimSpace(item), "=")
		ip := net.ParseIP(addr)
		if !ok || name == "" || ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--nodes: %q is not NAME=LOOPBACK-IP", item)
		}
		out = append(out, node{name: name, ip: ip})
	}
	return out, nil
}

func cmdPKI(args []string) error {
	fs := flag.NewFlagSet("pki", flag.ContinueOnError)
	dir := fs.String("dir", "", "folder for the certificates and keys")
	svc := fs.String("service-ip", "", "ClusterIP of the kubernetes Service (SAN of the apiserver cert)")
	nodeList := fs.String("nodes", "localhost=127.0.0.1", "the kubelets: NAME=IP,... (client and serving certificates each)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ip := net.ParseIP(*svc)
	if *dir == "" || ip == nil {
		return errors.New("need --dir and --service-ip")
	}
	nodes, err := parseNodes(*nodeList)
	if err != nil {
		return err
	}
	return ensurePKI(*dir, ip, nodes, time.Now())
}

// ensurePKI creates what is missing; existing files are kept, so a cluster
// restarted over the same folder keeps trusting its own CA and kubeconfigs.
func ensurePKI(dir string, serviceIP net.IP, nodes []node, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caCert, caKey, err := loadOrCreateCA(dir, now)
	if err != nil {
		return err
	}
	for _, c := range clusterCerts(serviceIP, nodes) {
		if exists(filepath.Join(dir, c.file+".crt")) && exists(filepath.Join(dir, c.file+".key")) {
			continue
		}
		if err := issue(dir, c, caCert, caKey, now); err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
	}
	// Service-account token signing key pair.
	if !exists(filepath.Join(dir, "sa.key")) || !exists(filepath.Join(dir, "sa.pub")) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		if err := writeKey(filepath.Join(dir, "sa.key"), key); err != nil {
			return err
		}
		pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func loadOrCreateCA(dir string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	crtPath, keyPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if exists(crtPath) && exists(keyPath) {
		crt, err := readCert(crtPath)
		if err != nil {
			return nil, nil, err
		}
		kb, err := os.ReadFile(keyPath)
		if err != nil {
			return nil, nil, err
		}
		block, _ := pem.Decode(kb)
		if block == nil {
			return nil, nil, fmt.Errorf("%s: no PEM data", keyPath)
		}
		key, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", keyPath, err)
		}
		return crt, key, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "storagebench-local-cluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, nil, err
	}
	if err := writePEM(crtPath, "CERTIFICATE", der, 0o644); err != nil {
		return nil, nil, err
	}
	crt, err := x509.ParseCertificate(der)
	return crt, key, err
}

func issue(dir string, c certSpec, ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: c.cn, Organization: c.orgs},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		DNSNames:     c.dns,
		IPAddresses:  c.ips,
	}
	if c.server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if c.client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	if err := writeKey(filepath.Join(dir, c.file+".key"), key); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, c.file+".crt"), "CERTIFICATE", der, 0o644)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(err)
	}
	return n
}

func readCert(p string) (*x509.Certificate, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM data", p)
	}
	return x509.ParseCertificate(block.Bytes)
}

func writeKey(p string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(p, "EC PRIVATE KEY", der, 0o600)
}

// writePEM writes atomically (temp file + rename), so an interrupted run never
// leaves a truncated key that the next run would take as present.
func writePEM(p, typ string, der []byte, mode os.FileMode) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
