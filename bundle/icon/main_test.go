package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestIcon: ../icon.png, which the bundle packs, is what this program
// draws; "go -C bundle run ./icon" writes it again.
func TestIcon(t *testing.T) {
	want, err := encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bundle/%s is not what bundle/icon draws: run \"go -C bundle run ./icon\"", file)
	}
}
