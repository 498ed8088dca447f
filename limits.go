package main

import (
	"os"
	"runtime/debug"
)

// memoryLimit is the process's soft memory limit while serving, unless
// GOMEMLIMIT sets another: go-sdk copies a request some ten times, and
// past the limit the garbage collector works harder rather than the
// process grows (docs/limits.md).
const memoryLimit = 128 << 20

// limitMemory sets memoryLimit, unless GOMEMLIMIT sets another.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
