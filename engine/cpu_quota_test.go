package engine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTheCgroupsCPULimitIsReadInCPUs(t *testing.T) {
	write := func(t *testing.T, root, name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  float64
	}{
		{"v2 unlimited", map[string]string{"cpu.max": "max 100000\n"}, 0},
		{"v2 half a CPU", map[string]string{"cpu.max": "50000 100000\n"}, 0.5},
		{"v2 two CPUs", map[string]string{"cpu.max": "200000 100000\n"}, 2},
		{"v2 garbage", map[string]string{"cpu.max": "lots\n"}, 0},
		{"v1 unlimited", map[string]string{"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0},
		{"v1 one and a half", map[string]string{"cpu,cpuacct/cpu.cfs_quota_us": "150000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, 1.5},
		{"none", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range c.files {
				write(t, root, name, content)
			}
			if got := cpuQuotaUnder(root); got != c.want {
				t.Fatalf("quota %v CPUs, want %v", got, c.want)
			}
		})
	}
}

func TestALimitBelowGOMAXPROCSLeavesFewerCPUsForWorkers(t *testing.T) {
	for _, c := range []struct {
		gomaxprocs int
		quota      float64
		want       int
	}{
		{2, 0, 2},   // no limit
		{2, 0.5, 0}, // GOMAXPROCS rounds half a CPU up to 2
		{2, 1.5, 1},
		{2, 2, 2},
		{4, 8, 4}, // the affinity is the lower
	} {
		if got := cpusForWorkers(c.gomaxprocs, c.quota); got != c.want {
			t.Errorf("GOMAXPROCS %d, limit %v CPUs: %d CPUs for workers, want %d", c.gomaxprocs, c.quota, got, c.want)
		}
	}
}
