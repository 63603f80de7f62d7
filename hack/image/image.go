package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Spec describes an image made of one static binary on an empty base. Every
// field that ends up in the image is here, so the same Spec and the same binary
// always give the same image digest.
type Spec struct {
	// Binary is the file copied into the image at BinaryPath, mode 0755.
	Binary []byte
	// BinaryPath is the absolute path of the binary inside the image.
	BinaryPath string
	// Entrypoint is the image's entrypoint; defaults to [BinaryPath].
	Entrypoint []string
	// Cmd is the image's default arguments (optional).
	Cmd []string
	// UID and GID the image runs as; a passwd/group entry named UserName is
	// written for them unless they are 0.
	UID, GID int
	// UserName is the passwd name of UID (default "nonroot").
	UserName string
	// WorkingDir of the image; created in the layer (owned by UID:GID) if it is
	// not "/".
	WorkingDir string
	// Env entries (KEY=VALUE).
	Env []string
	// Labels go into the image config (OCI annotations keys are conventional).
	Labels map[string]string
	// OS and Architecture of the image (linux, amd64).
	OS, Architecture string
	// Created is the timestamp of the config, the history entry and every file
	// in the layer. Fixed (not "now") so builds are reproducible.
	Created time.Time
}

// withDefaults fills what the caller may leave empty.
func (s Spec) withDefaults() Spec {
	if s.BinaryPath == "" {
		s.BinaryPath = "/app"
	}
	if len(s.Entrypoint) == 0 {
		s.Entrypoint = []string{s.BinaryPath}
	}
	if s.UserName == "" {
		s.UserName = "nonroot"
	}
	if s.WorkingDir == "" {
		s.WorkingDir = "/"
	}
	if s.OS == "" {
		s.OS = "linux"
	}
	if s.Architecture == "" {
		s.Architecture = "amd64"
	}
	if len(s.Env) == 0 {
		s.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	}
	return s
}

func (s Spec) validate() error {
	if len(s.Binary) == 0 {
		return fmt.Errorf("the binary is empty")
	}
	for _, p := range []string{s.BinaryPath, s.WorkingDir} {
		if !path.IsAbs(p) || path.Clean(p) != p {
			return fmt.Errorf("path %q must be absolute and clean", p)
		}
	}
	if s.UID < 0 || s.GID < 0 || s.UID > 1<<21-1 || s.GID > 1<<21-1 {
		return fmt.Errorf("uid/gid %d:%d out of range", s.UID, s.GID)
	}
	switch s.BinaryPath {
	case "/etc/passwd", "/etc/group", "/tmp", "/etc":
		return fmt.Errorf("binary path %q collides with a file of the base layout", s.BinaryPath)
	}
	return nil
}

// user is the image config's User field: numeric, so runAsNonRoot can be
// verified by the kubelet without reading /etc/passwd.
func (s Spec) user() string {
	return fmt.Sprintf("%d:%d", s.UID, s.GID)
}

// fileEntry is one entry of the layer.
type fileEntry struct {
	name     string // absolute path
	mode     int64  // permission bits incl. sticky
	dir      bool
	uid, gid int
	data     []byte
}

// layerEntries lists what the single layer holds: the binary, /etc/passwd and
// /etc/group with root and the nonroot user, a world-writable sticky /tmp and
// the working directory. Parent directories are added, sorted by path.
func layerEntries(s Spec) []fileEntry {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n"
	group := "root:x:0:\n"
	home := "/root"
	if s.UID != 0 {
		if s.WorkingDir != "/" {
			home = s.WorkingDir
		} else {
			home = "/home/" + s.UserName
		}
		passwd += fmt.Sprintf("%s:x:%d:%d:%s:%s:/sbin/nologin\n", s.UserName, s.UID, s.GID, s.UserName, home)
	}
	if s.GID != 0 {
		group += fmt.Sprintf("%s:x:%d:\n", s.UserName, s.GID)
	}
	files := map[string]fileEntry{
		s.BinaryPath:  {name: s.BinaryPath, mode: 0o755, data: s.Binary},
		"/etc/passwd": {name: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		"/etc/group":  {name: "/etc/group", mode: 0o644, data: []byte(group)},
		"/tmp":        {name: "/tmp", mode: 0o1777, dir: true},
	}
	if s.UID != 0 {
		files[home] = fileEntry{name: home, mode: 0o700, dir: true, uid: s.UID, gid: s.GID}
	}
	if s.WorkingDir != "/" && s.WorkingDir != home {
		files[s.WorkingDir] = fileEntry{name: s.WorkingDir, mode: 0o755, dir: true, uid: s.UID, gid: s.GID}
	}
	// Parent directories, root-owned 0755, unless listed already.
	for p := range files {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := files[d]; !ok {
				files[d] = fileEntry{name: d, mode: 0o755, dir: true}
			}
		}
	}
	out := make([]fileEntry, 0, len(files))
	for _, f := range files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// LayerTar returns the uncompressed tar of the image's only layer. Entries are
// sorted and carry fixed timestamps and owners, so the bytes only depend on the
// Spec.
func LayerTar(s Spec) ([]byte, error) {
	s = s.withDefaults()
	if err := s.validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range layerEntries(s) {
		h := &tar.Header{
			Name:    strings.TrimPrefix(f.name, "/"),
			Mode:    f.mode,
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: s.Created.UTC(),
			Format:  tar.FormatPAX,
		}
		if f.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("writing tar header for %s: %w", f.name, err)
		}
		if !f.dir {
			if _, err := tw.Write(f.data); err != nil {
				return nil, fmt.Errorf("writing %s into the layer: %w", f.name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ConfigFile returns the image configuration (without rootfs and history,
// which mutate.Append fills in).
func ConfigFile(s Spec) *v1.ConfigFile {
	s = s.withDefaults()
	labels := map[string]string{}
	for k, v := range s.Labels {
		labels[k] = v
	}
	return &v1.ConfigFile{
		Architecture: s.Architecture,
		OS:           s.OS,
		Created:      v1.Time{Time: s.Created.UTC()},
		Config: v1.Config{
			Entrypoint: append([]string(nil), s.Entrypoint...),
			Cmd:        append([]string(nil), s.Cmd...),
			User:       s.user(),
			WorkingDir: s.WorkingDir,
			Env:        append([]string(nil), s.Env...),
			Labels:     labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
}

// Image assembles the image: an empty base, one layer, the config.
func Image(s Spec) (v1.Image, error) {
	s = s.withDefaults()
	layerBytes, err := LayerTar(s)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.DockerLayer))
	if err != nil {
		return nil, fmt.Errorf("creating the layer: %w", err)
	}
	img, err := mutate.ConfigFile(empty.Image, ConfigFile(s))
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: s.Created.UTC()},
			CreatedBy: "storagebench hack/image: " + s.BinaryPath,
			Comment:   "static binary on an empty base",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	// mutate.Append keeps the config's Created; set it again to be explicit.
	return mutate.CreatedAt(img, v1.Time{Time: s.Created.UTC()})
}

// WriteTarball writes img as a docker-archive tarball (manifest.json with
// RepoTags, the config and the layer blobs), which `docker load` and
// `ctr images import` both accept. The file is written to a temporary name in
// the same folder and renamed, so a failed build never leaves a partial tar.
func WriteTarball(img v1.Image, tag, out string) error {
	ref, err := name.NewTag(tag, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("invalid tag %q (want e.g. localhost/storagebench/storagebench:v0.1.0): %w", tag, err)
	}
	tmp, err := os.CreateTemp(path.Dir(out), ".image-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tarball.Write(ref, img, tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
