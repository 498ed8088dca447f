//go:build !linux

package stdio

import (
	"io"
	"os"
)

// openStdout returns standard output to write messages to, and the function
// that interrupts a write in progress: none here. Outside Linux, standard
// output is written with ordinary blocking writes, as standard input is
// read: a client that stops reading can block a write until it reads
// again or exits, and a write to a closed pipe raises SIGPIPE.
func openStdout() (io.Writer, func() error) {
	return os.Stdout, nil
}
