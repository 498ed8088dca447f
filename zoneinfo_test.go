package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools"
)

// zoneinfoSources are the places Go's time package reads the tz database
// from on Linux, besides the ZONEINFO environment variable and the copy
// time/tzdata embeds in the binary (src/time/zoneinfo_unix.go).
var zoneinfoSources = []string{
	"/usr/share/zoneinfo",
	"/usr/share/lib/zoneinfo",
	"/usr/lib/locale/TZ",
	"/etc/zoneinfo",
}

// TestNoSystemZoneinfo checks that the real binary answers get_timestamp
// right on a machine with no tz database, as in a scratch or distroless
// container: the zones come from the copy time/tzdata embeds.
//
// It runs only with MCP_HELLO_NO_ZONEINFO=1, which .ci/no-zoneinfo sets
// after hiding every database Go could read (the system's and
// $GOROOT/lib/time/zoneinfo.zip) in a private mount namespace. The test
// first checks that they are hidden, so it cannot pass by accident.
func TestNoSystemZoneinfo(t *testing.T) {
	if os.Getenv("MCP_HELLO_NO_ZONEINFO") != "1" {
		t.Skip("needs a machine without a tz database; run .ci/no-zoneinfo")
	}
	_, set := os.LookupEnv("ZONEINFO")
	require.False(t, set, "ZONEINFO is set")
	for _, dir := range zoneinfoSources {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		require.NoError(t, err)
		require.Empty(t, entries, "%s is not empty", dir)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err, "go env GOROOT")
	archive := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip")
	_, err = os.Stat(archive)
	require.ErrorIs(t, err, fs.ErrNotExist, "%s is not hidden", archive)

	session := connect(t, "2025-11-25")
	for _, zone := range []string{"Europe/Paris", "America/New_York"} {
		before := time.Now()
		res := callTool(t, session, "get_timestamp", map[string]any{"timezone": zone})
		after := time.Now()
		require.False(t, res.IsError, "get_timestamp %s: %s", zone, mustJSON(t, res.Content))
		var got tools.TimestampOutput
		require.NoError(t, json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &got))

		// This test binary has the embedded database too: it imports tools,
		// which imports time/tzdata.
		loc, err := time.LoadLocation(zone)
		require.NoError(t, err)
		// A transition could fall between before and after; accept either side.
		sides := map[string]bool{
			before.In(loc).Format("-07:00"): before.In(loc).IsDST(),
			after.In(loc).Format("-07:00"):  after.In(loc).IsDST(),
		}
		dst, ok := sides[got.UTCOffset]
		assert.True(t, ok, "get_timestamp %s: utc_offset %s, want one of %v", zone, got.UTCOffset, sides)
		assert.Equal(t, dst, got.IsDST, "get_timestamp %s: is_dst", zone)
		assert.Equal(t, zone, got.Timezone)
		assert.Contains(t, map[string][]string{
			"Europe/Paris":     {"+01:00", "+02:00"},
			"America/New_York": {"-05:00", "-04:00"},
		}[zone], got.UTCOffset, "get_timestamp %s: utc_offset", zone)

		at, err := time.Parse(time.RFC3339, got.Timestamp)
		require.NoError(t, err, "get_timestamp %s: timestamp", zone)
		assert.True(t, strings.HasSuffix(got.Timestamp, got.UTCOffset), "get_timestamp %s: %s does not end in %s", zone, got.Timestamp, got.UTCOffset)
		assert.WithinRange(t, at, before.Truncate(time.Second), after, "get_timestamp %s: timestamp", zone)
	}
}
