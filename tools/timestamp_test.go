package tools

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expectations below were checked against Python's zoneinfo reading
// the system tz database, independently of Go.

// TestTimestamp is a table of facts: an instant (in UTC), a zone and a
// format, and what get_timestamp says about them. The rows in pairs are the
// two sides of a daylight saving time transition.
func TestTimestamp(t *testing.T) {
	tests := []struct {
		name   string
		at     string // RFC 3339, UTC
		zone   string
		format string
		want   string // timestamp
		offset string
		dst    bool
	}{
		{"utc default", "2026-11-30T04:12:05Z", "", "", "2026-11-30T04:12:05Z", "+00:00", false},
		{"utc iso8601", "2026-11-30T04:12:05Z", "UTC", "iso8601", "2026-11-30T04:12:05Z", "+00:00", false},
		{"utc unix", "2026-11-30T04:12:05Z", "UTC", "unix", "1796011925", "+00:00", false},
		{"utc human", "2026-11-30T04:12:05Z", "UTC", "human", "Monday, 30 November 2026, 04:12:05 UTC (UTC+00:00)", "+00:00", false},
		{"paris iso8601", "2026-11-30T04:12:05Z", "Europe/Paris", "iso8601", "2026-11-30T05:12:05+01:00", "+01:00", false},
		{"paris human", "2026-11-30T04:12:05Z", "Europe/Paris", "human", "Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)", "+01:00", false},
		{"truncated to the second", "2026-11-30T04:12:05.999999999Z", "UTC", "iso8601", "2026-11-30T04:12:05Z", "+00:00", false},
		{"unix truncated to the second", "2026-11-30T04:12:05.999999999Z", "UTC", "unix", "1796011925", "+00:00", false},

		{"new york before spring forward", "2026-03-08T06:59:59Z", "America/New_York", "iso8601", "2026-03-08T01:59:59-05:00", "-05:00", false},
		{"new york after spring forward", "2026-03-08T07:00:00Z", "America/New_York", "iso8601", "2026-03-08T03:00:00-04:00", "-04:00", true},
		{"new york 01:30 before fall back", "2026-11-01T05:30:00Z", "America/New_York", "human", "Sunday, 1 November 2026, 01:30:00 EDT (UTC-04:00)", "-04:00", true},
		{"new york 01:30 after fall back", "2026-11-01T06:30:00Z", "America/New_York", "human", "Sunday, 1 November 2026, 01:30:00 EST (UTC-05:00)", "-05:00", false},
		{"new york 01:30 before fall back iso8601", "2026-11-01T05:30:00Z", "America/New_York", "iso8601", "2026-11-01T01:30:00-04:00", "-04:00", true},
		{"new york 01:30 after fall back iso8601", "2026-11-01T06:30:00Z", "America/New_York", "iso8601", "2026-11-01T01:30:00-05:00", "-05:00", false},

		{"paris before spring forward", "2026-03-29T00:59:59Z", "Europe/Paris", "iso8601", "2026-03-29T01:59:59+01:00", "+01:00", false},
		{"paris after spring forward", "2026-03-29T01:00:00Z", "Europe/Paris", "iso8601", "2026-03-29T03:00:00+02:00", "+02:00", true},
		{"paris 02:30 before fall back", "2026-10-25T00:30:00Z", "Europe/Paris", "human", "Sunday, 25 October 2026, 02:30:00 CEST (UTC+02:00)", "+02:00", true},
		{"paris 02:30 after fall back", "2026-10-25T01:30:00Z", "Europe/Paris", "human", "Sunday, 25 October 2026, 02:30:00 CET (UTC+01:00)", "+01:00", false},

		{"sydney before fall back", "2026-04-04T15:59:59Z", "Australia/Sydney", "iso8601", "2026-04-05T02:59:59+11:00", "+11:00", true},
		{"sydney after fall back", "2026-04-04T16:00:00Z", "Australia/Sydney", "iso8601", "2026-04-05T02:00:00+10:00", "+10:00", false},
		{"sydney before spring forward", "2026-10-03T15:59:59Z", "Australia/Sydney", "human", "Sunday, 4 October 2026, 01:59:59 AEST (UTC+10:00)", "+10:00", false},
		{"sydney after spring forward", "2026-10-03T16:00:00Z", "Australia/Sydney", "human", "Sunday, 4 October 2026, 03:00:00 AEDT (UTC+11:00)", "+11:00", true},

		// The database has no abbreviation for these zones; Go reports the
		// offset ("+0545", "+14", "-05"), which human leaves out.
		{"kathmandu quarter hour", "2026-11-30T04:12:05Z", "Asia/Kathmandu", "iso8601", "2026-11-30T09:57:05+05:45", "+05:45", false},
		{"kathmandu human", "2026-11-30T04:12:05Z", "Asia/Kathmandu", "human", "Monday, 30 November 2026, 09:57:05 (UTC+05:45)", "+05:45", false},
		{"kiritimati +14", "2026-11-30T04:12:05Z", "Pacific/Kiritimati", "human", "Monday, 30 November 2026, 18:12:05 (UTC+14:00)", "+14:00", false},
		{"etc/gmt+5 is west of greenwich", "2026-11-30T04:12:05Z", "Etc/GMT+5", "iso8601", "2026-11-29T23:12:05-05:00", "-05:00", false},
		{"etc/gmt+5 human", "2026-11-30T04:12:05Z", "Etc/GMT+5", "human", "Sunday, 29 November 2026, 23:12:05 (UTC-05:00)", "-05:00", false},
		{"etc/gmt-14 is east of greenwich", "2026-11-30T04:12:05Z", "Etc/GMT-14", "iso8601", "2026-11-30T18:12:05+14:00", "+14:00", false},

		// Legacy names keep the database's meaning.
		{"EST has no summer time", "2026-07-01T12:00:00Z", "EST", "human", "Wednesday, 1 July 2026, 07:00:00 EST (UTC-05:00)", "-05:00", false},
		{"EST5EDT has summer time", "2026-07-01T12:00:00Z", "EST5EDT", "iso8601", "2026-07-01T08:00:00-04:00", "-04:00", true},
		{"CET in winter", "2026-11-30T04:12:05Z", "CET", "iso8601", "2026-11-30T05:12:05+01:00", "+01:00", false},
		{"GMT", "2026-07-01T12:00:00Z", "GMT", "human", "Wednesday, 1 July 2026, 12:00:00 GMT (UTC+00:00)", "+00:00", false},

		{"leap day", "2028-02-29T12:00:00Z", "Asia/Tokyo", "human", "Tuesday, 29 February 2028, 21:00:00 JST (UTC+09:00)", "+09:00", false},
		{"leap day iso8601", "2028-02-29T12:00:00Z", "Asia/Tokyo", "iso8601", "2028-02-29T21:00:00+09:00", "+09:00", false},
		{"unix past 32 bits", "2038-01-19T03:14:08Z", "UTC", "unix", "2147483648", "+00:00", false},
		{"unix year 9999", "9999-12-31T23:59:59Z", "UTC", "unix", "253402300799", "+00:00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339Nano, tt.at)
			require.NoError(t, err)
			got, err := Timestamp(at, tt.format, tt.zone)
			require.NoError(t, err, "Timestamp(%s, %q, %q)", tt.at, tt.format, tt.zone)
			assert.Equal(t, tt.want, got.Timestamp, "Timestamp(%s, %q, %q).Timestamp", tt.at, tt.format, tt.zone)
			assert.Equal(t, tt.offset, got.UTCOffset, "Timestamp(%s, %q, %q).UTCOffset", tt.at, tt.format, tt.zone)
			assert.Equal(t, tt.dst, got.IsDST, "Timestamp(%s, %q, %q).IsDST", tt.at, tt.format, tt.zone)
			assert.Equal(t, at.Unix(), got.Unix, "Timestamp(%s, %q, %q).Unix", tt.at, tt.format, tt.zone)
		})
	}
}

// TestTimestampNames checks the format and timezone the result reports:
// the defaults filled in, and zone names in the database's spelling
// whatever the case of the argument.
func TestTimestampNames(t *testing.T) {
	at := time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC)
	tests := []struct {
		format, zone         string
		wantFormat, wantZone string
	}{
		{"", "", "iso8601", "UTC"},
		{"unix", "UTC", "unix", "UTC"},
		{"human", "Europe/Paris", "human", "Europe/Paris"},
		{"", "europe/paris", "iso8601", "Europe/Paris"},
		{"", "EUROPE/PARIS", "iso8601", "Europe/Paris"},
		{"", "america/new_york", "iso8601", "America/New_York"},
		{"", "utc", "iso8601", "UTC"},
		{"", "etc/gmt+5", "iso8601", "Etc/GMT+5"},
		{"", "est5edt", "iso8601", "EST5EDT"},
		{"", "US/Eastern", "iso8601", "US/Eastern"}, // a link, kept as named
	}
	for _, tt := range tests {
		got, err := Timestamp(at, tt.format, tt.zone)
		require.NoError(t, err, "Timestamp(%q, %q)", tt.format, tt.zone)
		assert.Equal(t, tt.wantFormat, got.Format, "Timestamp(%q, %q).Format", tt.format, tt.zone)
		assert.Equal(t, tt.wantZone, got.Timezone, "Timestamp(%q, %q).Timezone", tt.format, tt.zone)
	}
}

func TestTimestampFormatError(t *testing.T) {
	for _, format := range []string{"rfc2822", "ISO8601", " human", "iso"} {
		_, err := Timestamp(time.Unix(0, 0), format, "")
		var fe *formatError
		require.ErrorAs(t, err, &fe, "Timestamp(%q)", format)
		assert.Equal(t, format, fe.Format)
		assert.ErrorContains(t, err, `"iso8601", "unix" or "human"`, "Timestamp(%q)", format)
	}
}

// TestTimestampInputSchema checks the inputSchema on the wire: an object
// closed to other properties, the formats as an enum, and no keyword
// outside the subset every model provider's function calling accepts.
func TestTimestampInputSchema(t *testing.T) {
	allowed := []string{"type", "properties", "required", "description", "enum", "additionalProperties"}
	b, err := json.Marshal(timestampInputSchema())
	require.NoError(t, err)
	var schema map[string]any
	require.NoError(t, json.Unmarshal(b, &schema))

	assert.Equal(t, "object", schema["type"])
	assert.Equal(t, false, schema["additionalProperties"])
	assert.NotContains(t, schema, "required", "both arguments are optional")
	props, ok := schema["properties"].(map[string]any)
	require.True(t, ok, "properties in %s", b)
	assert.Equal(t, []string{"format", "timezone"}, slices.Sorted(maps.Keys(props)))
	format, ok := props["format"].(map[string]any)
	require.True(t, ok, "properties.format in %s", b)
	assert.Equal(t, []any{"iso8601", "unix", "human"}, format["enum"])
	assert.Equal(t, "string", format["type"])

	var check func(path string, s map[string]any)
	check = func(path string, s map[string]any) {
		for k, v := range s {
			assert.Contains(t, allowed, k, "keyword %q at %s in %s", k, path, b)
			if k == "properties" {
				for name, p := range v.(map[string]any) {
					check(path+"/properties/"+name, p.(map[string]any))
				}
			}
		}
	}
	check("#", schema)
}

// TestTimestampDescription checks that the description tells the model
// what the schema does not: each default, the two legacy traps, and what
// is_dst means where the tz database's DST mark says otherwise.
func TestTimestampDescription(t *testing.T) {
	for _, want := range []string{
		`"iso8601" (the default, when format is omitted)`,
		"(default UTC)",
		"EST is UTC-05:00 all year",
		"Etc/GMT+5 is UTC-05:00",
		"Local",
		"is_dst: true when the zone is on summer (daylight saving) time: its clocks are ahead of its standard time",
		"Europe/Dublin is true in July and false in January",
		"Africa/Casablanca is true except during Ramadan",
	} {
		assert.Contains(t, timestampDescription, want)
	}
}

// TestTimestampOutputSchema checks that the outputSchema defines is_dst by
// the clocks, as onSummerTime computes it, and not by the tz database's
// DST mark.
func TestTimestampOutputSchema(t *testing.T) {
	schema, err := jsonschema.For[TimestampOutput](nil)
	require.NoError(t, err)
	isDST, ok := schema.Properties["is_dst"]
	require.True(t, ok, "jsonschema.For[TimestampOutput]: no is_dst")
	for _, want := range []string{
		"summer (daylight saving) time",
		"ahead of its standard time",
		"the lowest UTC offset it uses from six months before the instant to six months after",
		"always false in zones with one offset all year",
	} {
		assert.Contains(t, isDST.Description, want, "jsonschema.For[TimestampOutput]: is_dst description")
	}
}

// connectTimestamp returns a client session with a server holding the
// package's tools, whose clock is stopped at now, over in-memory
// transports.
func connectTimestamp(t *testing.T, now time.Time) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	Add(server, func() time.Time { return now })
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverTransport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil)
	// go-sdk clients ask for a draft protocol version unless told otherwise.
	cs, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestGetTimestampTool calls get_timestamp through a client and checks the
// result: structuredContent, and the same JSON in the text block.
func TestGetTimestampTool(t *testing.T) {
	cs := connectTimestamp(t, time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC))
	tests := []struct {
		args map[string]any
		want string // structuredContent, JSON
	}{
		{nil, `{"timestamp":"2026-11-30T04:12:05Z","format":"iso8601","timezone":"UTC","utc_offset":"+00:00","is_dst":false,"unix":1796011925}`},
		{map[string]any{}, `{"timestamp":"2026-11-30T04:12:05Z","format":"iso8601","timezone":"UTC","utc_offset":"+00:00","is_dst":false,"unix":1796011925}`},
		{map[string]any{"timezone": ""}, `{"timestamp":"2026-11-30T04:12:05Z","format":"iso8601","timezone":"UTC","utc_offset":"+00:00","is_dst":false,"unix":1796011925}`},
		{map[string]any{"format": "unix"}, `{"timestamp":"1796011925","format":"unix","timezone":"UTC","utc_offset":"+00:00","is_dst":false,"unix":1796011925}`},
		{map[string]any{"format": "human", "timezone": "Europe/Paris"}, `{"timestamp":"Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)","format":"human","timezone":"Europe/Paris","utc_offset":"+01:00","is_dst":false,"unix":1796011925}`},
		{map[string]any{"timezone": "australia/sydney"}, `{"timestamp":"2026-11-30T15:12:05+11:00","format":"iso8601","timezone":"Australia/Sydney","utc_offset":"+11:00","is_dst":true,"unix":1796011925}`},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_timestamp", Arguments: tt.args})
		require.NoError(t, err, "get_timestamp %v", tt.args)
		require.False(t, res.IsError, "get_timestamp %v: isError, content %v", tt.args, timestampText(res))
		structured, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		assert.JSONEq(t, tt.want, string(structured), "get_timestamp %v: structuredContent", tt.args)
		assert.JSONEq(t, tt.want, timestampText(res), "get_timestamp %v: text content", tt.args)
	}
}

// TestGetTimestampToolErrors checks that bad arguments come back as tool
// results with isError set, the message naming what was wrong, and not as
// JSON-RPC errors. The SDK checks the arguments against the input schema
// (unknown property, wrong type, format outside the enum) before the
// handler runs; the handler refuses zones.
func TestGetTimestampToolErrors(t *testing.T) {
	cs := connectTimestamp(t, time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC))
	tests := []struct {
		args map[string]any
		want []string // substrings of the message
	}{
		{map[string]any{"zone": "Europe/Paris"}, []string{"zone"}},
		{map[string]any{"format": 5}, []string{"format", "string"}},
		{map[string]any{"timezone": true}, []string{"timezone", "string"}},
		{map[string]any{"timezone": nil}, []string{"timezone"}},
		{map[string]any{"format": "rfc2822"}, []string{"rfc2822", "iso8601", "unix", "human"}},
		// Gemini refuses "" in an enum, so the enum leaves it out and the
		// SDK refuses it; a model omits format to get the default.
		{map[string]any{"format": ""}, []string{"format", "iso8601", "unix", "human"}},
		{map[string]any{"timezone": "PST"}, []string{`"PST"`, "IANA", `"America/Los_Angeles"`}},
		{map[string]any{"timezone": "Local"}, []string{`"Local"`, "IANA"}},
		{map[string]any{"timezone": "Mars/Olympus_Mons"}, []string{`"Mars/Olympus_Mons"`, "IANA", "Area/City"}},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_timestamp", Arguments: tt.args})
		require.NoError(t, err, "get_timestamp %v: want a tool error, not a JSON-RPC error", tt.args)
		require.True(t, res.IsError, "get_timestamp %v: isError = false, content %v", tt.args, timestampText(res))
		assert.Nil(t, res.StructuredContent, "get_timestamp %v: structuredContent with isError", tt.args)
		for _, w := range tt.want {
			assert.Contains(t, timestampText(res), w, "get_timestamp %v: message", tt.args)
		}
	}
}

// timestampText returns the text of res's only content block.
func timestampText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}
