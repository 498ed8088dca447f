//go:build linux

package stdio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// A part's Write returning is a late measure of a slow client's progress:
// Linux wakes a writer blocked on a full pipe only once a whole page slot
// frees (one part of 5 KiB can need 8 KiB read), and one blocked on a Unix
// socket (what Node's child_process gives a child's stdout: Claude Code,
// Gemini CLI, Copilot CLI) only once the send queue drains to a quarter
// of its buffer of some 200 KB. A client reading 1.5 KiB/s from a pipe,
// or 8 KiB/s from a socket, saw its replies abandoned. So drain asks
// the kernel what the client has read; elsewhere, and on a regular file
// or a terminal, the floor is that of whole parts.

// unreadOf returns a function that tells how much of what was written to
// out its reader has not read yet, or nil when the kernel cannot tell: out
// is not a pipe or a socket. The count is in bytes, for a socket as the
// kernel charges them (unix_outq_len); only its going down matters.
func unreadOf(out io.Writer) func() (int, bool) {
	f, ok := out.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	var statErr error
	if err := rc.Control(func(fd uintptr) { statErr = unix.Fstat(int(fd), &st) }); err != nil || statErr != nil {
		return nil
	}
	var req uint
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		req = unix.SIOCOUTQ // queued, not yet consumed by the peer
	case unix.S_IFIFO:
		req = unix.TIOCINQ // FIONREAD: the bytes in the pipe, asked on either end
	default:
		return nil
	}
	return func() (int, bool) {
		var n uint32
		var ioErr error
		err := rc.Control(func(fd uintptr) { n, ioErr = unix.IoctlGetUint32(int(fd), req) })
		return int(n), err == nil && ioErr == nil
	}
}
