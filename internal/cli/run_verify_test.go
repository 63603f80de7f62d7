package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunVerifyCatchesCorruptionOfTheDataSet runs a verified benchmark, then
// corrupts its data set behind the tool's back and runs it again on the
// same data: the second run must fail naming the client, file, offset and
// the checksums, never report a number.
func TestRunVerifyCatchesCorruptionOfTheDataSet(t *testing.T) {
	dir, workdir := t.TempDir(), t.TempDir()
	spec := func(readPercent string) string {
		p := filepath.Join(dir, "verify-"+readPercent+".yaml")
		body := `apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata: {name: verified}
spec:
  targets: [{name: here, storageClassName: any, size: 1Gi}]
  clients: {count: 1}
  dataset: {sizePerClient: 4Mi, verify: CRC32C}
  workloads: [{name: w, blockSizes: [4Ki, 16Ki], readPercents: [` + readPercent + `], queueDepths: [4], durationSeconds: 1, rampSeconds: 0}]
`
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	code, out, stderr := run(t, "run", "-f", spec("50"), "--workdir", workdir)
	if code != 0 {
		t.Fatalf("a verified run of sound storage: exit %d\n%s\n%s", code, out, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(workdir, "here", "client-*", "file-0"))
	if len(files) != 1 {
		t.Fatalf("data set files %v, want one", files)
	}
	f, err := os.OpenFile(files[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Rot in every 16 KiB block but the first and last (which tell a
	// verified data set from another and would have it laid out again).
	for off := int64(16 << 10); off < 4<<20-16<<10; off += 16 << 10 {
		if _, err := f.WriteAt([]byte("rot"), off+1000); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	code, out, stderr = run(t, "run", "-f", spec("100"), "--workdir", workdir)
	all := out + stderr
	if code == 0 {
		t.Fatalf("the corrupted data set passed:\n%s", all)
	}
	for _, want := range []string{"client 0", files[0], "verify (crc32c) failed", "at offset", "the data does not match its checksum", "expected crc32c ", "found crc32c "} {
		if !strings.Contains(all, want) {
			t.Errorf("the failure does not say %q:\n%s", want, all)
		}
	}
}
