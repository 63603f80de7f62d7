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
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return [2]int64{}, fmt.Errorf("%s has %d sizes: want READ[,WRITE[,TRIM]]", excerpt(s), len(parts))
	}
	var sizes [3]int64
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			sizes[i] = defaultBlockSize
			continue
		}
		v, err := sizeKind.value(p)
		if err != nil {
			return [2]int64{}, err
		}
		sizes[i] = v
	}
	if len(parts) == 1 {
		sizes[1] = sizes[0]
	}
	return [2]int64{sizes[0], sizes[1]}, nil
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
