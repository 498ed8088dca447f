package stdio

import (
	"io"
	"os"
	"syscall"
	"time"
)

// openStdin returns standard input to read messages from, and the function
// that interrupts a read in progress, if there is one.
//
// When standard input is a pipe or a socket, as it is under an MCP client,
// it is switched to non-blocking mode and opened anew with os.NewFile, which
// then reads through the Go runtime's network poller: a read waits in the
// poller, not in a blocked system call, and closing the file wakes it. A
// terminal or a regular file cannot be polled; it is read with ordinary
// blocking reads, which closing cannot interrupt, and the connection stops
// waiting for them instead.
func openStdin() (io.Reader, func() error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(syscall.Stdin, &st); err != nil {
		return os.Stdin, nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO, syscall.S_IFSOCK:
	default:
		return os.Stdin, nil
	}
	if err := syscall.SetNonblock(syscall.Stdin, true); err != nil {
		return os.Stdin, nil
	}
	f := os.NewFile(uintptr(syscall.Stdin), "/dev/stdin")
	// SetReadDeadline fails for a file the poller did not take.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		_ = syscall.SetNonblock(syscall.Stdin, false)
		return os.Stdin, nil
	}
	return f, f.Close
}
