package main

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseClasses(t *testing.T) {
	got, err := ParseClasses("fast:0, capped-8000:8000,capped-1500:1500,capped-bw:0:50Mi,dec:10:1M")
	if err != nil {
		t.Fatal(err)
	}
	want := []Class{{"fast", 0, 0}, {"capped-8000", 8000, 0}, {"capped-1500", 1500, 0}, {"capped-bw", 0, 50 << 20}, {"dec", 10, 1e6}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"", "fast", "Fast:0", "a:b", "a:1:2:3", "a:1,a:2", "a:1:50Mx", "-a:1"} {
		if _, err := ParseClasses(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "4096": 4096, "4Gi": 4 << 30, "50Mi": 50 << 20, "1k": 1000, "2G": 2e9} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Mi", "1.5Gi", "-1", "99999999999999Ti"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestReadCapsAndThrottleWrites(t *testing.T) {
	caps, err := ReadCaps(strings.NewReader("# comment\nfast 7:0 0 0\ncapped 7:1 1500 0\nbw 7:2 0 1048576\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 3 || caps[1] != (DeviceCap{"capped", "7:1", 1500, 0}) {
		t.Fatalf("caps %+v", caps)
	}
	w := ThrottleWrites(caps, false)
	want := map[string][]string{
		"blkio.throttle.read_iops_device":  {"7:1 1500"},
		"blkio.throttle.write_iops_device": {"7:1 1500"},
		"blkio.throttle.read_bps_device":   {"7:2 1048576"},
		"blkio.throttle.write_bps_device":  {"7:2 1048576"},
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("writes %v", w)
	}
	if c := ThrottleWrites(caps, true); c["blkio.throttle.read_iops_device"][0] != "7:1 0" {
		t.Errorf("clear writes %v", c)
	}
	// A reload sets every device's limits, 0 removing a rule the old caps
	// had (set-cap to uncapped).
	r := ReloadWrites([]DeviceCap{{"capped", "7:1", 1000, 0}})
	if !reflect.DeepEqual(r, map[string][]string{
		"blkio.throttle.read_iops_device": {"7:1 1000"}, "blkio.throttle.write_iops_device": {"7:1 1000"},
		"blkio.throttle.read_bps_device": {"7:1 0"}, "blkio.throttle.write_bps_device": {"7:1 0"},
	}) {
		t.Errorf("reload writes %v", r)
	}
	for _, bad := range []string{"x 7 1 1\n", "x 7:1 a 1\n", "x 7:1 1\n"} {
		if _, err := ReadCaps(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestScanFakeHierarchy runs one scan over a fake blkio tree: every kubepods
// cgroup gets the cap lines, and processes are moved to the shared cgroup.
func TestScanFakeHierarchy(t *testing.T) {
	root := t.TempDir()
	files := []string{"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device", "cgroup.procs"}
	mk := func(dir, procs string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			content := ""
			if f == "cgroup.procs" {
				content = procs
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(root, "")
	mk(filepath.Join(root, "kubepods"), "")
	mk(filepath.Join(root, "kubepods", "besteffort", "podX", "ctr1"), "4242\n")
	// A second node's kubelet, with its own cgroup root.
	mk(filepath.Join(root, "node-2", "kubepods", "podY", "ctr2"), "4343\n")
	h := &harness{
		blkioRoot: root,
		kubepods:  kubepodsDirs(root, "kubepods, node-2/kubepods"),
		shared:    filepath.Join(root, "shared"),
		caps:      []DeviceCap{{"c", "7:3", 1500, 0}},
		known:     map[string]bool{},
	}
	mk(h.shared, "")
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	h.scan()
	b, _ := os.ReadFile(filepath.Join(root, "kubepods", "besteffort", "podX", "ctr1", "blkio.throttle.write_iops_device"))
	if string(b) != "7:3 1500" {
		t.Errorf("container cgroup cap = %q", b)
	}
	b, _ = os.ReadFile(filepath.Join(root, "node-2", "kubepods", "podY", "ctr2", "blkio.throttle.write_iops_device"))
	if string(b) != "7:3 1500" {
		t.Errorf("the second node's container cgroup cap = %q", b)
	}
	// The fake cgroup.procs keeps the last write only: the second node's pid.
	if b, _ := os.ReadFile(filepath.Join(h.shared, "cgroup.procs")); string(b) != "4343" {
		t.Errorf("shared cgroup.procs = %q, want the pid moved last", b)
	}
	if len(h.known) != 7 {
		t.Errorf("known cgroups %v", h.known)
	}
	os.RemoveAll(filepath.Join(root, "kubepods", "besteffort", "podX"))
	h.scan()
	if len(h.known) != 5 {
		t.Errorf("removed cgroups still known: %v", h.known)
	}
}

var testNodes = []node{{"localhost", net.ParseIP("127.0.0.1")}, {"node-2", net.ParseIP("127.0.0.2")}}

func TestParseNodes(t *testing.T) {
	got, err := parseNodes("localhost=127.0.0.1, node-2=127.0.0.2")
	if err != nil || len(got) != 2 || got[1].name != "node-2" || !got[1].ip.Equal(net.ParseIP("127.0.0.2")) {
		t.Fatalf("parseNodes: %v %v", got, err)
	}
	for _, bad := range []string{"node-2", "node-2=10.0.0.2", "=127.0.0.2", "a=b"} {
		if _, err := parseNodes(bad); err == nil || !strings.Contains(err.Error(), "--nodes") {
			t.Errorf("parseNodes(%q): %v, want an error naming --nodes", bad, err)
		}
	}
}

func TestPKI(t *testing.T) {
	dir := t.TempDir()
	svc := net.ParseIP("10.124.0.1")
	if err := ensurePKI(dir, svc, testNodes, time.Now()); err != nil {
		t.Fatal(err)
	}
	ca, err := readCert(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	api, err := readCert(filepath.Join(dir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "10.124.0.1", "localhost", "kubernetes.default.svc"} {
		if _, err := api.Verify(x509.VerifyOptions{DNSName: host, Roots: pool}); err != nil {
			t.Errorf("apiserver cert for %s: %v", host, err)
		}
	}
	kl, _ := readCert(filepath.Join(dir, "kubelet-client.crt"))
	if kl.Subject.CommonName != "system:node:localhost" || kl.Subject.Organization[0] != "system:nodes" {
		t.Errorf("kubelet client subject %v", kl.Subject)
	}
	if _, err := kl.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("kubelet client cert: %v", err)
	}
	// The second node: its own identity for the Node authorizer, and a
	// serving certificate for the address the apiserver reaches it on.
	kl2, _ := readCert(filepath.Join(dir, "kubelet-client-node-2.crt"))
	if kl2 == nil || kl2.Subject.CommonName != "system:node:node-2" {
		t.Errorf("second kubelet client cert %v", kl2)
	}
	srv2, _ := readCert(filepath.Join(dir, "kubelet-serving-node-2.crt"))
	if srv2 == nil {
		t.Fatal("no serving certificate for node-2")
	}
	if _, err := srv2.Verify(x509.VerifyOptions{DNSName: "127.0.0.2", Roots: pool}); err != nil {
		t.Errorf("node-2 serving cert for 127.0.0.2: %v", err)
	}
	for _, f := range []string{"sa.key", "sa.pub", "admin.key", "kubelet-serving.crt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if st, _ := os.Stat(filepath.Join(dir, "ca.key")); st.Mode().Perm() != 0o600 {
		t.Errorf("ca.key mode %v", st.Mode())
	}
	// Idempotent: a second run keeps the CA.
	before, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err := ensurePKI(dir, svc, testNodes, time.Now()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if string(before) != string(after) {
		t.Error("second run replaced the CA")
	}
}

func TestDevNumbers(t *testing.T) {
	// makedev(7, 3) and makedev(259, 300) in glibc's encoding.
	mk := func(maj, min uint64) uint64 {
		return (maj&0xfff)<<8 | (maj&^0xfff)<<32 | (min & 0xff) | (min&^0xff)<<12
	}
	for _, c := range [][2]uint64{{7, 3}, {259, 300}} {
		d := mk(c[0], c[1])
		if devMajor(d) != c[0] || devMinor(d) != c[1] {
			t.Errorf("dev %x -> %d:%d, want %d:%d", d, devMajor(d), devMinor(d), c[0], c[1])
		}
	}
}
