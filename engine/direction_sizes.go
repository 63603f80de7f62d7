package engine

import (
	"fmt"
	"strings"
)

// fio's per-direction block sizes: bs=READ,WRITE[,TRIM], an empty part
// taking the default (4k), one value both. The engine does no trims, so
// a third part is read (it must be a size) and not used.

const defaultBlockSize = 4096

// parseDirectionSizes reads bs's value: the read and the write size.
func parseDirectionSizes(s string) ([2]int64, error) {
	sizes, n, err := parseDirectionValues(s, "sizes", sizeKind, defaultBlockSize)
	if n == 1 {
		sizes[1] = sizes[0]
	}
	return sizes, err
}

// parseDirectionValues reads fio's READ[,WRITE[,TRIM]] form (what names
// the values in errors): each part of kind, an empty one blank; the trim
// part must parse and is unused. It returns the read and write values and
// how many parts were given.
func parseDirectionValues(s, what string, kind valueKind, blank int64) ([2]int64, int, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return [2]int64{}, len(parts), fmt.Errorf("%s has %d %s: want READ[,WRITE[,TRIM]]", excerpt(s), len(parts), what)
	}
	var values [3]int64
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			values[i] = blank
			continue
		}
		v, err := kind.value(p)
		if err != nil {
			return [2]int64{}, len(parts), err
		}
		values[i] = v
	}
	return [2]int64{values[0], values[1]}, len(parts), nil
}

// setBlockSizes applies bs: one size, or reads and writes apart (BSMin and
// BSMax then span both, for what depends on the largest or smallest IO:
// buffers, file tails, alignment checks).
func (j *JobSpec) setBlockSizes(sizes [2]int64) {
	j.BSByDirection = [2]int64{}
	if sizes[0] != sizes[1] {
		j.BSByDirection = sizes
	}
	j.BSMin, j.BSMax = min(sizes[0], sizes[1]), max(sizes[0], sizes[1])
	j.BlockSize, j.BSStep = j.BSMin, 0
}

// directionSize is the size of an IO of op (opRead or opWrite) when the
// job sizes reads and writes apart, else 0.
func (j *JobSpec) directionSize(op uint8) int64 {
	if j.BSByDirection[0] == 0 {
		return 0
	}
	return j.BSByDirection[op]
}
