package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxJobFileBytes bounds a job file with everything it includes: they are
// a few lines long, and a bigger one is a mistake.
const maxJobFileBytes = 1 << 20

// maxJobFileLine bounds one line (the scanner's buffer): no fio option
// needs more, and a longer one is a binary or a mistake.
const maxJobFileLine = 64 << 10

// maxIncludeDepth bounds nested includes. fio has no bound and recurses
// until it runs out of file descriptors on a file that includes itself;
// nobody nests shared settings this deep on purpose.
const maxIncludeDepth = 16

// ParseJobFile parses a fio job file as fio reads it: an ini file with
// [global] sections (options inherited by the job sections after them) and
// one section per job, "key=value" or "key" (flag) lines; a ';' or '#'
// starts a comment anywhere on a line; "include FILE" reads FILE's options
// (found from the current directory, else next to the including file) into
// the section it is in;
// ${VAR} in a value is the environment variable VAR (empty when unset), and
// $pagesize, $mb_memory and $ncpus are this machine's. filename is used to
// resolve includes and in error messages, which carry file:line and wrap
// ErrUsage.
func ParseJobFile(r io.Reader, filename string) ([]JobSpec, error) {
	jobs, _, err := parseJobFile(r, filename)
	return jobs, err
}

// parseJobFile also returns the report options the file set
// (group_reporting, percentile_list) and its global options.
func parseJobFile(r io.Reader, filename string) ([]JobSpec, RunOptions, error) {
	return parseJobFileFrom(r, filename, defaultJob())
}

// parseJobFileFrom parses a job file whose jobs start from the global
// options given (fio's defaults, or the command line's for the first job
// file on a command line, as fio gives them).
func parseJobFileFrom(r io.Reader, filename string, globals JobSpec) ([]JobSpec, RunOptions, error) {
	p := newParser()
	p.global = globals
	p.global.Filenames = append([]string(nil), globals.Filenames...)
	f := &jobFileReader{p: p, expand: newValueExpander()}
	if err := f.read(r, filename, 0); err != nil {
		return nil, RunOptions{}, err
	}
	jobs, err := f.p.finish(filename)
	if err != nil {
		return nil, RunOptions{}, err
	}
	if len(jobs) == 0 {
		return nil, RunOptions{}, fmt.Errorf("%w: %s:%d: no job section", ErrUsage, filename, f.lastLine)
	}
	return jobs, f.p.opts, nil
}

// jobFileReader reads a job file and the files it includes into a parser.
type jobFileReader struct {
	p           *parser
	expand      func(string) (string, error)
	seenSection bool
	size        int // bytes read, includes counted
	lastLine    int // of the top-level file
}

// read reads one file; depth is 0 for the job file itself and counts
// includes below it.
func (f *jobFileReader) read(r io.Reader, filename string, depth int) error {
	sc := bufio.NewScanner(io.LimitReader(r, int64(maxJobFileBytes-f.size)+1))
	sc.Buffer(make([]byte, maxJobFileLine), maxJobFileLine)
	// Every message carries file:line and quotes what the user wrote with
	// excerpt only: a job file may be a binary given by mistake.
	line := 0
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s:%d: "+format, append([]any{ErrUsage, filename, line}, a...)...)
	}
	for sc.Scan() {
		line++
		if depth == 0 {
			f.lastLine = line
		}
		f.size += len(sc.Bytes()) + 1
		if f.size > maxJobFileBytes {
			return fail("job file larger than %d bytes (with what it includes)", maxJobFileBytes)
		}
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // editors' byte order mark
		}
		// A comment starts at the first ';' or '#' wherever it stands,
		// as fio reads it (so neither can be part of a value), and is
		// skipped before anything else: fio does not read it, whatever
		// its encoding.
		if i := strings.IndexAny(text, ";#"); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if !isText(text) {
			return fail("line is not text (control characters or invalid UTF-8): %s; is this a fio job file?", excerpt(text))
		}
		if directive(text) == "include" {
			var inner *includedFileError
			switch err := f.include(text, filename, depth); {
			case errors.As(err, &inner):
				// The included file's error names its own file and line.
				return fmt.Errorf("%w (included from %s:%d)", inner.err, filename, line)
			case err != nil:
				return fail("%w", err)
			}
			continue
		}
		if text[0] == '[' {
			if depth > 0 {
				return fail("a section header (%s) in an included file: fio allows only options there", excerpt(text))
			}
			if err := f.section(text, line); err != nil {
				return fail("%w", err)
			}
			continue
		}
		if !f.seenSection {
			return fail("option %s before any [section]", excerpt(text))
		}
		if err := f.option(text); err != nil {
			return fail("%w", err)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		line++
		return fail("line is longer than %d bytes, the limit for one line of a job file", maxJobFileLine)
	} else if err != nil {
		line++
		return fail("%w", err)
	}
	return nil
}

// section starts a [global] or job section.
func (f *jobFileReader) section(text string, line int) error {
	if !strings.HasSuffix(text, "]") {
		return fmt.Errorf("section header %s lacks its closing ]", excerpt(text))
	}
	name := strings.TrimSpace(text[1 : len(text)-1])
	if name == "" {
		return errors.New("empty section name")
	}
	f.seenSection = true
	if strings.HasPrefix(name, "global") {
		// fio takes every section whose name starts with "global" for
		// one ([global], [global-defaults]).
		// Options apply to the globals while no job is open; a [global]
		// after a job affects the jobs after it only.
		f.p.closeJob()
		return nil
	}
	f.p.startJob(name)
	f.p.cur.FileStem = name
	f.p.lines = append(f.p.lines, line)
	return nil
}

// option applies one "key=value" or "key" line.
func (f *jobFileReader) option(text string) error {
	key, value, hasValue := strings.Cut(text, "=")
	key, value = canonicalName(strings.TrimSpace(key)), strings.TrimSpace(value)
	if !knownOption(key) {
		return unknownOption(key, key)
	}
	if !hasValue {
		if !isFlag(key) {
			return fmt.Errorf("option %q needs a value", key)
		}
		value = "1"
	}
	expanded, err := f.expand(value)
	if err != nil {
		return fmt.Errorf("%s=%s: %w", key, excerptValue(value), err)
	}
	if err := f.p.set(key, expanded, false); err != nil {
		if expanded != value {
			return fmt.Errorf("%s=%s (%s once expanded): %w", key, excerptValue(value), excerpt(expanded), err)
		}
		return fmt.Errorf("%s=%s: %w", key, excerptValue(expanded), err)
	}
	if !hasValue {
		f.p.unrecord(key)
	}
	return nil
}

// include reads the options of the file an "include FILE" (or, as fio also
// reads it, "include=FILE") line names into the current section.
func (f *jobFileReader) include(text, from string, depth int) error {
	name := strings.TrimSpace(text[len("include"):])
	name = strings.TrimSpace(strings.TrimPrefix(name, "="))
	if name == "" {
		return errors.New("include needs a file name: include FILE")
	}
	if depth+1 > maxIncludeDepth {
		return fmt.Errorf("include %s: includes nested deeper than %d (does a file include itself?)", excerpt(name), maxIncludeDepth)
	}
	// As fio looks for it: as given (from the current directory) first,
	// then next to the including file.
	path := name
	if _, err := os.Stat(path); err != nil && !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), name)
	}
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("include: %w", err)
	}
	defer fh.Close()
	if err := f.read(fh, path, depth+1); err != nil {
		return &includedFileError{err}
	}
	return nil
}

// includedFileError is an error in an included file, which already says
// which file and line.
type includedFileError struct{ err error }

func (e *includedFileError) Error() string { return e.err.Error() }
func (e *includedFileError) Unwrap() error { return e.err }

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
