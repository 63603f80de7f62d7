// Package aio drives Linux native AIO (io_setup, io_submit, io_getevents)
// through raw system calls. It is the engine's fallback when io_uring is
// refused: the default seccomp profiles of containerd and Docker block
// io_uring but allow these calls. Like fio's libaio engine it is only truly
// asynchronous with O_DIRECT; buffered IO completes inside io_submit.
//
// Everything in it is Linux-only; on other systems the package is empty, so
// that `go vet ./...` and builds of the engine for other GOOS still work.
package aio
