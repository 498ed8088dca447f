package tools

import (
	_ "embed" // zones.txt
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// zoneByFold maps each zone name, folded by foldASCII, to its spelling in
// the database. No two names differ only in case; a test checks it. This
// and the other tables here are made at their first use, not at startup.
var zoneByFold = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(zoneNames))
	for _, name := range zoneNames {
		m[foldASCII(name)] = name
	}
	return m
})

// foldASCII lower-cases the ASCII letters of s, and nothing else, for
// every name this file looks up. strings.ToLower and ToUpper would also map
// İ, ı, ſ and K (Kelvin) to ASCII: "Europe/PARİS" would be Europe/Paris.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// maxZoneLength is the length, in characters, of the longest timezone
// argument looked at: every name in the database, or in zones.txt, is
// shorter (a test checks it). A longer argument is refused before any table
// or regular expression reads it, whatever its size.
const maxZoneLength = 64

// loadZone returns the location named by the timezone argument ("" is UTC)
// and its name as the tz database spells it. The name must be in
// zoneNames, so that every platform accepts the same names: LoadLocation
// alone would also take "zone.tab" on Linux, and "europe/paris" on macOS
// only. LoadLocation still gives the rules, from the system's database
// when it has the zone, as that may be newer than Go's copy.
func loadZone(name string) (*time.Location, string, error) {
	if name == "" {
		return time.UTC, "UTC", nil
	}
	if len(name) > maxZoneLength && utf8.RuneCountInString(name) > maxZoneLength {
		return nil, "", &ZoneError{Zone: name, reason: fmt.Sprintf("is longer than any time zone name (at most %d characters)", maxZoneLength)}
	}
	canonical, ok := zoneByFold()[foldASCII(name)]
	if !ok {
		return nil, "", refuse(name)
	}
	loc, err := time.LoadLocation(canonical)
	if err != nil {
		// Not expected: time/tzdata holds every name in zoneNames.
		return nil, "", fmt.Errorf("loading time zone %q: %w", canonical, err)
	}
	return loc, canonical, nil
}

// A ZoneError reports a timezone argument that is not a zone name in the
// IANA time zone database, what it is instead, and what to use.
type ZoneError struct {
	Zone        string   // the timezone argument, exactly as given
	Suggestions []string // IANA zone names the argument may have meant; may be empty

	reason string // what the argument is instead, completing "timezone %q …"
	advice string // if set, replaces the request for an Area/City name and the suggestions
}

func (e *ZoneError) Error() string {
	zone := strconv.Quote(e.Zone)
	if r := []rune(e.Zone); len(r) > 60 { // a megabyte of argument need not come back whole
		zone = fmt.Sprintf("%q… (%d characters)", string(r[:60]), len(r))
	}
	msg := "timezone " + zone + " " + e.reason + ". "
	if e.advice != "" {
		return msg + e.advice + "."
	}
	if len(e.Suggestions) == 0 {
		return msg + `Use an IANA time zone name of the form Area/City, such as "Europe/Paris", "America/New_York" or "Asia/Tokyo".`
	}
	msg += "Use an IANA time zone name of the form Area/City: perhaps "
	for i, s := range e.Suggestions {
		switch {
		case i > 0 && i == len(e.Suggestions)-1:
			msg += " or "
		case i > 0:
			msg += ", "
		}
		msg += strconv.Quote(s)
	}
	return msg + "."
}

// refuse says why name, which is not a zone, is refused, and suggests zones.
func refuse(name string) *ZoneError {
	trimmed := strings.TrimSpace(name)
	folded := foldASCII(trimmed)
	switch {
	case trimmed == "":
		return &ZoneError{Zone: name, reason: "is blank; omit timezone for UTC"}
	case folded == "local":
		return &ZoneError{Zone: name, reason: "would be the server's own time zone, which says nothing about the user's"}
	case strings.Contains(name, "..") || strings.Contains(name, `\`) || strings.HasPrefix(name, "/"):
		e := &ZoneError{Zone: name, reason: "is a file path, not a time zone name"}
		_, rest, _ := strings.Cut(name, "zoneinfo/") // "/usr/share/zoneinfo/Europe/Paris" names a zone after all
		if z, ok := zoneByFold()[foldASCII(rest)]; ok {
			e.Suggestions = []string{z}
		}
		return e
	}
	abbreviations, windowsZones := zonesTables()
	if zones, ok := abbreviations[folded]; ok {
		return &ZoneError{Zone: name, Suggestions: zones,
			reason: "is a time zone abbreviation, not an IANA zone name; abbreviations are ambiguous and do not say when daylight saving time begins or ends"}
	}
	if e := refuseOffset(name, trimmed); e != nil {
		return e
	}
	if zones, ok := windowsZones[strings.Replace(folded, " daylight time", " standard time", 1)]; ok {
		return &ZoneError{Zone: name, Suggestions: zones, reason: "is a Windows time zone name, not an IANA zone name"}
	}
	return &ZoneError{Zone: name, Suggestions: nearZones(trimmed), reason: "is not a zone in the IANA time zone database"}
}

// utcOffset matches UTC offsets: "+05:00", "UTC+5", "GMT-03:30", "UTC−8".
var utcOffset = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:UTC|GMT|Z)?\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?$`)
})

// refuseOffset refuses a UTC offset, or returns nil for anything else. A
// whole hour suggests its Etc/GMT zone, whose sign is inverted (POSIX).
func refuseOffset(name, trimmed string) *ZoneError {
	m := utcOffset().FindStringSubmatch(trimmed)
	if m == nil {
		return nil
	}
	e := &ZoneError{Zone: name, reason: "is a UTC offset, not an IANA zone name",
		advice: "Use an IANA time zone name of the form Area/City for the place, which also follows its daylight saving time"}
	// The pattern allows only digits, and Atoi("") is 0.
	hours, _ := strconv.Atoi(m[2])
	minutes, _ := strconv.Atoi(m[3])
	if m[1] != "+" { // '-' or '−' (U+2212)
		hours = -hours
	}
	etc := fmt.Sprintf("Etc/GMT%+d", -hours)
	switch {
	case hours == 0 && minutes == 0:
		e.Suggestions = []string{"UTC"}
		e.advice += `; for UTC itself, use "UTC"`
	case minutes == 0 && zoneByFold()[foldASCII(etc)] == etc: // whole hours from Etc/GMT-14 to Etc/GMT+12
		e.Suggestions = []string{etc}
		e.advice += fmt.Sprintf(`; for a fixed UTC%+03d:00 all year, use %q (the Etc/GMT sign is inverted)`, hours, etc)
	}
	return e
}

// nearZones returns the zones name may have meant: itself with spaces as
// underscores, or the zones of a bare city ("new york": America/New_York).
func nearZones(name string) []string {
	name = foldASCII(strings.ReplaceAll(name, " ", "_"))
	if z, ok := zoneByFold()[name]; ok {
		return []string{z}
	}
	var near []string // in zoneNames' order, which is sorted
	for _, z := range zoneNames {
		if i := strings.LastIndexByte(z, '/'); i >= 0 && foldASCII(z[i+1:]) == name {
			near = append(near, z)
		}
	}
	return near
}

// zonesTxt lists abbreviations and Windows names with the zones they mean:
// data, not code, so that adding a name is adding a line.
//
//go:embed zones.txt
var zonesTxt string

// zonesTables returns two maps, abbreviations and Windows names, from each
// name in zones.txt, folded by foldASCII, to the zones it suggests.
var zonesTables = sync.OnceValues(readZonesTxt)

// readZonesTxt reads the "name: zone …" lines of zones.txt, abbreviations
// first, Windows names after "[windows]".
func readZonesTxt() (abbreviations, windows map[string][]string) {
	abbreviations, windows = map[string][]string{}, map[string][]string{}
	table := abbreviations
	for line := range strings.Lines(zonesTxt) {
		line = strings.TrimSpace(line) // a checkout on Windows may end lines with \r\n
		if line == "[windows]" {
			table = windows
		} else if name, zones, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") {
			table[foldASCII(name)] = strings.Fields(zones)
		}
	}
	return abbreviations, windows
}
