package engine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// newValueExpander returns what expands a job file's option value as fio
// does before it parses the value: ${VAR} becomes the environment variable
// VAR (empty when unset or when VAR is empty), then the reserved keywords
// are replaced (newKeywordExpander).
func newValueExpander() func(string) (string, error) {
	keywords := newKeywordExpander()
	return func(value string) (string, error) {
		out, err := expandEnv(value)
		if err != nil {
			return "", err
		}
		return keywords(out)
	}
}

// newKeywordExpander returns what replaces fio's reserved keywords in an
// option value, in job files and on the command line alike: $pagesize,
// $mb_memory and $ncpus become the page size, the megabytes of memory and
// the number of online CPUs of this machine, read once, when first used.
func newKeywordExpander() func(string) (string, error) {
	var keywords map[string]string
	machine := func() map[string]string {
		if keywords == nil {
			keywords = map[string]string{
				"$pagesize": strconv.Itoa(os.Getpagesize()),
				"$ncpus":    strconv.Itoa(onlineCPUs()),
			}
			if mem := memoryBytes(); mem > 0 {
				keywords["$mb_memory"] = strconv.FormatInt(mem>>20, 10)
			}
		}
		return keywords
	}
	return func(value string) (string, error) {
		if !strings.Contains(value, "$") {
			return value, nil
		}
		out := value
		for _, k := range []string{"$pagesize", "$mb_memory", "$ncpus"} {
			if !strings.Contains(out, k) {
				continue
			}
			v, ok := machine()[k]
			if !ok {
				return "", fmt.Errorf("%s: not known on this machine", k)
			}
			out = strings.ReplaceAll(out, k, v)
		}
		return out, nil
	}
}

// expandEnv replaces each ${VAR} with the environment variable VAR. Unlike
// os.Expand it leaves a bare $ alone (fio's reserved keywords start with
// one) and refuses a ${ without its closing brace instead of guessing.
func expandEnv(value string) (string, error) {
	if !strings.Contains(value, "${") {
		return value, nil
	}
	var b strings.Builder
	rest := value
	for {
		start := strings.Index(rest, "${")
		if start < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[start:], '}')
		if end < 0 {
			return "", errors.New("${ without its closing }: write ${VARIABLE}")
		}
		b.WriteString(rest[:start])
		b.WriteString(os.Getenv(rest[start+2 : start+end]))
		rest = rest[start+end+1:]
	}
}

// onlineCPUs is the number of online CPUs, as fio's $ncpus counts them
// (sysconf's _SC_NPROCESSORS_ONLN), not only those this process may use;
// where the kernel does not say, the CPUs Go may use.
func onlineCPUs() int {
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return runtime.NumCPU()
	}
	cpus, err := parseCPUList(strings.TrimSpace(string(data)))
	if err != nil || len(cpus) == 0 {
		return runtime.NumCPU()
	}
	return len(cpus)
}
