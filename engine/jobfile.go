package engine

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxJobFileBytes bounds a job file: they are a few lines long, and one may
// come from an untrusted spec.
const maxJobFileBytes = 1 << 20

// ParseJobFile parses a fio job file: an ini file with [global] sections
// (options inherited by the job sections after them) and one section per
// job, "key=value" or "key" (flag) lines, and comments starting with ; or #.
// The jobs run concurrently, like fio's without stonewall. filename is used
// in error messages, which carry file:line and wrap ErrUsage.
func ParseJobFile(r io.Reader, filename string) ([]JobSpec, error) {
	jobs, _, err := parseJobFile(r, filename)
	return jobs, err
}

// parseJobFile also returns the report options the file set
// (group_reporting, percentile_list) and its global options.
func parseJobFile(r io.Reader, filename string) ([]JobSpec, RunOptions, error) {
	p := newParser()
	sc := bufio.NewScanner(io.LimitReader(r, maxJobFileBytes+1))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	fail := func(line int, format string, a ...any) ([]JobSpec, RunOptions, error) {
		return nil, RunOptions{}, fmt.Errorf("%w: %s:%d: %s", ErrUsage, filename, line, fmt.Sprintf(format, a...))
	}
	line, size := 0, 0
	seenSection := false
	for sc.Scan() {
		line++
		size += len(sc.Bytes()) + 1
		if size > maxJobFileBytes {
			return fail(line, "job file larger than %d bytes", maxJobFileBytes)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == ';' || text[0] == '#' {
			continue
		}
		if text[0] == '[' {
			if !strings.HasSuffix(text, "]") {
				return fail(line, "section header %q lacks its closing ]", text)
			}
			name := strings.TrimSpace(text[1 : len(text)-1])
			if name == "" {
				return fail(line, "empty section name")
			}
			seenSection = true
			if name == "global" {
				// Options apply to the globals while no job is open.
				p.closeJob()
				continue
			}
			p.startJob(name)
			p.lines = append(p.lines, line)
			p.cur.Options["name"] = name
			continue
		}
		if !seenSection {
			return fail(line, "option %q before any [section]", text)
		}
		key, value, hasValue := strings.Cut(text, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		key = canonicalName(key)
		if key == "include" || strings.HasPrefix(key, "include ") {
			return fail(line, "include is not supported")
		}
		if key == "name" {
			return fail(line, "name= inside a section is not supported; the section header names the job")
		}
		if !knownOption(key) {
			return fail(line, "unknown or unsupported option %q", key)
		}
		if !hasValue {
			if !isFlag(key) {
				return fail(line, "option %q needs a value", key)
			}
			value = "1"
		}
		if err := p.set(key, value, false); err != nil {
			return fail(line, "%s=%s: %v", key, value, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fail(line+1, "%v", err)
	}
	jobs, err := p.finish(filename)
	if err != nil {
		return nil, RunOptions{}, err
	}
	if len(jobs) == 0 {
		return fail(line, "no job section")
	}
	return jobs, p.opts, nil
}
