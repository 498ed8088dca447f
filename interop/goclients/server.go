package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// A target is the server a run checks: a binary, started over stdio for
// each client, or the URL of a Streamable HTTP endpoint.
type target struct {
	where string
	http  bool
}

// command returns the command that starts the binary over stdio, its
// stderr kept in a buffer, as a host that shows the server's log does.
func (t *target) command() *serverProcess {
	p := &serverProcess{cmd: exec.Command(t.where)}
	p.cmd.Stderr = &p.stderr
	return p
}

// A serverProcess is the server started over stdio for one client.
type serverProcess struct {
	cmd    *exec.Cmd
	stderr lockedBuffer
}

// expectStopped checks, once the client has closed, that the server exited
// with status 0 and that its last log line is msg=stopped.
func (p *serverProcess) expectStopped() error {
	state := p.cmd.ProcessState
	if state == nil {
		return fmt.Errorf("the client did not wait for the server to exit")
	}
	log := strings.TrimRight(p.stderr.String(), "\n")
	last := log[strings.LastIndex(log, "\n")+1:]
	if code := state.ExitCode(); code != 0 {
		return fmt.Errorf("the server exited with %s; its last log line: %s", state, last)
	}
	if !strings.Contains(last, "msg=stopped") {
		return fmt.Errorf("the server's last log line is not msg=stopped: %q", last)
	}
	return nil
}

// A lockedBuffer is a bytes.Buffer that the command's stderr copier writes
// while a check may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
