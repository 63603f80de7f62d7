package engine

import (
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock (vDSO clock_gettime), the same
// clock time.Now uses for its monotonic reading but without the wall-clock
// read beside it: the hot path takes two timestamps per batch of IOs. The
// runtime keeps this symbol linkable on purpose (go.dev/issue/67401).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
