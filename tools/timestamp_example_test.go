package tools_test

import (
	"errors"
	"fmt"
	"time"

	"mcp-hello-tools/tools"
)

// Timestamp is what get_timestamp answers, for a given instant: the handler
// calls it with the server's clock.
func ExampleTimestamp() {
	at := time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC)
	for _, format := range []string{"iso8601", "unix", "human"} {
		out, err := tools.Timestamp(at, format, "Europe/Paris")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(out.Timestamp)
	}
	out, err := tools.Timestamp(at, "", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", out)
	// Output:
	// 2026-11-30T05:12:05+01:00
	// 1796011925
	// Monday, 30 November 2026, 05:12:05 CET (UTC+01:00)
	// {Timestamp:2026-11-30T04:12:05Z Format:iso8601 Timezone:UTC UTCOffset:+00:00 IsDST:false Unix:1796011925}
}

// When clocks go back, the same wall-clock time happens twice; the offset
// tells the two apart.
func ExampleTimestamp_fallBack() {
	for _, at := range []string{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z"} {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			fmt.Println(err)
			return
		}
		out, err := tools.Timestamp(t, "human", "America/New_York")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(out.Timestamp, out.IsDST)
	}
	// Output:
	// Sunday, 1 November 2026, 01:30:00 EDT (UTC-04:00) true
	// Sunday, 1 November 2026, 01:30:00 EST (UTC-05:00) false
}

// IsDST says whether the zone is on summer time: its clocks ahead of its
// standard time. time.Time.IsDST says the opposite for these two zones:
// Ireland's standard time is its summer time (IST, UTC+01:00), and Morocco,
// on UTC+01:00 all year, goes back an hour for Ramadan.
func ExampleTimestamp_summerTime() {
	for _, c := range []struct{ zone, at string }{
		{"Europe/Dublin", "2026-01-15T12:00:00Z"},
		{"Europe/Dublin", "2026-07-15T12:00:00Z"},
		{"Africa/Casablanca", "2026-03-01T12:00:00Z"}, // Ramadan
		{"Africa/Casablanca", "2026-07-15T12:00:00Z"},
	} {
		t, err := time.Parse(time.RFC3339, c.at)
		if err != nil {
			fmt.Println(err)
			return
		}
		out, err := tools.Timestamp(t, "human", c.zone)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(out.Timestamp, out.IsDST)
	}
	// Output:
	// Thursday, 15 January 2026, 12:00:00 GMT (UTC+00:00) false
	// Wednesday, 15 July 2026, 13:00:00 IST (UTC+01:00) true
	// Sunday, 1 March 2026, 12:00:00 (UTC+00:00) false
	// Wednesday, 15 July 2026, 13:00:00 (UTC+01:00) true
}

// Where the tz database has no abbreviation for a zone, the human format
// gives only the offset. Legacy Etc/GMT names invert the sign.
func ExampleTimestamp_offsets() {
	at := time.Date(2026, 11, 30, 4, 12, 5, 0, time.UTC)
	for _, zone := range []string{"Asia/Kathmandu", "Etc/GMT+5", "EST"} {
		out, err := tools.Timestamp(at, "human", zone)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(out.Timestamp)
	}
	// Output:
	// Monday, 30 November 2026, 09:57:05 (UTC+05:45)
	// Sunday, 29 November 2026, 23:12:05 (UTC-05:00)
	// Sunday, 29 November 2026, 23:12:05 EST (UTC-05:00)
}

// A timezone argument that is not an IANA zone name is refused with a
// *tools.ZoneError; its message is the text of the isError result the model
// reads.
func ExampleZoneError() {
	_, err := tools.Timestamp(time.Now(), "", "CST")
	fmt.Println(err)
	var ze *tools.ZoneError
	if errors.As(err, &ze) {
		fmt.Println(ze.Suggestions)
	}
	// Output:
	// timezone "CST" is a time zone abbreviation, not an IANA zone name; abbreviations are ambiguous and do not say when daylight saving time begins or ends. Use an IANA time zone name of the form Area/City: perhaps "America/Chicago", "Asia/Shanghai" or "America/Havana".
	// [America/Chicago Asia/Shanghai America/Havana]
}
