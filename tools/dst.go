package tools

import "time"

// is_dst is worked out from the offsets, not from time.Time.IsDST, which
// follows a mark the tz database keeps for the law ("negative DST"):
// Europe/Dublin is IsDST in winter, as Irish law calls summer time standard,
// and Africa/Casablanca during Ramadan only. A reader means summer time.

// summerWindow is how far either side of an instant onSummerTime looks for
// the zone's standard time, in months: twelve months hold a winter of every
// zone, even Morocco, whose summer lasts nearly eleven.
const summerWindow = 6

// maxZonePeriods bounds the walk over a zone's periods in the window. No
// twelve months from 1800 to 2200 hold over seven (Asia/Gaza); a test checks.
const maxZonePeriods = 16

// onSummerTime reports whether t's zone has its clocks ahead of its
// standard time: whether the UTC offset at t is above the lowest the zone
// uses within summerWindow months of t. An offset left for good stays
// standard six months: Europe/Istanbul, on +03:00 for good from 2016, is on
// summer time until 27 September 2016.
func onSummerTime(t time.Time) bool {
	_, offset := t.Zone()
	return offset > lowestOffset(t.AddDate(0, -summerWindow, 0), t.AddDate(0, summerWindow, 0))
}

// lowestOffset returns the lowest UTC offset, in seconds, that from's zone
// uses until to.
func lowestOffset(from, to time.Time) int {
	at := from
	_, lowest := at.Zone()
	for periods := 1; periods < maxZonePeriods; periods++ {
		at = periodEnd(at)
		if at.IsZero() || at.After(to) {
			break
		}
		_, offset := at.Zone()
		lowest = min(lowest, offset)
	}
	return lowest
}

// periodEnd returns the end t.ZoneBounds gives for t's period, or, where
// that is not after t (the last day of leap years after 2037,
// golang/go#81583), the next midnight UTC, where the next year's period
// starts. Once that issue is fixed, periodEnd can go.
func periodEnd(t time.Time) time.Time {
	_, end := t.ZoneBounds()
	if !end.IsZero() && !end.After(t) {
		return t.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour).In(t.Location())
	}
	return end
}
