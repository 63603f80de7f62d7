package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The harness is one long-running process started by `up` (PID in the state
// folder). It does three jobs that the cluster itself has no component for:
//
//  1. blkio caps. cgroup v1 throttles are not hierarchical here: a cap on a
//     parent cgroup does not limit processes in child cgroups. So every
//     cgroup a kubelet creates under its kubepods (blkio controller) gets every
//     class's lines as soon as it appears, and in "device" scope (default) the
//     processes are moved into one shared blkio cgroup that holds the caps, so
//     that all pods doing IO to one class share that class's budget: the cap
//     is per device, like a disk's, not per pod. The root blkio cgroup gets the
//     caps too (page-cache writeback and host processes run there).
//  2. PV recycling: our local PVs have reclaimPolicy Retain; when one is
//     Released its directory is wiped and its claimRef cleared, so it is
//     Available again for the next test.
//  3. An API proxy for pods: there is no kube-proxy, so the kubernetes
//     Service's ClusterIP is an address on the CNI bridge and this process
//     forwards it to the apiserver on 127.0.0.1 (see apiproxy.go).
type harness struct {
	state       string
	blkioRoot   string
	kubepods    []string // the kubelets' pod cgroups (blkio), one per node
	shared      string   // shared blkio cgroup (device scope); "" in container scope
	caps        []DeviceCap
	rootCaps    bool
	interval    time.Duration
	known       map[string]bool
	api         *apiClient
	pvLabel     string
	wipePrefix  string
	blockDevs   map[string]bool
	proxyListen string
	proxyTarget string
}

func cmdHarness(args []string) error {
	fs := flag.NewFlagSet("harness", flag.ContinueOnError)
	state := fs.String("state", "", "the cluster's state folder")
	capsFile := fs.String("caps", "", "caps file (default STATE/run/caps.conf)")
	blkio := fs.String("blkio-root", "/sys/fs/cgroup/blkio", "blkio (cgroup v1) mount")
	scope := fs.String("scope", "device", "device: one budget per device shared by all pods; container: each container gets the full cap")
	sharedName := fs.String("shared-cgroup", "storagebench-local-cluster", "name of the shared blkio cgroup (device scope)")
	rootCaps := fs.Bool("root-caps", true, "also cap the root blkio cgroup (writeback, host processes)")
	interval := fs.Duration("interval", 200*time.Millisecond, "how often to look for new cgroups")
	kubepods := fs.String("kubepods", "kubepods", "comma-separated pod cgroups of the nodes' kubelets, relative to --blkio-root")
	apiserver := fs.String("apiserver", "https://127.0.0.1:6443", "")
	pki := fs.String("pki", "", "PKI folder (default STATE/pki); admin.crt/key and ca.crt are used")
	pvLabel := fs.String("pv-label", "storagebench.dev/local-cluster=true", "label selector of the PVs to recycle")
	proxyListen := fs.String("proxy-listen", "", "address the in-cluster API proxy listens on (ClusterIP:443); empty = no proxy")
	proxyTarget := fs.String("proxy-target", "127.0.0.1:6443", "")
	once := fs.Bool("once", false, "apply caps to the current cgroups once and exit (for tests)")
	clear := fs.Bool("clear-root-caps", false, "remove the caps from the root blkio cgroup and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *state == "" {
		return errors.New("need --state")
	}
	if *capsFile == "" {
		*capsFile = filepath.Join(*state, "run", "caps.conf")
	}
	if *pki == "" {
		*pki = filepath.Join(*state, "pki")
	}
	caps, err := readCapsFile(*capsFile)
	if err != nil {
		return err
	}
	h := &harness{
		state:       *state,
		blkioRoot:   *blkio,
		kubepods:    kubepodsDirs(*blkio, *kubepods),
		caps:        caps,
		rootCaps:    *rootCaps,
		interval:    *interval,
		known:       map[string]bool{},
		pvLabel:     *pvLabel,
		wipePrefix:  filepath.Clean(*state) + "/",
		blockDevs:   map[string]bool{},
		proxyListen: *proxyListen,
		proxyTarget: *proxyTarget,
	}
	if *clear {
		h.applyCaps(h.blkioRoot, true)
		return nil
	}
	switch *scope {
	case "device":
		h.shared = filepath.Join(*blkio, *sharedName)
	case "container":
	default:
		return fmt.Errorf("--scope %q: want device or container", *scope)
	}
	for _, c := range caps {
		h.blockDevs[c.Dev] = true
	}
	if err := h.setup(); err != nil {
		return err
	}
	if *once {
		h.scan()
		return nil
	}
	h.api, err = newAPIClient(*apiserver, *pki)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Printf("Harness started scope=%s caps=%d shared=%q rootCaps=%v proxy=%q", *scope, len(caps), h.shared, h.rootCaps, h.proxyListen)
	if h.proxyListen != "" {
		go runAPIProxy(ctx, h.proxyListen, h.proxyTarget)
	}
	go h.recycleLoop(ctx)
	// SIGHUP: hack/local-cluster.sh set-cap rewrote the caps file.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	t := time.NewTicker(h.interval)
	defer t.Stop()
	for {
		h.scan()
		select {
		case <-hup:
			h.reload(*capsFile)
		case <-ctx.Done():
			if h.rootCaps {
				h.applyCaps(h.blkioRoot, true)
			}
			log.Printf("Harness stopping")
			return nil
		case <-t.C:
		}
	}
}

func (h *harness) setup() error {
	if _, err := os.Stat(filepath.Join(h.blkioRoot, "blkio.throttle.read_iops_device")); err != nil {
		return fmt.Errorf("no cgroup v1 blkio throttling at %s: %w", h.blkioRoot, err)
	}
	if h.shared != "" {
		if err := os.MkdirAll(h.shared, 0o755); err != nil {
			return fmt.Errorf("creating the shared blkio cgroup: %w", err)
		}
		if err := h.applyCaps(h.shared, false); err != nil {
			return err
		}
	}
	if h.rootCaps {
		if err := h.applyCaps(h.blkioRoot, false); err != nil {
			return err
		}
	}
	return nil
}

// applyCaps writes every cap line into one cgroup (one write per line: the
// kernel takes one rule per write).
func (h *harness) applyCaps(dir string, clear bool) error {
	return writeThrottles(dir, ThrottleWrites(h.caps, clear))
}

// reload rereads the caps file (set-cap changed it) and sets the new
// limits in every cgroup holding the old ones: the shared cgroup, the root
// and every known pod cgroup, so that running pods get them at once.
func (h *harness) reload(capsFile string) {
	caps, err := readCapsFile(capsFile)
	if err != nil {
		log.Printf("Caps not reloaded file=%s err=%v", capsFile, err)
		return
	}
	h.caps = caps
	writes := ReloadWrites(caps)
	dirs := []string{}
	if h.shared != "" {
		dirs = append(dirs, h.shared)
	}
	if h.rootCaps {
		dirs = append(dirs, h.blkioRoot)
	}
	for p := range h.known {
		dirs = append(dirs, p)
	}
	for _, d := range dirs {
		if err := writeThrottles(d, writes); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Printf("Caps not reloaded cgroup=%s err=%v", d, err)
		}
	}
	log.Printf("Caps reloaded caps=%d cgroups=%d", len(caps), len(dirs))
}

func writeThrottles(dir string, writes map[string][]string) error {
	var errs []error
	files := make([]string, 0, len(writes))
	for f := range writes {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		for _, line := range writes[f] {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(line), 0); err != nil {
				errs = append(errs, fmt.Errorf("%s/%s <- %q: %w", dir, f, line, err))
			}
		}
	}
	return errors.Join(errs...)
}

func kubepodsDirs(blkio, list string) []string {
	var dirs []string
	for _, d := range strings.Split(list, ",") {
		if d = strings.TrimSpace(d); d != "" {
			dirs = append(dirs, filepath.Join(blkio, d))
		}
	}
	return dirs
}

// scan walks the kubepods blkio hierarchies once: new cgroups get the caps,
// and in device scope every process found there is moved to the shared
// cgroup (so pods of every node share one budget per device).
func (h *harness) scan() {
	seen := map[string]bool{}
	moved := 0
	for _, dir := range h.kubepods {
		moved += h.scanTree(dir, seen)
	}
	for p := range h.known {
		if !seen[p] {
			delete(h.known, p)
		}
	}
	if moved > 0 {
		log.Printf("Moved processes into the shared blkio cgroup count=%d", moved)
	}
}

func (h *harness) scanTree(root string, seen map[string]bool) int {
	moved := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // vanished while walking, or a file
		}
		seen[p] = true
		if !h.known[p] {
			if err := h.applyCaps(p, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
				log.Printf("Caps not applied cgroup=%s err=%v", p, err)
			} else {
				h.known[p] = true
			}
		}
		if h.shared != "" {
			moved += h.moveProcs(p)
		}
		return nil
	})
	return moved
}

func (h *harness) moveProcs(cg string) int {
	b, err := os.ReadFile(filepath.Join(cg, "cgroup.procs"))
	if err != nil || len(b) == 0 {
		return 0
	}
	n := 0
	for _, f := range strings.Fields(string(b)) {
		if _, err := strconv.Atoi(f); err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(h.shared, "cgroup.procs"), []byte(f), 0); err != nil {
			if !errors.Is(err, syscall.ESRCH) {
				log.Printf("Cannot move process pid=%s from=%s err=%v", f, cg, err)
			}
			continue
		}
		n++
	}
	return n
}
