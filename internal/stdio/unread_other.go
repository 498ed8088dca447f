//go:build !linux

package stdio

import "io"

// unreadOf returns nil: outside Linux this package does not ask the kernel
// what the client has read, and a client's progress is that of whole
// parts (see unread_linux.go).
func unreadOf(io.Writer) func() (int, bool) { return nil }
