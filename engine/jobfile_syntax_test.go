package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// writeFiles writes name -> content under a temporary directory and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func parseFile(t *testing.T, path string) ([]JobSpec, RunOptions, error) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	return parseJobFile(fh, path)
}

// fio (3.33, checked with its JSON output) ends a line at the first ';' or
// '#', after a value and in section headers too, even inside a value.
func TestACommentStartsAtTheFirstSemicolonOrHashAnywhere(t *testing.T) {
	src := "[global]\nsize=1m ; a megabyte\n[a] ; the first job\nbs=8k# eight\nfilename=/tmp/x;y\ndescription=hello ; world\n"
	jobs, _, err := parseJobFile(strings.NewReader(src), "c.fio")
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.Name != "a" || j.Size != 1<<20 || j.BlockSize != 8192 || strings.Join(j.Filenames, ":") != "/tmp/x" || j.Options["description"] != "hello" {
		t.Errorf("job %q: size %d, bs %d, files %v, options %v", j.Name, j.Size, j.BlockSize, j.Filenames, j.Options)
	}
}

func TestNameInASectionRenamesTheJob(t *testing.T) {
	jobs, _, err := parseJobFile(strings.NewReader("[global]\nname=ignored\nsize=1m\n[first]\nname=renamed\n[second]\n"), "n.fio")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "renamed" || jobs[0].Options["name"] != "renamed" || jobs[1].Name != "second" {
		t.Errorf("jobs %q and %q (options %v), want renamed and second, as fio names them", jobs[0].Name, jobs[1].Name, jobs[0].Options)
	}
}

func TestIncludeReadsTheFileRelativeToTheIncludingOne(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"jobs/main.fio":          "[global]\ninclude common/global.fio\n[a]\nrw=read\ninclude=common/job.fio\n[b]\n",
		"jobs/common/global.fio": "; shared settings\nsize=2m\ninclude deeper.fio\n",
		"jobs/common/deeper.fio": "bs=16k\n",
		"jobs/common/job.fio":    "iodepth=4\n",
	})
	jobs, _, err := parseFile(t, filepath.Join(dir, "jobs/main.fio"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := jobs[0], jobs[1]
	if a.Size != 2<<20 || a.BlockSize != 16384 || a.IODepth != 4 || b.Size != 2<<20 || b.IODepth != 1 {
		t.Errorf("a: size %d bs %d iodepth %d; b: size %d iodepth %d", a.Size, a.BlockSize, a.IODepth, b.Size, b.IODepth)
	}
}

func TestIncludeErrorsNameTheIncludedFileAndWhereItWasIncluded(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.fio":    "[a]\nsize=1m\ninclude bad.fio\n",
		"bad.fio":     "bs=4k\nbogus=1\n",
		"section.fio": "[x]\n",
		"self.fio":    "[a]\nsize=1m\ninclude loop.fio\n",
		"loop.fio":    "include loop.fio\n",
		"withsec.fio": "[a]\nsize=1m\ninclude section.fio\n",
	})
	for file, want := range map[string][]string{
		"main.fio":    {"bad.fio:2: unknown or unsupported option \"bogus\"", "(included from " + filepath.Join(dir, "main.fio") + ":3)"},
		"withsec.fio": {"section.fio:1: a section header (\"[x]\") in an included file"},
		"self.fio":    {"includes nested deeper than 16 (does a file include itself?)"},
	} {
		_, _, err := parseFile(t, filepath.Join(dir, file))
		if err == nil || !errors.Is(err, ErrUsage) {
			t.Fatalf("%s: error %v, want a usage error", file, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", file, err, w)
			}
		}
	}
}

func TestValuesExpandTheEnvironmentAndFiosKeywords(t *testing.T) {
	t.Setenv("SB_TEST_SIZE", "3m")
	t.Setenv("SB_TEST_EMPTY", "")
	src := "[a]\nsize=${SB_TEST_SIZE}\nbs=${SB_TEST_UNSET}${SB_TEST_EMPTY}8k\nnumjobs=$ncpus\nblockalign=$pagesize\n"
	jobs, _, err := parseJobFile(strings.NewReader(src), "env.fio")
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.Size != 3<<20 || j.BlockSize != 8192 || j.NumJobs != onlineCPUs() || j.BlockAlign != int64(os.Getpagesize()) {
		t.Errorf("size %d bs %d numjobs %d blockalign %d", j.Size, j.BlockSize, j.NumJobs, j.BlockAlign)
	}
	if got := j.Options["size"]; got != "3m" {
		t.Errorf("job options echo size=%q, want the expanded value as fio does", got)
	}
}

func TestMbMemoryIsTheMachinesMemory(t *testing.T) {
	mem := memoryBytes()
	if mem == 0 {
		t.Skip("the machine's memory is not known on " + runtime.GOOS)
	}
	jobs, _, err := parseJobFile(strings.NewReader("[a]\nsize=$mb_memorym\n"), "mem.fio")
	if err != nil {
		t.Fatal(err)
	}
	if want := (mem >> 20) << 20; jobs[0].Size != want {
		t.Errorf("size=$mb_memorym is %d, want %d (%s MiB)", jobs[0].Size, want, strconv.FormatInt(mem>>20, 10))
	}
}

// fio looks for an included file as given first (from the current
// directory), then next to the including file.
func TestIncludeLooksInTheCurrentDirectoryFirst(t *testing.T) {
	jobDir := writeFiles(t, map[string]string{"main.fio": "[a]\ninclude common.fio\n", "common.fio": "size=2m\n"})
	cwd := writeFiles(t, map[string]string{"common.fio": "size=3m\n"})
	t.Chdir(cwd)
	jobs, _, err := parseFile(t, filepath.Join(jobDir, "main.fio"))
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Size != 3<<20 {
		t.Errorf("size %d, want the current directory's common.fio (3m)", jobs[0].Size)
	}
}

func TestASectionNamedGlobalSomethingIsGlobal(t *testing.T) {
	jobs, _, err := parseJobFile(strings.NewReader("[global-defaults]\nsize=1m\n[a]\n"), "g.fio")
	if err != nil || len(jobs) != 1 || jobs[0].Name != "a" || jobs[0].Size != 1<<20 {
		t.Fatalf("jobs %+v, %v; want one job a with the global size", jobs, err)
	}
}

func TestAnExpandedValueThatIsWrongShowsBothForms(t *testing.T) {
	t.Setenv("SB_TEST_BAD", "lots")
	_, _, err := parseJobFile(strings.NewReader("[a]\nsize=${SB_TEST_BAD}\n"), "e.fio")
	if err == nil || !strings.Contains(err.Error(), `size=${SB_TEST_BAD} ("lots" once expanded)`) {
		t.Errorf("error %v, want the value as written and as expanded", err)
	}
}

// fio replaces its keywords on the command line too.
func TestKeywordsAreReplacedOnTheCommandLine(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--numjobs=$ncpus", "--blockalign=$pagesize"})
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].NumJobs != onlineCPUs() || jobs[0].BlockAlign != int64(os.Getpagesize()) {
		t.Errorf("numjobs %d, blockalign %d; want the online CPUs and the page size", jobs[0].NumJobs, jobs[0].BlockAlign)
	}
}
