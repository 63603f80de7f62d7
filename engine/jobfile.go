package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxJobFileBytes bounds a job file: they are a few lines long, and one may
// come from an untrusted spec.
const maxJobFileBytes = 1 << 20

// maxJobFileLine bounds one line (the scanner's buffer): no fio option
// needs more, and a longer one is a binary or a mistake.
const maxJobFileLine = 64 << 10

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
	sc.Buffer(make([]byte, maxJobFileLine), maxJobFileLine)
	// Every message carries file:line and quotes what the user wrote with
	// excerpt only: a job file may be a binary given by mistake.
	fail := func(line int, format string, a ...any) ([]JobSpec, RunOptions, error) {
		return nil, RunOptions{}, fmt.Errorf("%w: %s:%d: "+format, append([]any{ErrUsage, filename, line}, a...)...)
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
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // editors' byte order mark
		}
		// Comments are skipped first: fio does not read them, whatever
		// their encoding.
		if text == "" || text[0] == ';' || text[0] == '#' {
			continue
		}
		if !isText(text) {
			return fail(line, "line is not text (control characters or invalid UTF-8): %s; is this a fio job file?", excerpt(text))
		}
		if directive(text) == "include" {
			// fio's include pulls another file in; wherever it
			// stands, the answer is the same.
			return fail(line, "include is not supported; put the included file's options into this one")
		}
		if text[0] == '[' {
			if !strings.HasSuffix(text, "]") {
				return fail(line, "section header %s lacks its closing ]", excerpt(text))
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
			return fail(line, "option %s before any [section]", excerpt(text))
		}
		key, value, hasValue := strings.Cut(text, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		key = canonicalName(key)
		if key == "name" {
			return fail(line, "name= inside a section is not supported; the section header names the job")
		}
		if !knownOption(key) {
			return fail(line, "unknown or unsupported option %s", excerpt(key))
		}
		if !hasValue {
			if !isFlag(key) {
				return fail(line, "option %q needs a value", key)
			}
			value = "1"
		}
		if err := p.set(key, value, false); err != nil {
			return fail(line, "%s=%s: %w", key, excerptValue(value), err)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fail(line+1, "line is longer than %d bytes, the limit for one line of a job file", maxJobFileLine)
	} else if err != nil {
		return fail(line+1, "%w", err)
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

// directive is a line's first word: the option name of "key=value" and of
// "key value" (fio's include form) alike.
func directive(text string) string {
	end := strings.IndexFunc(text, func(r rune) bool { return r == '=' || unicode.IsSpace(r) })
	if end < 0 {
		return text
	}
	return text[:end]
}

// isText tells whether a line can be a job file's: valid UTF-8 without
// control characters other than tabs.
func isText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\t' && unicode.IsControl(r) {
			return false
		}
	}
	return true
}
