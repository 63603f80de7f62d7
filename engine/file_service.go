package engine

import (
	"fmt"
	"strings"
)

// fio's file_service_type for IO jobs with several files: which file the
// next IO goes to. roundrobin takes them in turn, random draws one,
// sequential stays on a file until its region's bytes are done; a :N
// suffix keeps each choice for N IOs (fio's default is 1).
const (
	FileServiceRoundRobin = "roundrobin"
	FileServiceRandom     = "random"
	FileServiceSequential = "sequential"
)

// parseFileService reads file_service_type's value.
func parseFileService(v string) (string, int64, error) {
	kind, n, hasN := strings.Cut(strings.TrimSpace(v), ":")
	var every int64 = 1
	switch kind {
	case FileServiceRoundRobin, FileServiceRandom, FileServiceSequential:
	case "zipf", "pareto", "normal", "gauss":
		return "", 0, fmt.Errorf("%s is not implemented (roundrobin, random, sequential): a skewed choice of files is not", excerpt(v))
	default:
		return "", 0, fmt.Errorf("%s is not a file service type (roundrobin, random, sequential)", excerpt(v))
	}
	if hasN {
		if kind == FileServiceSequential {
			return "", 0, fmt.Errorf("%s: sequential takes no :N (it switches when a file is done)", excerpt(v))
		}
		c, err := countKind(1).value(n)
		if err != nil {
			return "", 0, fmt.Errorf("the IOs per file choice :%w", err)
		}
		every = c
	}
	return kind, every, nil
}
