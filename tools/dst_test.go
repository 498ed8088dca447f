package tools

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimestampIsDST is a table of facts about is_dst: a zone, an instant
// (in UTC), the zone's offset then, and whether it is on summer time. The
// offsets, and the Go IsDST noted where it differs, come from the tz
// database that Go 1.26 embeds (2025c); the Ramadan dates are its
// predictions for Morocco.
func TestTimestampIsDST(t *testing.T) {
	tests := []struct {
		zone   string
		at     string // RFC 3339, UTC
		offset string
		dst    bool
	}{
		// The tz database's "negative DST": standard time in summer.
		{"Europe/Dublin", "2026-01-15T12:00:00Z", "+00:00", false}, // IsDST true
		{"Europe/Dublin", "2026-07-15T12:00:00Z", "+01:00", true},  // IsDST false
		{"Europe/London", "2026-07-15T12:00:00Z", "+01:00", true},
		// Morocco is on +01:00 but for Ramadan: 15 February to 22 March
		// 2026, 7 February to 14 March 2027.
		{"Africa/Casablanca", "2026-01-15T12:00:00Z", "+01:00", true}, // IsDST false
		{"Africa/Casablanca", "2026-02-15T01:59:59Z", "+01:00", true},
		{"Africa/Casablanca", "2026-02-15T02:00:00Z", "+00:00", false}, // IsDST true
		{"Africa/Casablanca", "2026-03-01T12:00:00Z", "+00:00", false},
		{"Africa/Casablanca", "2026-03-22T01:59:59Z", "+00:00", false},
		{"Africa/Casablanca", "2026-03-22T02:00:00Z", "+01:00", true},
		{"Africa/Casablanca", "2026-08-30T12:00:00Z", "+01:00", true}, // as far from Ramadan as it gets
		{"Africa/Casablanca", "2027-02-20T12:00:00Z", "+00:00", false},
		{"Africa/Casablanca", "2027-03-20T12:00:00Z", "+01:00", true},

		// The EU's summer lasts seven months: the window must reach a
		// winter from its first and its last weeks.
		{"Europe/Paris", "2026-01-15T12:00:00Z", "+01:00", false},
		{"Europe/Paris", "2026-03-29T00:59:59Z", "+01:00", false},
		{"Europe/Paris", "2026-03-29T01:00:00Z", "+02:00", true},
		{"Europe/Paris", "2026-04-01T12:00:00Z", "+02:00", true},
		{"Europe/Paris", "2026-07-15T12:00:00Z", "+02:00", true},
		{"Europe/Paris", "2026-10-20T12:00:00Z", "+02:00", true},
		{"Europe/Paris", "2026-10-25T00:59:59Z", "+02:00", true},
		{"Europe/Paris", "2026-10-25T01:00:00Z", "+01:00", false},
		{"America/New_York", "2026-01-15T12:00:00Z", "-05:00", false},
		{"America/New_York", "2026-07-15T12:00:00Z", "-04:00", true},
		// Southern hemisphere: summer in January.
		{"Australia/Sydney", "2026-01-15T12:00:00Z", "+11:00", true},
		{"Australia/Sydney", "2026-07-15T12:00:00Z", "+10:00", false},
		{"America/Santiago", "2026-01-15T12:00:00Z", "-03:00", true},
		{"America/Santiago", "2026-07-15T12:00:00Z", "-04:00", false},
		// After 2037, where a rule for future years takes over from the
		// listed transitions.
		{"America/New_York", "2041-01-15T12:00:00Z", "-05:00", false},
		{"America/New_York", "2041-07-15T12:00:00Z", "-04:00", true},

		// One offset all year.
		{"Asia/Tokyo", "2026-01-15T12:00:00Z", "+09:00", false},
		{"Asia/Tokyo", "2026-07-15T12:00:00Z", "+09:00", false},
		{"UTC", "2026-07-15T12:00:00Z", "+00:00", false},
		{"Etc/GMT+5", "2026-07-15T12:00:00Z", "-05:00", false},
		{"EST", "2026-07-15T12:00:00Z", "-05:00", false},

		// Turkey kept +03:00 all year from 7 September 2016; +02:00 was
		// last used on 27 March 2016.
		{"Europe/Istanbul", "2016-01-15T12:00:00Z", "+02:00", false},
		{"Europe/Istanbul", "2016-07-15T12:00:00Z", "+03:00", true},
		{"Europe/Istanbul", "2016-09-26T12:00:00Z", "+03:00", true}, // IsDST false
		{"Europe/Istanbul", "2016-09-27T12:00:00Z", "+03:00", false},
		{"Europe/Istanbul", "2017-07-15T12:00:00Z", "+03:00", false},
		// Russia was on +04:00 all year from March 2011 and on +03:00 all
		// year from 26 October 2014.
		{"Europe/Moscow", "2013-07-15T12:00:00Z", "+04:00", false},
		{"Europe/Moscow", "2014-01-15T12:00:00Z", "+04:00", false},
		{"Europe/Moscow", "2014-04-25T12:00:00Z", "+04:00", false},
		{"Europe/Moscow", "2014-04-26T12:00:00Z", "+04:00", true}, // IsDST false
		{"Europe/Moscow", "2014-10-25T12:00:00Z", "+04:00", true}, // IsDST false
		{"Europe/Moscow", "2014-12-15T12:00:00Z", "+03:00", false},
		{"Europe/Moscow", "2015-07-15T12:00:00Z", "+03:00", false},
	}
	for _, tt := range tests {
		t.Run(tt.zone+" "+tt.at, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339, tt.at)
			require.NoError(t, err)
			got, err := Timestamp(at, "", tt.zone)
			require.NoError(t, err, "Timestamp(%s, %q)", tt.at, tt.zone)
			assert.Equal(t, tt.offset, got.UTCOffset, "Timestamp(%s, %q).UTCOffset", tt.at, tt.zone)
			assert.Equal(t, tt.dst, got.IsDST, "Timestamp(%s, %q).IsDST", tt.at, tt.zone)
		})
	}
}

// TestZonePeriods walks every zone's periods from 1800 to 2200 with
// periodEnd, as onSummerTime does, and checks that each step moves forward
// (ZoneBounds alone stands still on 31 December 2040 and of every leap year
// after it: golang/go#81583) and that no window of onSummerTime holds
// maxZonePeriods periods, so the walk always sees the whole window.
func TestZonePeriods(t *testing.T) {
	const window = 370 * 24 * time.Hour // longer than six months either side of any instant
	from := time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	most, mostZone := 0, ""
	for _, name := range zoneNames {
		loc, err := time.LoadLocation(name)
		require.NoError(t, err)
		var starts []time.Time
		for at := from.In(loc); at.Before(to); {
			next := periodEnd(at)
			if next.IsZero() {
				break
			}
			if !next.After(at) {
				require.Failf(t, "periodEnd does not move forward", "periodEnd(%s in %s) = %s", at.UTC(), name, next.UTC())
			}
			starts = append(starts, next)
			at = next
		}
		// The periods a window holds: the one it starts in, and those
		// starting inside it.
		j := 0
		for i := range starts {
			for j < len(starts) && starts[j].Sub(starts[i]) <= window {
				j++
			}
			if n := 1 + j - i; n > most {
				most, mostZone = n, name
			}
		}
	}
	assert.Less(t, most, maxZonePeriods, "%s has %d periods in %v", mostZone, most, window)
	t.Logf("at most %d periods in %v (%s)", most, window, mostZone)
}
