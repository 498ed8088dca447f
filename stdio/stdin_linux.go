package stdio

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// openStdin returns standard input to read messages from, and the function
// that interrupts a read in progress, if there is one.
//
// When standard input is a pipe or a socket, as it is under an MCP client,
// it is switched to non-blocking mode and read through a duplicate of its
// descriptor, opened with os.NewFile, which then reads through the Go
// runtime's network poller: a read waits in the poller, not in a blocked
// system call, and closing the file wakes it. A terminal or a regular file
// cannot be polled; it is read with ordinary blocking reads, which closing
// cannot interrupt, and the connection stops waiting for them instead.
//
// Non-blocking mode is a property of the pipe's open file description, not
// of one descriptor: every process reading the pipe shares it. Left on, a
// process given the same standard input after this one exits (a shell's
// `{ mcp-hello-tools; cat; } <fifo`, say) would have its reads fail with
// EAGAIN. So closing restores blocking mode, once the read is interrupted.
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
	// Reading a duplicate leaves descriptor 0 open when the file is closed,
	// to restore blocking mode through.
	syscall.ForkLock.RLock() // no child may inherit the duplicate
	fd, err := syscall.Dup(syscall.Stdin)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return os.Stdin, nil
	}
	if err := syscall.SetNonblock(syscall.Stdin, true); err != nil {
		_ = syscall.Close(fd)
		return os.Stdin, nil
	}
	f := os.NewFile(uintptr(fd), "/dev/stdin")
	closeStdin := func() error {
		// Close returns once no read is left in a system call on fd (it
		// waits for them when the file is in the poller), so none can
		// block after blocking mode is back.
		err := f.Close()
		return errors.Join(err, syscall.SetNonblock(syscall.Stdin, false))
	}
	// SetReadDeadline fails for a file the poller did not take.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		_ = closeStdin()
		return os.Stdin, nil
	}
	return f, closeStdin
}
