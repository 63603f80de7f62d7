package clientrun

import (
	"os"
	"path/filepath"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// metadataBenchmark is two clients doing Create, Stat, Open, Rename and
// Delete on 300 files of 1 KiB each, then Mkdir and Rmdir, in one directory
// for all or one each.
func metadataBenchmark(shared bool) *sbv1.StorageBenchmark {
	b := smallBenchmark(2, true)
	size := sbv1.ByteSize("1Ki")
	b.Spec.Workloads = []sbv1.WorkloadGroup{
		{Name: "files", Kind: sbv1.WorkloadMetadata, NumJobs: []int32{2}, DurationSeconds: 1, Metadata: &sbv1.MetadataWorkload{
			Operations:  []sbv1.MetadataOperation{sbv1.MetadataCreate, sbv1.MetadataStat, sbv1.MetadataOpen, sbv1.MetadataRename, sbv1.MetadataDelete},
			FilesPerJob: 300, FileSize: &size, FilesPerDirectory: 128, SharedDirectory: shared, Order: sbv1.MetadataRandom,
		}},
		{Name: "dirs", Kind: sbv1.WorkloadMetadata, DurationSeconds: 1, Metadata: &sbv1.MetadataWorkload{
			Operations: []sbv1.MetadataOperation{sbv1.MetadataMkdir, sbv1.MetadataRmdir}, FilesPerJob: 200, SharedDirectory: shared,
		}},
		{Name: "repeat", Kind: sbv1.WorkloadMetadata, DurationSeconds: 1, Metadata: &sbv1.MetadataWorkload{
			Operations: []sbv1.MetadataOperation{sbv1.MetadataCreate, sbv1.MetadataStat}, FilesPerJob: 100, SharedDirectory: shared,
			TimedBy: sbv1.MetadataByDuration,
		}},
	}
	return b
}

// Every client does every operation on each of its names, in the shared
// directory or its own; the clients' operations add up to the cell's; the
// bytes of Create and Open are the files' sizes; and nothing is left.
func TestMetadataCellsRunOnEveryClientAndCleanUp(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared directory", false: "a directory each"}[shared], func(t *testing.T) {
			t.Parallel() // the timetable, not the work, takes the time
			root := memoryDir(t)
			b := metadataBenchmark(shared)
			p := plan.Build(b, &b.Spec.Targets[0], root)
			tr, _ := runClients(t, p)
			want := map[string]int64{
				"files-create-f300-j2": 1200, "files-stat-f300-j2": 1200, "files-open-f300-j2": 1200,
				"files-rename-f300-j2": 2400, "files-delete-f300-j2": 1200,
				"dirs-mkdir-f200-j1": 400, "dirs-rmdir-f200-j1": 400,
				"repeat-create-f100-j1": 200, "repeat-stat-f100-j1": -1, // for a second: many passes
			}
			if len(tr.Cells) != len(want) {
				t.Fatalf("%d cells, want %d", len(tr.Cells), len(want))
			}
			for _, c := range tr.Cells {
				rep := c.Result()
				if want[c.Cell.Name] < 0 {
					// Repeated for its second: stats of 200 cached names
					// take well under a millisecond a pass.
					if rep.Read == nil || rep.Read.IOs < 20*200 {
						t.Errorf("cell %s repeated for its duration did %+v operations, want many passes over 200 names", c.Cell.Name, rep.Read)
					}
					continue
				}
				if rep.Read == nil || rep.Read.IOs != want[c.Cell.Name] {
					t.Errorf("cell %s: %+v operations, want %d", c.Cell.Name, rep.Read, want[c.Cell.Name])
					continue
				}
				var perClient int64
				for _, cr := range rep.Clients {
					perClient += cr.Read.IOs
				}
				if perClient != rep.Read.IOs {
					t.Errorf("cell %s: clients add up to %d, the cell has %d", c.Cell.Name, perClient, rep.Read.IOs)
				}
				wantBytes := int64(0)
				if op := c.Cell.Metadata.Operation; c.Cell.Workload == "files" && (op == sbv1.MetadataCreate || op == sbv1.MetadataOpen) {
					wantBytes = 1200 * 1024 // the files group's are of 1 KiB
				}
				if rep.Read.Bytes != wantBytes {
					t.Errorf("cell %s: %d bytes, want %d", c.Cell.Name, rep.Read.Bytes, wantBytes)
				}
			}
			// Nothing is left but directories: the clients' own (made
			// for the IO data set) and, shared, the groups' directories,
			// which stay because another client may still start in one.
			var left []string
			filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
				if err != nil || path == root || isClientDir(path, root) {
					return err
				}
				rel, _ := filepath.Rel(root, path)
				if shared && d.IsDir() && (rel == "metadata" || filepath.Dir(rel) == "metadata") {
					return nil
				}
				left = append(left, rel)
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left after the last operations: %v", left)
			}
		})
	}
}

// memoryDir is a temporary directory in memory where there is one: the
// tests count operations and check cleanup, not a disk's speed, and on a
// loaded machine a disk's rmdir can take 10 ms, more than 1 s windows
// allow for hundreds of names.
func memoryDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dir, err := os.MkdirTemp("/dev/shm", "storagebench-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// isClientDir: the client directories hold the IO data set's place, made
// before any cell runs; they are not the metadata groups'.
func isClientDir(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.Dir(rel) == "." && len(rel) > len("client-") && rel[:len("client-")] == "client-"
}

// Clients sharing a directory never remove it under each other: a group
// whose only operation is its first and its last, repeated, with four
// clients of which the fastest finishes before the slowest starts.
func TestSharedDirectoryCleanupLeavesOthersTheirDirectory(t *testing.T) {
	b := smallBenchmark(4, true)
	b.Spec.Repetitions = 3
	b.Spec.Workloads = []sbv1.WorkloadGroup{{Name: "one", Kind: sbv1.WorkloadMetadata, DurationSeconds: 1, Metadata: &sbv1.MetadataWorkload{
		Operations: []sbv1.MetadataOperation{sbv1.MetadataCreate}, FilesPerJob: 1, SharedDirectory: true,
	}}}
	p := plan.Build(b, &b.Spec.Targets[0], memoryDir(t))
	tr, _ := runClients(t, p) // fails the test on any client's error
	for _, c := range tr.Cells {
		for _, rep := range c.Repetitions {
			if rep.Read == nil || rep.Read.IOs != 4 {
				t.Errorf("cell %s repetition %d: %+v, want 4 creates", c.Cell.Name, rep.Repetition, rep.Read)
			}
		}
	}
}
