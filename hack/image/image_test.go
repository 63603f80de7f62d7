package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testSpec() Spec {
	return Spec{
		Binary:     []byte("\x7fELF fake binary"),
		BinaryPath: "/storagebench",
		UID:        65532,
		GID:        65532,
		WorkingDir: "/home/nonroot",
		Labels:     map[string]string{"org.opencontainers.image.version": "v0.1.0"},
		Created:    time.Unix(1700000000, 0),
	}
}

type tarEntry struct {
	hdr  *tar.Header
	data string
}

func readTar(t *testing.T, b []byte) map[string]tarEntry {
	t.Helper()
	out := map[string]tarEntry{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = tarEntry{hdr: h, data: string(data)}
	}
}

func TestLayerContents(t *testing.T) {
	b, err := LayerTar(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	entries := readTar(t, b)
	want := map[string]struct {
		mode     int64
		typ      byte
		uid, gid int
	}{
		"etc/":          {0o755, tar.TypeDir, 0, 0},
		"etc/group":     {0o644, tar.TypeReg, 0, 0},
		"etc/passwd":    {0o644, tar.TypeReg, 0, 0},
		"home/":         {0o755, tar.TypeDir, 0, 0},
		"home/nonroot/": {0o700, tar.TypeDir, 65532, 65532},
		"storagebench":  {0o755, tar.TypeReg, 0, 0},
		"tmp/":          {0o1777, tar.TypeDir, 0, 0},
	}
	if len(entries) != len(want) {
		names := []string{}
		for n := range entries {
			names = append(names, n)
		}
		t.Fatalf("layer has %v, want %d entries", names, len(want))
	}
	for name, w := range want {
		e, ok := entries[name]
		if !ok {
			t.Errorf("layer lacks %s", name)
			continue
		}
		if e.hdr.Mode != w.mode || e.hdr.Typeflag != w.typ || e.hdr.Uid != w.uid || e.hdr.Gid != w.gid {
			t.Errorf("%s: mode %o type %c owner %d:%d, want %o %c %d:%d", name, e.hdr.Mode, e.hdr.Typeflag, e.hdr.Uid, e.hdr.Gid, w.mode, w.typ, w.uid, w.gid)
		}
		if !e.hdr.ModTime.Equal(time.Unix(1700000000, 0)) {
			t.Errorf("%s: mtime %v, want the fixed created time", name, e.hdr.ModTime)
		}
	}
	if got := entries["storagebench"].data; got != "\x7fELF fake binary" {
		t.Errorf("binary content %q", got)
	}
	if got := entries["etc/passwd"].data; !strings.Contains(got, "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n") || !strings.HasPrefix(got, "root:x:0:0:") {
		t.Errorf("passwd = %q", got)
	}
	if got := entries["etc/group"].data; got != "root:x:0:\nnonroot:x:65532:\n" {
		t.Errorf("group = %q", got)
	}
}

func TestLayerRootUser(t *testing.T) {
	s := testSpec()
	s.UID, s.GID, s.WorkingDir = 0, 0, "/"
	b, err := LayerTar(s)
	if err != nil {
		t.Fatal(err)
	}
	entries := readTar(t, b)
	if _, ok := entries["home/"]; ok {
		t.Error("root image should have no /home")
	}
	if got := entries["etc/passwd"].data; got != "root:x:0:0:root:/root:/sbin/nologin\n" {
		t.Errorf("passwd = %q", got)
	}
}

func TestLayerRejectsBadSpecs(t *testing.T) {
	for name, mut := range map[string]func(*Spec){
		"empty binary":   func(s *Spec) { s.Binary = nil },
		"relative path":  func(s *Spec) { s.BinaryPath = "storagebench" },
		"unclean path":   func(s *Spec) { s.BinaryPath = "/a/../storagebench" },
		"collides":       func(s *Spec) { s.BinaryPath = "/etc/passwd" },
		"negative uid":   func(s *Spec) { s.UID = -1 },
		"relative wdir":  func(s *Spec) { s.WorkingDir = "home" },
		"uid over ustar": func(s *Spec) { s.UID = 1 << 22 },
	} {
		s := testSpec()
		mut(&s)
		if _, err := LayerTar(s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestConfigFile(t *testing.T) {
	s := testSpec()
	s.Cmd = []string{"manager"}
	cf := ConfigFile(s)
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if got := cf.Config.Entrypoint; len(got) != 1 || got[0] != "/storagebench" {
		t.Errorf("entrypoint %q", got)
	}
	if got := cf.Config.Cmd; len(got) != 1 || got[0] != "manager" {
		t.Errorf("cmd %q", got)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q", cf.Config.User)
	}
	if cf.Config.WorkingDir != "/home/nonroot" {
		t.Errorf("workdir %q", cf.Config.WorkingDir)
	}
	if cf.Config.Labels["org.opencontainers.image.version"] != "v0.1.0" {
		t.Errorf("labels %v", cf.Config.Labels)
	}
	if len(cf.Config.Env) == 0 || !strings.HasPrefix(cf.Config.Env[0], "PATH=") {
		t.Errorf("env %q", cf.Config.Env)
	}
	if !cf.Created.Time.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("created %v", cf.Created)
	}
}

func TestImageIsReproducible(t *testing.T) {
	a, err := Image(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Image(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Fatalf("same spec, different digests: %s %s", da, db)
	}
	s := testSpec()
	s.Binary = []byte("\x7fELF other binary")
	c, err := Image(s)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := c.Digest(); dc == da {
		t.Fatal("different binary, same digest")
	}
	cf, err := a.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.RootFS.DiffIDs) != 1 || len(cf.History) != 1 {
		t.Errorf("rootfs %v history %v, want one layer", cf.RootFS.DiffIDs, cf.History)
	}
	if cf.Config.User != "65532:65532" || cf.Config.Entrypoint[0] != "/storagebench" {
		t.Errorf("config lost in assembly: %+v", cf.Config)
	}
}

// TestTarballLayout checks the docker-archive layout that docker load and
// ctr import read: manifest.json naming the tag, the config and the layer.
func TestTarballLayout(t *testing.T) {
	img, err := Image(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "img.tar")
	const ref = "localhost/storagebench/storagebench:v0.1.0"
	if err := WriteTarball(img, ref, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	entries := readTar(t, b)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal([]byte(entries["manifest.json"].data), &manifest); err != nil {
		t.Fatalf("manifest.json: %v (%q)", err, entries["manifest.json"].data)
	}
	if len(manifest) != 1 || len(manifest[0].RepoTags) != 1 || manifest[0].RepoTags[0] != ref {
		t.Fatalf("manifest.json = %+v", manifest)
	}
	m := manifest[0]
	if _, ok := entries[m.Config]; !ok {
		t.Errorf("config %s missing from the tarball", m.Config)
	}
	if len(m.Layers) != 1 {
		t.Fatalf("layers %v", m.Layers)
	}
	if _, ok := entries[m.Layers[0]]; !ok {
		t.Errorf("layer %s missing from the tarball", m.Layers[0])
	}
	id, _ := img.ConfigName()
	if m.Config != id.String() && m.Config != id.Hex && !strings.Contains(m.Config, id.Hex) {
		t.Errorf("config name %s, want image id %s", m.Config, id)
	}
	// A bad tag is refused and leaves no file.
	bad := filepath.Join(t.TempDir(), "bad.tar")
	if err := WriteTarball(img, "Not A Tag", bad); err == nil {
		t.Error("bad tag accepted")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Error("bad tag left a file")
	}
}

func TestParseHelpers(t *testing.T) {
	if u, g, err := parseUser("65532:65533"); err != nil || u != 65532 || g != 65533 {
		t.Errorf("parseUser = %d %d %v", u, g, err)
	}
	if u, g, err := parseUser("1000"); err != nil || u != 1000 || g != 1000 {
		t.Errorf("parseUser(1000) = %d %d %v", u, g, err)
	}
	if _, _, err := parseUser("nonroot"); err == nil {
		t.Error("named user accepted")
	}
	l, err := parseLabels([]string{"a=b", "c=d=e"}, "v1", "https://x", "")
	if err != nil || l["a"] != "b" || l["c"] != "d=e" || l["org.opencontainers.image.version"] != "v1" ||
		l["org.opencontainers.image.source"] != "https://x" {
		t.Errorf("parseLabels = %v %v", l, err)
	}
	if _, ok := l["org.opencontainers.image.revision"]; ok {
		t.Error("empty revision became a label")
	}
	if _, err := parseLabels([]string{"novalue"}, "", "", ""); err == nil {
		t.Error("label without = accepted")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	if ts, err := createdTime(""); err != nil || ts.Unix() != 0 {
		t.Errorf("default created = %v %v", ts, err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if ts, _ := createdTime(""); ts.Unix() != 1700000000 {
		t.Errorf("SOURCE_DATE_EPOCH ignored: %v", ts)
	}
	if ts, _ := createdTime("2024-01-02T03:04:05Z"); ts.Unix() != 1704164645 {
		t.Errorf("RFC 3339 created = %v", ts)
	}
}

func TestCLIBuild(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "storagebench")
	if err := os.WriteFile(bin, []byte("\x7fELF cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.tar")
	var stdout bytes.Buffer
	err := run([]string{"build", "--binary", bin, "--name", "localhost/storagebench/storagebench", "--tag", "v0.1.0",
		"--entrypoint", "/storagebench", "--label", "x=y", "--version", "v0.1.0", "--out", out}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "localhost/storagebench/storagebench:v0.1.0 digest=sha256:") {
		t.Errorf("stdout %q", stdout.String())
	}
	if err := run([]string{"build", "--binary", bin}, io.Discard); err == nil {
		t.Error("missing flags accepted")
	}
	if err := run([]string{"frobnicate"}, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}
