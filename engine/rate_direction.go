package engine

import (
	"fmt"
	"math"
)

// fio's per-direction rates: rate=READ,WRITE and rate_iops=READ,WRITE cap
// reads and writes apart (an empty part: no cap). As in fio, each
// direction keeps its own schedule, and a mixed job whose chosen direction
// is not due issues the other one if that is due: the caps, not rwmixread,
// then set the mix (fio 3.33, randrw with rate_iops=100,400 and
// rwmixread=90: 100 reads and 400 writes per second; with rate_iops=,400
// the reads run unpaced beside 400 writes).

// parseDirectionRates reads a rate with a comma: the read and the write
// part (0, as an empty part: no cap).
func parseDirectionRates(s string, kind valueKind) ([2]int64, error) {
	rates, _, err := parseDirectionValues(s, "rates", kind, 0)
	return rates, err
}

// capped reports whether the job has any rate cap, whole or per direction.
func (j *JobSpec) capped() bool {
	return j.RateIOPS > 0 || j.RateBytes > 0 || j.ratesByDirection() || j.RateBytesByDir != [2]int64{}
}

// ratesByDirection reports whether reads and writes are paced apart.
func (j *JobSpec) ratesByDirection() bool {
	return j.RateIOPSByDir != [2]int{}
}

// resolveDirectionRates turns per-direction bandwidths into IOPS at each
// direction's block size.
func (j *JobSpec) resolveDirectionRates() error {
	if j.RateBytesByDir == [2]int64{} {
		return nil
	}
	if j.RateIOPS > 0 || j.RateBytes > 0 || j.RateIOPSByDir != [2]int{} {
		return fmt.Errorf("job %q: rate and rate_iops: give one", j.Name)
	}
	for d, bw := range j.RateBytesByDir {
		if bw == 0 {
			continue
		}
		size := j.directionSize(uint8(d))
		if size == 0 {
			if j.BSMin != j.BSMax {
				return fmt.Errorf("job %q: rate: a bandwidth cap needs one block size per direction here; with bsrange or bssplit give rate_iops", j.Name)
			}
			size = j.BSMin
		}
		j.RateIOPSByDir[d] = int(min(max(1, (bw+size/2)/size), math.MaxInt32))
	}
	j.RateBytesByDir = [2]int64{}
	return nil
}
