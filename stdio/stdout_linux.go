package stdio

import (
	"io"
	"os"
	"syscall"
)

// openStdout returns standard output to write messages to, and the function
// that interrupts a write in progress, if there is one.
//
// When standard output is a pipe or a socket, it is written through the
// runtime's poller, as standard input is read (see openPolled). A client
// that stops reading fills the pipe, and a write to a full pipe would
// otherwise block in the kernel for ever: no signal, no timeout and no
// Close could end it, and the SDK waits for every handler, each stuck in
// Write, before it lets the session end. Through the poller the write waits
// in the runtime instead, and closing the file makes it return an error at
// once.
//
// It also changes what a closed pipe does. Go raises SIGPIPE, which kills
// the process, only for a failed write on descriptor 1 or 2; the duplicate
// has another number, so the write returns EPIPE, and Write ends the
// session as if the input had ended (see errOutputClosed).
//
// A terminal or a regular file is written as it is, with blocking writes:
// neither waits on a reader.
func openStdout() (io.Writer, func() error) {
	if f, closeFile := openPolled(syscall.Stdout, "/dev/stdout"); f != nil {
		return f, closeFile
	}
	return os.Stdout, nil
}
