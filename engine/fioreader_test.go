//go:build linux

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// fioReport is an independent reader that knows only fio's JSON layout (as
// fio-plot, fio2gnuplot and in-house scripts parse it), not our types.
type fioReport struct {
	FioVersion string `json:"fio version"`
	Timestamp  int64  `json:"timestamp"`
	Jobs       []struct {
		JobName    string             `json:"jobname"`
		GroupID    int                `json:"groupid"`
		Error      int                `json:"error"`
		JobOptions map[string]string  `json:"job options"`
		JobRuntime int64              `json:"job_runtime"`
		UsrCPU     float64            `json:"usr_cpu"`
		SysCPU     float64            `json:"sys_cpu"`
		IODepth    map[string]float64 `json:"iodepth_level"`
		LatencyUs  map[string]float64 `json:"latency_us"`
		Read       fioDir             `json:"read"`
		Write      fioDir             `json:"write"`
		Sync       struct {
			LatNs struct {
				N int64 `json:"N"`
			} `json:"lat_ns"`
		} `json:"sync"`
	} `json:"jobs"`
}

type fioDir struct {
	IOBytes  int64   `json:"io_bytes"`
	BwBytes  int64   `json:"bw_bytes"`
	Bw       int64   `json:"bw"`
	IOPS     float64 `json:"iops"`
	Runtime  int64   `json:"runtime"`
	TotalIOs int64   `json:"total_ios"`
	ClatNs   struct {
		Min        int64            `json:"min"`
		Max        int64            `json:"max"`
		Mean       float64          `json:"mean"`
		N          int64            `json:"N"`
		Percentile map[string]int64 `json:"percentile"`
		Bins       map[string]int64 `json:"bins"`
	} `json:"clat_ns"`
	LatNs struct {
		Mean float64 `json:"mean"`
		N    int64   `json:"N"`
	} `json:"lat_ns"`
}

func TestJSONOutputReadsAsFio(t *testing.T) {
	jobs, opts := job(t, "--name=mix", "--directory="+t.TempDir(), "--size=8m", "--rw=randrw", "--rwmixread=70", "--bs=4k",
		"--iodepth=8", "--direct=1", "--runtime=1", "--time_based", "--output-format=json+")
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteOutput(&buf, doc, "json+"); err != nil {
		t.Fatal(err)
	}
	var rep fioReport
	dec := json.NewDecoder(&buf)
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("not fio JSON: %v", err)
	}
	if len(rep.Jobs) != 1 || rep.Jobs[0].JobName != "mix" || rep.Jobs[0].Error != 0 || rep.Timestamp == 0 || !strings.HasPrefix(rep.FioVersion, "storagebench-") {
		t.Fatalf("top level: %+v", rep)
	}
	j := rep.Jobs[0]
	if j.JobOptions["rw"] != "randrw" || j.JobRuntime < 990 || j.UsrCPU+j.SysCPU <= 0 || j.IODepth["8"] == 0 {
		t.Fatalf("job fields: options %v runtime %d cpu %v/%v depth %v", j.JobOptions, j.JobRuntime, j.UsrCPU, j.SysCPU, j.IODepth)
	}
	for name, d := range map[string]fioDir{"read": j.Read, "write": j.Write} {
		if d.TotalIOs == 0 || d.IOBytes != d.TotalIOs*4096 || d.IOPS <= 0 || d.Bw != d.BwBytes/1024 || d.Runtime < 990 {
			t.Fatalf("%s: %+v", name, d)
		}
		if d.ClatNs.N != d.TotalIOs || d.LatNs.N != d.TotalIOs || d.ClatNs.Min > d.ClatNs.Max || d.ClatNs.Mean <= 0 {
			t.Fatalf("%s clat: %+v", name, d.ClatNs)
		}
		// fio's default percentile list, keyed like fio.
		for _, key := range []string{"1.000000", "50.000000", "99.000000", "99.500000", "99.990000"} {
			if _, ok := d.ClatNs.Percentile[key]; !ok {
				t.Fatalf("%s: percentile %s missing from %v", name, key, d.ClatNs.Percentile)
			}
		}
		if d.ClatNs.Percentile["50.000000"] > d.ClatNs.Percentile["99.000000"] {
			t.Fatalf("%s: p50 > p99", name)
		}
		// json+ bins add up to the IO count.
		var n int64
		for v, c := range d.ClatNs.Bins {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				t.Fatalf("bin key %q", v)
			}
			n += c
		}
		if n != d.TotalIOs {
			t.Fatalf("%s: bins hold %d IOs of %d", name, n, d.TotalIOs)
		}
	}
	if share := float64(j.Read.TotalIOs) / float64(j.Read.TotalIOs+j.Write.TotalIOs); share < 0.66 || share > 0.74 {
		t.Fatalf("read share %.3f for rwmixread=70", share)
	}
	var sum float64
	for _, v := range j.LatencyUs {
		sum += v
	}
	if sum <= 0 || sum > 100.0001 {
		t.Fatalf("latency_us percentages sum to %v", sum)
	}
	// The extension is present and versioned.
	var ext struct {
		Storagebench struct {
			SchemaVersion string `json:"schemaVersion"`
			Jobs          []struct {
				Backend    string `json:"backend"`
				TimeSeries []any  `json:"timeSeries"`
			} `json:"jobs"`
		} `json:"storagebench"`
	}
	var again bytes.Buffer
	_ = WriteOutput(&again, doc, "json")
	if err := json.Unmarshal(again.Bytes(), &ext); err != nil || ext.Storagebench.SchemaVersion == "" || ext.Storagebench.Jobs[0].Backend == "" || len(ext.Storagebench.Jobs[0].TimeSeries) == 0 {
		t.Fatalf("extension: %+v, %v", ext, err)
	}
	var normal bytes.Buffer
	if err := WriteOutput(&normal, doc, "normal"); err != nil || !strings.Contains(normal.String(), "read: IOPS=") || !strings.Contains(normal.String(), "clat percentiles") {
		t.Fatalf("normal output:\n%s", normal.String())
	}
}
