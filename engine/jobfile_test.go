package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestJobFileSeed001(t *testing.T) {
	// Seed 001's fiowrite.ini, as published.
	src := "[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=4k\nnumjobs=4\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\n"
	jobs, err := ParseJobFile(strings.NewReader(src), "fiowrite.ini")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("%d jobs", len(jobs))
	}
	j := jobs[0]
	if j.Name != "writer1" || j.Size != 30<<30 || !j.Direct || j.IODepth != 256 || j.IOEngine != EngineLibaio || j.BlockSize != 4096 ||
		j.NumJobs != 4 || j.RW != RWRandWrite || j.Directory != "/mnt/nocache" {
		t.Errorf("job = %+v", j)
	}
}

func TestJobFileSeveralSectionsAndGlobals(t *testing.T) {
	src := `; mixed, as in seed 001
[global]
iodepth = 128
size=1g
# comment
group_reporting
[reader1]
rw=randread
directory=/mnt/readcache
[global]
rate_iops=3200
[writer1]
rw=randwrite
directory=/mnt/nocache
time_based
runtime=30
`
	jobs, opts, err := parseJobFile(strings.NewReader(src), "mixed.ini")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].RateIOPS != 0 || jobs[1].RateIOPS != 3200 || jobs[0].IODepth != 128 || jobs[1].IODepth != 128 ||
		!jobs[1].TimeBased || jobs[1].Runtime != 30*time.Second || !opts.GroupReporting {
		t.Errorf("jobs = %+v / %+v, opts %+v", jobs[0], jobs[1], opts)
	}
}

func TestJobFileErrorsCarryFileAndLine(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"size=1g\n[a]\n", "f.ini:1: option"},
		{"[global]\nsize=1g\n[a]\nbogus=1\n", "f.ini:4: unknown or unsupported option"},
		{"[global]\nsize=1g\n[a]\niodepth\n", "f.ini:4: option \"iodepth\" needs a value"},
		{"[global]\nsize=1g\n[a]\nfrob\n", "f.ini:4: unknown or unsupported option \"frob\""},
		{"[global]\n[a\n", "f.ini:2: section header"},
		{"[]\n", "f.ini:1: empty section"},
		{"[a]\nsize=1g\nrw=sideways\n", "f.ini:3: rw=sideways"},
		{"[a]\nsize=1g\nrw=randrw:x\n", "f.ini:3: rw=randrw:x: the offset modifier :\"x\" is not a size"},
		{"[a]\nsize=1g\nrw=read:-8k\n", "f.ini:3: rw=read:-8k: the offset modifier :\"-8k\" moves backwards, which is not implemented"},
		{"[a]\nsize=1g\nbs=4k,8k,16k,32k\n", "f.ini:3: bs=4k,8k,16k,32k: \"4k,8k,16k,32k\" has 4 sizes"},
		{"[a]\nsize=1g\noutput-format=json\n", "f.ini:3: output-format=json: output-format is a command-line option"},
		{"[a]\nsize=1g\ninclude other.fio\n", "f.ini:3: include: open other.fio: no such file or directory"},
		{"[a]\nsize=1g\nbs=${UNCLOSED\n", "f.ini:3: bs=${UNCLOSED: ${ without its closing }"},
		{"[global]\nsize=1g\n", "no job section"},
		{"[global]\nsize=2k\n[a]\nbs=4k\n", "f.ini:3: job \"a\": size"},
		{"[a]\nsize=1g\nbs=" + strings.Repeat("9", 70000) + "\n", "f.ini:3: line is longer than 65536 bytes"},
	} {
		_, err := ParseJobFile(strings.NewReader(tc.src), "f.ini")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrUsage) {
			t.Errorf("ParseJobFile(%q) error = %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}

func TestJobFileErrorsQuoteShortExcerptsAndNameTheLine(t *testing.T) {
	long := strings.Repeat("9", 10000)
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"a binary file is reported as not text, quoted escaped",
			"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00", []string{`f.ini:1: line is not text`, `"\x7fELF\x02`}},
		{"control characters in an option line are reported on their line",
			"[a]\nsize=1g\nbs=4k\x1b[2J\n", []string{`f.ini:3: line is not text`, `"bs=4k\x1b[2J"`}},
		{"invalid UTF-8 is reported as not text",
			"[a]\nsize=1g\ndirectory=/mnt/\xff\xfe\n", []string{`f.ini:3: line is not text`, `\xff\xfe`}},
		{"an over-long value is quoted as a 60-byte excerpt",
			"[a]\nsize=1g\nbs=" + long + "\n", []string{`f.ini:3: bs="` + long[:60] + `"...: `, "is not a size"}},
		{"an over-long option name is quoted as an excerpt",
			"[a]\n" + strings.Repeat("k", 5000) + "=1\n", []string{`f.ini:2: unknown or unsupported option "kkkk`, `"...`}},
		{"an over-long line says its number and the limit in bytes",
			"[a]\nsize=1g\n\nbs=" + strings.Repeat("9", 70000) + "\n", []string{"f.ini:4: line is longer than 65536 bytes"}},
		{"an include of a missing file names the file and the line",
			"include common.fio\n[a]\nsize=1g\n", []string{"f.ini:1: include: open common.fio: no such file or directory"}},
		{"include= is read as include, as fio does",
			"[a]\nsize=1g\ninclude=common.fio\n", []string{"f.ini:3: include: open common.fio"}},
		{"a bare include asks for the file",
			"[global]\ninclude\n[a]\n", []string{"f.ini:2: include needs a file name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseJobFile(strings.NewReader(tc.src), "f.ini")
			if err == nil || !errors.Is(err, ErrUsage) {
				t.Fatalf("error %v, want a usage error", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if len(msg) > 300 || strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) {
				t.Errorf("error is not a short, printable line: %.200q", msg)
			}
		})
	}
}

func TestJobFileMayStartWithAByteOrderMark(t *testing.T) {
	jobs, err := ParseJobFile(strings.NewReader("\ufeff[a]\nsize=1m\n"), "bom.fio")
	if err != nil || len(jobs) != 1 || jobs[0].Name != "a" {
		t.Fatalf("jobs %+v, error %v", jobs, err)
	}
}
