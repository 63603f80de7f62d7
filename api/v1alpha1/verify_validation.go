package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// VerifyLedgerMaxBytes bounds the memory each client keeps for
// dataset.verify's ledger (two bytes per interval); the engine's
// MaxLedgerBytes, which enforces it, is the same.
const VerifyLedgerMaxBytes = 256 << 20

// VerifyIntervalBytes is how often dataset.verify puts a header in the data
// set: the smallest block size of the benchmark's IO cells and searches,
// which every other block size must be a multiple of (validateVerify), so
// that an IO of any cell covers whole intervals. Zero when no cell does IO.
func (s *StorageBenchmarkSpec) VerifyIntervalBytes() int64 {
	var smallest int64
	for _, c := range s.ioCells() {
		if b := c.BlockSizeBytes; b > 0 && (smallest == 0 || b < smallest) {
			smallest = b
		}
	}
	return smallest
}

// cellsAndSearchBases are the matrix's cells and each search's base cell:
// every shape of IO the benchmark runs.
func (s *StorageBenchmarkSpec) cellsAndSearchBases() []Cell {
	cells := s.Cells()
	for _, search := range s.Searches() {
		cells = append(cells, search.Base)
	}
	return cells
}

// ioCells are the cells that read or write blocks: all but metadata ones.
func (s *StorageBenchmarkSpec) ioCells() []Cell {
	var cells []Cell
	for _, c := range s.cellsAndSearchBases() {
		if !c.IsMetadata() {
			cells = append(cells, c)
		}
	}
	return cells
}

// validateVerify refuses the cells dataset.verify cannot check: block size
// ranges (IOs of every size at every alignment would cut across the
// headers) and sizes that are not whole intervals.
func (s *StorageBenchmarkSpec) validateVerify() field.ErrorList {
	if !s.Dataset.Verify.Enabled() {
		return nil
	}
	path := field.NewPath("spec", "dataset", "verify")
	interval := s.VerifyIntervalBytes()
	if interval > 0 && s.Dataset.SizePerClient.Bytes()/interval*2 > VerifyLedgerMaxBytes {
		return field.ErrorList{field.Invalid(path, string(s.Dataset.Verify),
			fmt.Sprintf("dataset.sizePerClient %s in intervals of the smallest block size (%d bytes) needs a ledger of %d MiB per client, more than %d MiB: use larger blocks or a smaller data set",
				s.Dataset.SizePerClient, interval, s.Dataset.SizePerClient.Bytes()/interval*2>>20, VerifyLedgerMaxBytes>>20))}
	}
	for _, c := range s.ioCells() {
		switch {
		case c.BlockSizeBytes == 0:
			return field.ErrorList{field.Invalid(path, string(s.Dataset.Verify),
				fmt.Sprintf("cell %s has a block size range (%d-%d bytes): verification needs fixed block sizes", c.Name, c.BlockSizeMinBytes, c.BlockSizeMaxBytes))}
		case c.BlockSizeBytes%interval != 0:
			return field.ErrorList{field.Invalid(path, string(s.Dataset.Verify),
				fmt.Sprintf("cell %s's block size %d bytes is not a multiple of the smallest block size %d bytes, where each header goes", c.Name, c.BlockSizeBytes, interval))}
		}
	}
	return nil
}
