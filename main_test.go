package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		args               []string
		wantErr            string // substring; "" means success
		wantStdout         string
		wantStderrContains string
	}{
		{args: []string{"-version"}, wantStdout: name + " " + version + "\n"},
		{args: []string{"-h"}, wantStderrContains: "Usage:"},
		{args: []string{"-help"}, wantStderrContains: "-version"},
		{args: []string{"-nosuchflag"}, wantErr: "not defined", wantStderrContains: "Usage:"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, nil, &stdout, &stderr)
		if tt.wantErr != "" {
			require.Error(t, err, "run(%q)", tt.args)
			assert.Contains(t, err.Error(), tt.wantErr, "run(%q)", tt.args)
		} else {
			require.NoError(t, err, "run(%q)", tt.args)
		}
		assert.Equal(t, tt.wantStdout, stdout.String(), "run(%q) stdout", tt.args)
		assert.Contains(t, stderr.String(), tt.wantStderrContains, "run(%q) stderr", tt.args)
	}
}
