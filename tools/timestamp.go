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

// The formats of the get_timestamp tool's format argument.
const (
	FormatISO8601 = "iso8601" // RFC 3339 to the second, with the UTC offset: 2026-11-30T05:12:05+01:00
	FormatUnix    = "unix"    // whole seconds since the Unix epoch, in decimal digits: 1796011925
	FormatHuman   = "human"   // English, 24-hour clock: Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)
)

// TimestampInput is the arguments object of the get_timestamp tool. Both
// fields are optional; the empty string means the default.
type TimestampInput struct {
	Format   string `json:"format,omitempty" jsonschema:"How to write the timestamp: iso8601, unix or human. Optional; default iso8601."`
	Timezone string `json:"timezone,omitempty" jsonschema:"An IANA time zone name of the form Area/City, such as Europe/Paris or America/New_York. Optional; default UTC."`
}

// TimestampOutput is the structuredContent of a get_timestamp result: one
// instant, written in the requested format and described in the zone used.
type TimestampOutput struct {
	Timestamp string `json:"timestamp" jsonschema:"The instant in the requested format."`
	Format    string `json:"format" jsonschema:"The format of timestamp: iso8601, unix or human."`
	Timezone  string `json:"timezone" jsonschema:"The IANA time zone used, spelled as the tz database spells it."`
	UTCOffset string `json:"utc_offset" jsonschema:"The zone's offset from UTC at that instant, as +hh:mm or -hh:mm."`
	IsDST     bool   `json:"is_dst" jsonschema:"True when the zone is on summer (daylight saving) time at that instant: its clocks are ahead of its standard time, the lowest UTC offset it uses from six months before the instant to six months after. False otherwise, and always false in zones with one offset all year."`
	Unix      int64  `json:"unix" jsonschema:"The instant in whole seconds since 1970-01-01T00:00:00Z."`
}

// A FormatError reports a format argument that is not one of iso8601, unix
// or human.
type FormatError struct {
	Format string // the format argument, exactly as given
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("format %q is not a timestamp format; use %q, %q or %q",
		e.Format, FormatISO8601, FormatUnix, FormatHuman)
}

// Timestamp describes the instant t in the named format ("" means iso8601)
// and time zone ("" means UTC). The timestamp is truncated to the second.
//
// Zone names are IANA names from the tz database embedded in the binary,
// accepted in any letter case and reported as the database spells them.
// Timestamp returns a *FormatError for an unknown format and a *ZoneError
// for anything that is not a zone name: "Local", abbreviations such as
// "PST", offsets such as "+05:00", Windows names, file paths.
//
// IsDST says whether the zone is on summer time at t: its UTC offset is
// above the lowest it uses from six months before t to six months after.
// That is not what time.Time.IsDST says where the tz database marks the
// lower offset as DST ("negative DST"): Europe/Dublin is on summer time in
// July, at +01:00, and Africa/Casablanca outside Ramadan, at +01:00.
func Timestamp(t time.Time, format, zone string) (TimestampOutput, error) {
	if format == "" {
		format = FormatISO8601
	}
	if format != FormatISO8601 && format != FormatUnix && format != FormatHuman {
		return TimestampOutput{}, &FormatError{Format: format}
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
	case FormatISO8601:
		out.Timestamp = t.Format(time.RFC3339)
	case FormatUnix:
		out.Timestamp = strconv.FormatInt(out.Unix, 10)
	case FormatHuman:
		out.Timestamp = human(t)
	}
	return out, nil
}

// human writes t as "Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)".
// Where the tz database has no abbreviation for a zone, Go reports the
// offset instead ("+0545" for Asia/Kathmandu, "-05" for Etc/GMT+5); that
// would repeat the offset, so it is left out:
// "Monday, 30 November 2026, 09:57:05 (UTC+05:45)".
func human(t time.Time) string {
	s := t.Format("Monday, 2 January 2006, 15:04:05")
	if abbr, _ := t.Zone(); abbr != "" && abbr[0] != '+' && abbr[0] != '-' {
		s += " " + abbr
	}
	return s + " (UTC" + t.Format("-07:00") + ")"
}

// timestampDescription is the get_timestamp tool's description, written for
// the model that chooses the arguments.
const timestampDescription = `Returns the current date and time in a given time zone.

Arguments, both optional:
- format: "iso8601" (the default, when format is omitted): RFC 3339 to the second with the UTC offset, e.g. 2026-11-30T05:12:05+01:00 (Z for UTC). "unix": whole seconds since 1970-01-01T00:00:00Z, e.g. 1796011925. "human": English with the weekday, 24-hour clock, zone abbreviation and offset, e.g. Monday, 30 November 2026, 05:12:05 CET (UTC+01:00).
- timezone: an IANA time zone name of the form Area/City, such as Europe/Paris, America/New_York or Asia/Kolkata (default UTC). Names are matched ignoring letter case. Abbreviations (PST, CEST, IST), UTC offsets (+05:00, UTC+5), Windows names (China Standard Time) and Local are refused, with suggestions.

Legacy names in the database are accepted with the database's meaning, which is not what people usually expect: EST, MST and HST are fixed offsets with no daylight saving time (EST is UTC-05:00 all year; use America/New_York for New York), and the Etc/GMT zones have the sign inverted (Etc/GMT+5 is UTC-05:00, Etc/GMT-14 is UTC+14:00).

The result gives timestamp, format, timezone (as the database spells it), utc_offset (+hh:mm), is_dst and unix (seconds). is_dst: true when the zone is on summer (daylight saving) time: its clocks are ahead of its standard time, which is the lowest UTC offset it uses in the six months before and after the instant. So Europe/Dublin is true in July and false in January, Africa/Casablanca is true except during Ramadan, and zones with one offset all year (UTC, Asia/Tokyo, EST) are always false.`

// timestampInputSchema is TimestampInput's schema, as the SDK would infer
// it, with the formats as an enum: the SDK then refuses any other format
// before the handler runs.
func timestampInputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[TimestampInput](nil)
	if err != nil {
		panic(err) // TimestampInput has only string fields; For cannot fail on it
	}
	s.Properties["format"].Enum = []any{FormatISO8601, FormatUnix, FormatHuman}
	return s
}

// addTimestamp registers get_timestamp on s. Each call reads the instant
// from now.
func addTimestamp(s *mcp.Server, now func() time.Time) {
	tool := &mcp.Tool{
		Name:        "get_timestamp",
		Title:       "Current time",
		Description: timestampDescription,
		Annotations: readOnly(),
		InputSchema: timestampInputSchema(),
	}
	mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, in TimestampInput) (*mcp.CallToolResult, TimestampOutput, error) {
		// A non-nil error becomes a result with isError set, its message the text.
		out, err := Timestamp(now(), in.Format, in.Timezone)
		return nil, out, err
	})
}
