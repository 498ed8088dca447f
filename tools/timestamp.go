package tools

import (
	"context"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // the tz database in the binary, for systems that have none

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The formats of get_timestamp's format argument.
const (
	formatISO8601 = "iso8601" // RFC 3339 to the second, with the UTC offset: 2026-11-30T05:12:05+01:00
	formatUnix    = "unix"    // whole seconds since the Unix epoch, in decimal digits: 1796011925
	formatHuman   = "human"   // English, 24-hour clock: Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)
)

// timestampInput is the arguments object of get_timestamp; "" is the default.
type timestampInput struct {
	Format   string `json:"format,omitempty" jsonschema:"How to write the timestamp: iso8601, unix or human. Optional; default iso8601."`
	Timezone string `json:"timezone,omitempty" jsonschema:"An IANA time zone name of the form Area/City, such as Europe/Paris or America/New_York. Optional; default UTC."`
}

// TimestampOutput is the structuredContent of a get_timestamp result.
type TimestampOutput struct {
	Timestamp string `json:"timestamp" jsonschema:"The instant in the requested format."`
	Format    string `json:"format" jsonschema:"The format of timestamp: iso8601, unix or human."`
	Timezone  string `json:"timezone" jsonschema:"The IANA time zone used, spelled as the tz database spells it."`
	UTCOffset string `json:"utc_offset" jsonschema:"The zone's offset from UTC at that instant, as +hh:mm or -hh:mm."`
	IsDST     bool   `json:"is_dst" jsonschema:"True when the zone is on summer (daylight saving) time at that instant: its clocks are ahead of its standard time, the lowest UTC offset it uses from six months before the instant to six months after. False otherwise, and always false in zones with one offset all year."`
	Unix      int64  `json:"unix" jsonschema:"The instant in whole seconds since 1970-01-01T00:00:00Z."`
}

// A formatError reports a format argument that is not one of the formats.
type formatError struct {
	Format string // the format argument, exactly as given
}

func (e *formatError) Error() string {
	return fmt.Sprintf("format %q is not a timestamp format; use %q, %q or %q", e.Format, formatISO8601, formatUnix, formatHuman)
}

// Timestamp describes the instant t, truncated to the second, in the named
// format ("" means iso8601) and IANA time zone ("" means UTC), matched in
// any letter case and answered as the tz database spells it. Anything else
// given as a zone ("Local", "PST", "+05:00", Windows names, file paths) is
// a *ZoneError, and an unknown format a *formatError. IsDST means summer
// time, which time.Time.IsDST does not always mean (see dst.go).
func Timestamp(t time.Time, format, zone string) (TimestampOutput, error) {
	if format == "" {
		format = formatISO8601
	}
	if format != formatISO8601 && format != formatUnix && format != formatHuman {
		return TimestampOutput{}, &formatError{Format: format}
	}
	loc, name, err := loadZone(zone)
	if err != nil {
		return TimestampOutput{}, err
	}
	t = t.In(loc)
	out := TimestampOutput{
		Format:    format,
		Timezone:  name,
		UTCOffset: t.Format("-07:00"),
		IsDST:     onSummerTime(t),
		Unix:      t.Unix(),
	}
	switch format {
	case formatISO8601:
		out.Timestamp = t.Format(time.RFC3339)
	case formatUnix:
		out.Timestamp = strconv.FormatInt(out.Unix, 10)
	case formatHuman:
		out.Timestamp = human(t)
	}
	return out, nil
}

// human writes t as "Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)",
// leaving out an abbreviation that is an offset ("+0545"), as Go gives one
// where the tz database has none.
func human(t time.Time) string {
	s := t.Format("Monday, 2 January 2006, 15:04:05")
	if abbr, _ := t.Zone(); abbr != "" && abbr[0] != '+' && abbr[0] != '-' {
		s += " " + abbr
	}
	return s + " (UTC" + t.Format("-07:00") + ")"
}

// timestampDescription is written for the model that chooses the arguments.
const timestampDescription = `Returns the current date and time in a given time zone.

Arguments, both optional:
- format: "iso8601" (the default, when format is omitted): RFC 3339 to the second with the UTC offset, e.g. 2026-11-30T05:12:05+01:00 (Z for UTC). "unix": whole seconds since 1970-01-01T00:00:00Z, e.g. 1796011925. "human": English with the weekday, 24-hour clock, zone abbreviation and offset, e.g. Monday, 30 November 2026, 05:12:05 CET (UTC+01:00).
- timezone: an IANA time zone name of the form Area/City, such as Europe/Paris, America/New_York or Asia/Kolkata (default UTC). Names are matched ignoring letter case. Abbreviations (PST, CEST, IST), UTC offsets (+05:00, UTC+5), Windows names (China Standard Time) and Local are refused, with suggestions.

Legacy names in the database are accepted with the database's meaning, which is not what people usually expect: EST, MST and HST are fixed offsets with no daylight saving time (EST is UTC-05:00 all year; use America/New_York for New York), and the Etc/GMT zones have the sign inverted (Etc/GMT+5 is UTC-05:00, Etc/GMT-14 is UTC+14:00).

The result gives timestamp, format, timezone (as the database spells it), utc_offset (+hh:mm), is_dst and unix (seconds). is_dst: true when the zone is on summer (daylight saving) time: its clocks are ahead of its standard time, which is the lowest UTC offset it uses in the six months before and after the instant. So Europe/Dublin is true in July and false in January, Africa/Casablanca is true except during Ramadan, and zones with one offset all year (UTC, Asia/Tokyo, EST) are always false.`

// timestampInputSchema is the schema the SDK would infer for timestampInput,
// with the formats as an enum, which the SDK enforces before the handler.
func timestampInputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[timestampInput](nil)
	if err != nil {
		panic(err) // timestampInput has only string fields; For cannot fail on it
	}
	s.Properties["format"].Enum = []any{formatISO8601, formatUnix, formatHuman}
	return s
}

// addTimestamp registers get_timestamp, which reads the instant from now.
func addTimestamp(s *mcp.Server, now func() time.Time) *mcp.Tool {
	t := &mcp.Tool{
		Name:        "get_timestamp",
		Title:       "Current time",
		Description: timestampDescription,
		Annotations: readOnly(),
		InputSchema: timestampInputSchema(),
	}
	mcp.AddTool(s, t, func(_ context.Context, _ *mcp.CallToolRequest, in timestampInput) (*mcp.CallToolResult, TimestampOutput, error) {
		out, err := Timestamp(now(), in.Format, in.Timezone)
		return nil, out, err
	})
	return t
}
