// Command image builds container images without a Docker daemon or a
// registry: a static binary on an empty base, written as a docker-archive
// tarball that both `ctr -n k8s.io images import` and `docker load` accept.
//
// It is its own Go module (hack/image/go.mod), so go-containerregistry stays
// out of the project's go.mod. Run it from the repository root with go -C:
//
//	go -C hack/image run . build --binary "$PWD/bin/storagebench" \
//	    --name localhost/storagebench/storagebench --tag v0.1.0 \
//	    --entrypoint /storagebench --user 65532:65532 \
//	    --version v0.1.0 --source https://github.com/storagebench/storagebench \
//	    --revision "$(git rev-parse HEAD)" --out "$PWD/bin/storagebench-image.tar"
//
//	go -C hack/image run . build-pause --out "$PWD/bin/pause-image.tar"
//
// go -C changes the working directory to hack/image before the program runs,
// so pass absolute paths (as above with $PWD); relative ones are taken from
// hack/image.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const usage = `image: build container images without a Docker daemon or a registry.

Usage (from the repository root; pass absolute paths, go -C runs the program
in hack/image):

  go -C hack/image run . build --binary PATH --name NAME --tag TAG --out FILE.tar [flags]
  go -C hack/image run . build-pause --out FILE.tar [flags]
  go -C hack/image run . help

build: one layer holding the binary (mode 0755), /etc/passwd and /etc/group
with root and the non-root user, a world-writable sticky /tmp and the user's
home (the working directory); config with entrypoint, numeric user, working
directory, PATH, OCI labels, linux/amd64. Timestamps are fixed
($SOURCE_DATE_EPOCH, or --created, default 1970-01-01T00:00:00Z), so the same
binary and flags give the same image digest.

  --binary PATH        static binary to put into the image (required)
  --name NAME          repository, e.g. localhost/storagebench/storagebench (required)
  --tag TAG            tag, e.g. v0.1.0 (required; avoid "latest": the kubelet
                       would then try to pull it)
  --out FILE           output tarball (docker-archive; required)
  --entrypoint PATH    in-image path of the binary and the entrypoint
                       (default /<basename of --binary>)
  --arg ARG            default argument (image Cmd); repeatable
  --user UID:GID       numeric user (default 65532:65532; 0:0 for root)
  --user-name NAME     passwd/group name of that user (default nonroot)
  --workdir DIR        working directory (default the user's home,
                       /home/<user-name>, or / for root)
  --env KEY=VALUE      environment entry; repeatable (default PATH=...)
  --label KEY=VALUE    image label; repeatable
  --version V          label org.opencontainers.image.version
  --source URL         label org.opencontainers.image.source
  --revision REV       label org.opencontainers.image.revision
  --created TIME       RFC 3339 or Unix seconds (overrides $SOURCE_DATE_EPOCH)
  --arch ARCH          image architecture (default amd64; must match the binary)

build-pause: compiles hack/image/pause (a static PID-1 program that waits for
SIGTERM/SIGINT and reaps zombies) and builds the sandbox ("pause") image.

  --out FILE           output tarball (required)
  --name NAME          default localhost/storagebench/pause
  --tag TAG            default 3.10-local
  --binary PATH        use this prebuilt pause binary instead of compiling
  --arch ARCH          default amd64

Both print one line: the image reference, its manifest digest and image ID.
Import with:  ctr -n k8s.io images import FILE.tar   (or: docker load -i FILE.tar,
or hack/local-cluster.sh load-image FILE.tar).
`

// Defaults of the pause image.
const (
	pauseName = "localhost/storagebench/pause"
	pauseTag  = "3.10-local"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("missing command (build, build-pause, help)")
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "build":
		return cmdBuild(args[1:], stdout)
	case "build-pause":
		return cmdBuildPause(args[1:], stdout)
	default:
		return fmt.Errorf("unknown command %q (build, build-pause, help)", args[0])
	}
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	return fs
}

func cmdBuild(args []string, stdout io.Writer) error {
	fs := newFlagSet("build")
	var (
		binary     = fs.String("binary", "", "")
		repo       = fs.String("name", "", "")
		tag        = fs.String("tag", "", "")
		out        = fs.String("out", "", "")
		entrypoint = fs.String("entrypoint", "", "")
		user       = fs.String("user", "65532:65532", "")
		userName   = fs.String("user-name", "nonroot", "")
		workdir    = fs.String("workdir", "", "")
		version    = fs.String("version", "", "")
		source     = fs.String("source", "", "")
		revision   = fs.String("revision", "", "")
		created    = fs.String("created", "", "")
		arch       = fs.String("arch", "amd64", "")
		argsF      listFlag
		envF       listFlag
		labelF     listFlag
	)
	fs.Var(&argsF, "arg", "")
	fs.Var(&envF, "env", "")
	fs.Var(&labelF, "label", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *binary == "" || *repo == "" || *tag == "" || *out == "" {
		return errors.New("build needs --binary, --name, --tag and --out (see help)")
	}
	labels, err := parseLabels(labelF, *version, *source, *revision)
	if err != nil {
		return err
	}
	ts, err := createdTime(*created)
	if err != nil {
		return err
	}
	spec := Spec{
		Entrypoint:   nil,
		Cmd:          argsF,
		UserName:     *userName,
		Env:          envF,
		Labels:       labels,
		Architecture: *arch,
		Created:      ts,
	}
	if spec.UID, spec.GID, err = parseUser(*user); err != nil {
		return err
	}
	spec.BinaryPath = *entrypoint
	if spec.BinaryPath == "" {
		spec.BinaryPath = "/" + filepath.Base(*binary)
	}
	spec.WorkingDir = *workdir
	if spec.WorkingDir == "" {
		spec.WorkingDir = "/"
		if spec.UID != 0 {
			spec.WorkingDir = path.Join("/home", spec.UserName)
		}
	}
	return buildAndWrite(spec, *binary, *repo+":"+*tag, *out, stdout)
}

func cmdBuildPause(args []string, stdout io.Writer) error {
	fs := newFlagSet("build-pause")
	var (
		binary  = fs.String("binary", "", "")
		repo    = fs.String("name", pauseName, "")
		tag     = fs.String("tag", pauseTag, "")
		out     = fs.String("out", "", "")
		created = fs.String("created", "", "")
		arch    = fs.String("arch", "amd64", "")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("build-pause needs --out (see help)")
	}
	ts, err := createdTime(*created)
	if err != nil {
		return err
	}
	bin := *binary
	if bin == "" {
		tmp, err := os.MkdirTemp("", "pause-build-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bin = filepath.Join(tmp, "pause")
		if err := compilePause(bin, *arch); err != nil {
			return err
		}
	}
	spec := Spec{
		BinaryPath:   "/pause",
		UID:          65535,
		GID:          65535,
		UserName:     "pause",
		WorkingDir:   "/",
		Labels:       map[string]string{"org.opencontainers.image.title": "storagebench local pause", "org.opencontainers.image.version": *tag},
		Architecture: *arch,
		Created:      ts,
	}
	return buildAndWrite(spec, bin, *repo+":"+*tag, *out, stdout)
}

// compilePause builds ./pause of this module as a static binary. The module
// folder is found with `go list`, so this works from hack/image (go -C) and
// from anywhere inside it.
func compilePause(out, arch string) error {
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/storagebench/storagebench/hack/image/pause").Output()
	if err != nil {
		return fmt.Errorf("cannot find the pause sources (run from hack/image, e.g. go -C hack/image run . build-pause, or pass --binary): %w", err)
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -buildid=", "-o", out, ".")
	cmd.Dir = strings.TrimSpace(string(dir))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("compiling the pause program: %w", err)
	}
	return nil
}

func buildAndWrite(spec Spec, binaryPath, ref, out string, stdout io.Writer) error {
	data, err := os.ReadFile(binaryPath)
	if err != nil {
		return fmt.Errorf("reading the binary: %w", err)
	}
	spec.Binary = data
	img, err := Image(spec)
	if err != nil {
		return err
	}
	if err := WriteTarball(img, ref, out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	id, err := img.ConfigName()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %s digest=%s id=%s\n", out, ref, digest, id)
	return nil
}

func parseUser(s string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(s, ":")
	if !ok {
		g = u
	}
	if uid, err = strconv.Atoi(u); err != nil {
		return 0, 0, fmt.Errorf("--user %q: want numeric UID:GID", s)
	}
	if gid, err = strconv.Atoi(g); err != nil {
		return 0, 0, fmt.Errorf("--user %q: want numeric UID:GID", s)
	}
	return uid, gid, nil
}

func parseLabels(kvs []string, version, source, revision string) (map[string]string, error) {
	labels := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--label %q: want KEY=VALUE", kv)
		}
		labels[k] = v
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.source":   source,
		"org.opencontainers.image.revision": revision,
	} {
		if v != "" {
			labels[k] = v
		}
	}
	return labels, nil
}

// createdTime picks the fixed timestamp: the flag, else $SOURCE_DATE_EPOCH,
// else the Unix epoch.
func createdTime(flagValue string) (time.Time, error) {
	v := flagValue
	if v == "" {
		v = os.Getenv("SOURCE_DATE_EPOCH")
	}
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(secs, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("created time %q: want RFC 3339 or Unix seconds", v)
	}
	return t.UTC(), nil
}
