//go:build !linux

package stdio

import (
	"io"
	"os"
)

// openStdin returns standard input to read messages from, and the function
// that interrupts a read in progress: none here. Outside Linux, standard
// input is read with ordinary blocking reads (kqueue, for one, does not
// report the end of a pipe reliably), and a connection being closed stops
// waiting for them instead.
func openStdin() (io.Reader, func() error) {
	return os.Stdin, nil
}
