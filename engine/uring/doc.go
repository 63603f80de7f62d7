// Package uring drives Linux io_uring through raw system calls: setup, the
// mmap'd submission and completion rings and io_uring_enter. No maintained Go
// io_uring library links with this toolchain, and the engine needs only a
// small part of the interface (read, write, fsync, registered files and
// buffers), so the kernel ABI is declared here from the uapi header.
//
// A Ring is meant to be owned by one goroutine locked to its OS thread: it
// is created with IORING_SETUP_SINGLE_ISSUER when the kernel allows it, so
// every call must come from the thread that created it.
//
// Everything in it is Linux-only; on other systems the package is empty, so
// that `go vet ./...` and builds of the engine for other GOOS still work.
package uring
