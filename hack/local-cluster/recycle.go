package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// apiClient is the few REST calls the harness needs, with the admin client
// certificate (no client-go: this module has no dependencies).
type apiClient struct {
	base string
	hc   *http.Client
}

func newAPIClient(base, pki string) (*apiClient, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no CA certificate in %s/ca.crt", pki)
	}
	return &apiClient{base: base, hc: &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:           nil, // never an HTTP proxy from the environment
			TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12},
		},
	}}, nil
}

func (a *apiClient) do(ctx context.Context, method, path, ctype string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// pv is the part of a PersistentVolume the recycler reads.
type pv struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		VolumeMode string `json:"volumeMode"`
		Local      *struct {
			Path string `json:"path"`
		} `json:"local"`
		ClaimRef *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"claimRef"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func (h *harness) recycleLoop(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := h.recycleOnce(ctx); err != nil && ctx.Err() == nil {
			log.Printf("PV recycling failed err=%v", err)
		}
	}
}

func (h *harness) recycleOnce(ctx context.Context) error {
	var list struct {
		Items []pv `json:"items"`
	}
	if err := h.api.do(ctx, http.MethodGet, "/api/v1/persistentvolumes?labelSelector="+url.QueryEscape(h.pvLabel), "", nil, &list); err != nil {
		return err
	}
	for _, v := range list.Items {
		if v.Status.Phase != "Released" || v.Spec.Local == nil || v.Spec.ClaimRef == nil {
			continue
		}
		if err := h.wipe(v); err != nil {
			log.Printf("Cannot wipe released PV pv=%s path=%s err=%v", v.Metadata.Name, v.Spec.Local.Path, err)
			continue
		}
		patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/resourceVersion","value":%q},{"op":"remove","path":"/spec/claimRef"}]`, v.Metadata.ResourceVersion)
		if err := h.api.do(ctx, http.MethodPatch, "/api/v1/persistentvolumes/"+v.Metadata.Name, "application/json-patch+json", []byte(patch), nil); err != nil {
			log.Printf("Cannot clear claimRef pv=%s err=%v", v.Metadata.Name, err)
			continue
		}
		log.Printf("Recycled PV pv=%s previousClaim=%s/%s", v.Metadata.Name, v.Spec.ClaimRef.Namespace, v.Spec.ClaimRef.Name)
	}
	return nil
}

// wipe empties a released volume. Only paths under the state folder (the
// class mounts) and the classes' own block devices are touched.
func (h *harness) wipe(v pv) error {
	p := filepath.Clean(v.Spec.Local.Path)
	if v.Spec.VolumeMode == "Block" {
		return wipeBlock(p, h.blockDevs)
	}
	if !strings.HasPrefix(p, h.wipePrefix) {
		return fmt.Errorf("refusing to wipe %s: not under %s", p, h.wipePrefix)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(p, e.Name())); err != nil {
			return err
		}
	}
	return os.Chmod(p, 0o777|os.ModeSticky)
}

// wipeBlock zeroes the first MiB of a block PV (partition tables, file system
// signatures): enough for the next user to see a blank device. Only the
// classes' own loop devices (listed in the caps file) are touched.
func wipeBlock(p string, ours map[string]bool) error {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return err
	}
	dev := fmt.Sprintf("%d:%d", devMajor(st.Rdev), devMinor(st.Rdev))
	if st.Mode&syscall.S_IFMT != syscall.S_IFBLK || !ours[dev] {
		return fmt.Errorf("refusing to wipe %s (%s): not one of our loop devices", p, dev)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		return err
	}
	return f.Sync()
}

// Linux dev_t encoding (as in glibc's gnu_dev_major/minor).
func devMajor(d uint64) uint64 { return ((d >> 8) & 0xfff) | ((d >> 32) & 0xfffff000) }
func devMinor(d uint64) uint64 { return (d & 0xff) | ((d >> 12) & 0xffffff00) }
