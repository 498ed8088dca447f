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
// it is read through the Go runtime's network poller (see openPolled): a
// read waits in the poller, not in a blocked system call, and closing the
// file wakes it. A terminal or a regular file cannot be polled; it is read
// with ordinary blocking reads, which closing cannot interrupt, and the
// connection stops waiting for them instead.
func openStdin() (io.Reader, func() error) {
	if f, closeFile := openPolled(syscall.Stdin, "/dev/stdin"); f != nil {
		return f, closeFile
	}
	return os.Stdin, nil
}

// openPolled returns a file for descriptor fd that the runtime's poller
// handles, and the function that closes it; or nil if fd is not a pipe or a
// socket, or cannot be polled.
//
// The file is a close-on-exec duplicate of fd, in non-blocking mode, opened
// with os.NewFile, which hands a non-blocking descriptor to the poller.
// Using a duplicate leaves fd itself open once the file is closed, to
// restore blocking mode through.
//
// Non-blocking mode is a property of the pipe's open file description, not
// of one descriptor: every process using the pipe shares it. Left on, a
// process given the same pipe after this one exits (a shell's
// `{ mcp-hello-tools; cat; } <fifo`, say) would have its reads fail with
// EAGAIN. So closing restores blocking mode, once no read or write is left
// in progress.
func openPolled(fd int, name string) (*os.File, func() error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO, syscall.S_IFSOCK:
	default:
		return nil, nil
	}
	syscall.ForkLock.RLock() // no child may inherit the duplicate
	dup, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(dup)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(dup)
		return nil, nil
	}
	f := os.NewFile(uintptr(dup), name)
	closeFile := func() error {
		// Close returns once no read or write is left in a system call on
		// the file (it waits for them when the file is in the poller), so
		// none can block after blocking mode is back.
		err := f.Close()
		return errors.Join(err, syscall.SetNonblock(fd, false))
	}
	// SetDeadline fails for a file the poller did not take.
	if err := f.SetDeadline(time.Time{}); err != nil {
		_ = closeFile()
		return nil, nil
	}
	return f, closeFile
}
