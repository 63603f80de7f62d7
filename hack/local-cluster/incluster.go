package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// cmdInCluster checks, from inside a pod, what an operator's manager needs:
// the API server through the kubernetes Service address with the pod's
// service-account token, verified against the cluster CA. It also prints the
// pod's IPv4 routes (there must be no default route: nothing leaves the
// machine). It only talks to KUBERNETES_SERVICE_HOST.
func cmdInCluster(args []string) error {
	const sa = "/var/run/secrets/kubernetes.io/serviceaccount"
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" {
		return fmt.Errorf("KUBERNETES_SERVICE_HOST is not set: not in a pod")
	}
	routes, err := ipv4Routes()
	if err != nil {
		return err
	}
	fmt.Printf("routes: %s\n", strings.Join(routes, "; "))
	token, err := os.ReadFile(sa + "/token")
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(sa + "/ca.crt")
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool},
	}}
	base := "https://" + net.JoinHostPort(host, port)
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/version", ""},
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`},
	} {
		r, err := http.NewRequest(req.method, base+req.path, strings.NewReader(req.body))
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
		r.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(r)
		if err != nil {
			return fmt.Errorf("%s %s: %w", req.method, base+req.path, err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: %s: %s", req.method, req.path, resp.Status, b)
		}
		fmt.Printf("%s %s via %s: %s\n", req.method, req.path, base, strings.Join(strings.Fields(string(b)), " "))
	}
	return nil
}

// ipv4Routes reads /proc/net/route as "dst/len via gw dev".
func ipv4Routes() ([]string, error) {
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	ip := func(h string) net.IP {
		var v uint32
		fmt.Sscanf(h, "%X", &v)
		b := make([]byte, 4)
		binary.LittleEndian.PutUint32(b, v)
		return net.IP(b)
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			continue
		}
		ones, _ := net.IPMask(ip(f[7])).Size()
		out = append(out, fmt.Sprintf("%s/%d via %s dev %s", ip(f[1]), ones, ip(f[2]), f[0]))
	}
	return out, sc.Err()
}
