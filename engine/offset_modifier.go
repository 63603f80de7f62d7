package engine

import (
	"fmt"
	"strings"
)

// fio's offset modifiers: rw=randread:8 takes a new random offset every 8
// IOs (the 7 between continue sequentially from it, or repeat it with
// rw_sequencer=identical); rw=write:4k leaves a 4 KiB hole after every
// write. The IO counts stay fio's: a byte-limited job does as many IOs,
// on fewer distinct blocks (random) or with gaps (sequential).

func init() {
	registerOption(option{name: "rw_sequencer", help: "with rw=PATTERN:N, what a random pattern does between its new offsets: sequential (continue after the last IO, the default) or identical (repeat its offset)", apply: func(j *JobSpec, s string) error {
		switch strings.TrimSpace(s) {
		case "sequential":
			j.SameOffset = false
		case "identical":
			j.SameOffset = true
		default:
			return fmt.Errorf("%s is not sequential or identical", excerpt(s))
		}
		return nil
	}})
}

// parseOffsetModifier reads the N of rw=PATTERN:N: a count for random
// patterns, a size for sequential ones; fio reads both as a size.
func parseOffsetModifier(s string) (int64, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "-") {
		return 0, fmt.Errorf("the offset modifier :%s moves backwards, which is not implemented (give a hole of 0 or more bytes, or the pattern alone)", excerpt(s))
	}
	v, err := sizeKind.value(s)
	if err != nil {
		return 0, fmt.Errorf("the offset modifier :%w", err)
	}
	return v, nil
}

// holeAfter is what a sequential pattern skips after each IO.
func (j *JobSpec) holeAfter() int64 {
	if j.isRandom() {
		return 0
	}
	return j.OffsetModifier
}
