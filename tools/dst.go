package tools

import "time"

// get_timestamp's is_dst says whether a zone is on summer time, and it
// does not come from time.Time.IsDST. IsDST repeats a mark that the tz
// database keeps for the law, not for the clocks. Ireland's standard time
// is its summer time (Irish Standard Time, UTC+01:00) and winter's GMT is
// legally the exception, so Europe/Dublin is IsDST in January at +00:00
// and not in July at +01:00. Morocco's standard time is UTC+01:00 and its
// clocks go back an hour for Ramadan, so Africa/Casablanca is IsDST during
// Ramadan only. The tz database calls this "negative DST". A model or a
// person reading is_dst takes it for "summer time", so is_dst is worked out
// from the offsets instead.

// summerWindow is how far either side of an instant onSummerTime looks for
// the zone's standard time, in months. Twelve months hold a winter of every
// zone that has one, however long its summer: the EU's lasts seven months,
// Morocco's (the time outside Ramadan) nearly eleven.
const summerWindow = 6

// maxZonePeriods bounds the walk across a zone's periods in the window.
// From 1800 to 2200 no zone of the database has more than seven periods in
// twelve months: Asia/Gaza from March 2086, whose summer time stops for
// Ramadan, with the split that ZoneBounds makes at each new year once a
// zone's listed transitions run out. A test checks it.
const maxZonePeriods = 16

// onSummerTime reports whether t's zone has its clocks set ahead of its
// standard (winter) time at t: whether the UTC offset at t is greater than
// the lowest UTC offset the zone uses from six months before t to six
// months after. A zone with one offset all year is never on summer time.
//
// A zone that moves its standard time for good gets the same rule, with
// the old offset counting as standard for six months after its last use.
// Europe/Istanbul, which stayed at +03:00 after its summer of 2016, is on
// summer time until 27 September 2016, six months after it last moved off
// +02:00, and not after. Europe/Moscow, on +04:00 all year from March 2011
// and back on +03:00 all year from 26 October 2014, is on summer time from
// 26 April 2014 until then, and not in 2012 or 2013 nor after the move.
func onSummerTime(t time.Time) bool {
	_, offset := t.Zone()
	return offset > lowestOffset(t.AddDate(0, -summerWindow, 0), t.AddDate(0, summerWindow, 0))
}

// lowestOffset returns the lowest UTC offset, in seconds east of UTC, that
// the zone of from uses from the instant from to the instant to. It looks
// at no more than maxZonePeriods of the zone's periods.
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

// periodEnd returns the end of the zone period holding t: the next instant
// at which the zone's offset, abbreviation or DST mark may change, or the
// zero Time if none ever does.
//
// It is the end that t.ZoneBounds returns, except on the last day of a
// leap year that a zone's rule for future years serves (after 2037 in Go's
// copy of the database). There ZoneBounds gives an end 365 days after the
// start of the year, which is not after t (golang/go#81583), and the walk
// would stand still; periodEnd moves on to the next midnight UTC, where
// the next year's period starts. Once that issue is fixed, this function
// is t.ZoneBounds's end and can go.
func periodEnd(t time.Time) time.Time {
	_, end := t.ZoneBounds()
	if !end.IsZero() && !end.After(t) {
		return t.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour).In(t.Location())
	}
	return end
}
