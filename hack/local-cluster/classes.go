package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Class is one storage class with a known performance envelope.
type Class struct {
	Name string
	// IOPS caps reads and writes separately (each direction gets this cap);
	// 0 = uncapped.
	IOPS uint64
	// BPS caps read and write bandwidth in bytes/s; 0 = uncapped.
	BPS uint64
}

var classNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ParseClasses parses "name:iops[:bandwidth],..." e.g.
// "fast:0,capped-8000:8000,capped-1500:1500,capped-bw:0:50Mi".
func ParseClasses(spec string) ([]Class, error) {
	var out []Class
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("class %q: want name:iops or name:iops:bandwidth", item)
		}
		c := Class{Name: parts[0]}
		if !classNameRE.MatchString(c.Name) || len(c.Name) > 40 {
			return nil, fmt.Errorf("class %q: name must be lowercase letters, digits and '-' (at most 40)", c.Name)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("class %q listed twice", c.Name)
		}
		seen[c.Name] = true
		var err error
		if c.IOPS, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
			return nil, fmt.Errorf("class %q: IOPS cap %q is not a whole number", c.Name, parts[1])
		}
		if len(parts) == 3 {
			if c.BPS, err = ParseBytes(parts[2]); err != nil {
				return nil, fmt.Errorf("class %q: bandwidth cap: %w", c.Name, err)
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no storage class given")
	}
	return out, nil
}

// ParseBytes parses a byte count with an optional Kubernetes-style suffix
// (Ki, Mi, Gi, Ti binary; k, M, G, T decimal).
func ParseBytes(s string) (uint64, error) {
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a byte count (e.g. 50Mi)", s)
	}
	if n != 0 && n*mult/mult != n {
		return 0, fmt.Errorf("%q overflows", s)
	}
	return n * mult, nil
}

// cmdClasses prints one "name iops bps" line per class, for the script.
func cmdClasses(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: sbcluster classes SPEC")
	}
	cs, err := ParseClasses(args[0])
	if err != nil {
		return err
	}
	for _, c := range cs {
		fmt.Printf("%s %d %d\n", c.Name, c.IOPS, c.BPS)
	}
	return nil
}

// DeviceCap is the cap of one loop device, as the harness reads it from the
// caps file the script writes: "class major:minor iops bps" per line.
type DeviceCap struct {
	Class string
	Dev   string // major:minor
	IOPS  uint64
	BPS   uint64
}

var devRE = regexp.MustCompile(`^[0-9]+:[0-9]+$`)

func ReadCaps(r io.Reader) ([]DeviceCap, error) {
	var out []DeviceCap
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 4 || !devRE.MatchString(f[1]) {
			return nil, fmt.Errorf("caps line %d: want \"class major:minor iops bps\", got %q", ln, sc.Text())
		}
		iops, err1 := strconv.ParseUint(f[2], 10, 64)
		bps, err2 := strconv.ParseUint(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("caps line %d: bad numbers in %q", ln, sc.Text())
		}
		out = append(out, DeviceCap{Class: f[0], Dev: f[1], IOPS: iops, BPS: bps})
	}
	return out, sc.Err()
}

// ReloadWrites returns, per blkio throttle file, the lines that set every
// device's limits to caps, where an uncapped value (0) removes that
// device's rule: what a changed caps file (set-cap) needs in cgroups that
// already hold the old limits.
func ReloadWrites(caps []DeviceCap) map[string][]string {
	out := map[string][]string{}
	for _, c := range caps {
		for _, f := range []string{"read_iops", "write_iops"} {
			out["blkio.throttle."+f+"_device"] = append(out["blkio.throttle."+f+"_device"], fmt.Sprintf("%s %d", c.Dev, c.IOPS))
		}
		for _, f := range []string{"read_bps", "write_bps"} {
			out["blkio.throttle."+f+"_device"] = append(out["blkio.throttle."+f+"_device"], fmt.Sprintf("%s %d", c.Dev, c.BPS))
		}
	}
	return out
}

func readCapsFile(p string) ([]DeviceCap, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCaps(f)
}

// ThrottleWrites returns, per blkio throttle file, the lines to write into a
// cgroup so that every capped device is limited. A line only limits IO to its
// own device, so every cgroup gets every device's lines. clear=true returns
// the lines that remove the limits ("major:minor 0").
func ThrottleWrites(caps []DeviceCap, clear bool) map[string][]string {
	out := map[string][]string{}
	add := func(file, dev string, v uint64) {
		if clear {
			v = 0
		}
		out[file] = append(out[file], fmt.Sprintf("%s %d", dev, v))
	}
	for _, c := range caps {
		if c.IOPS > 0 {
			add("blkio.throttle.read_iops_device", c.Dev, c.IOPS)
			add("blkio.throttle.write_iops_device", c.Dev, c.IOPS)
		}
		if c.BPS > 0 {
			add("blkio.throttle.read_bps_device", c.Dev, c.BPS)
			add("blkio.throttle.write_bps_device", c.Dev, c.BPS)
		}
	}
	return out
}
