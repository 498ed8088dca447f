package tools

import (
	_ "embed" // zones.txt
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Zone names are matched against zoneNames, the list of the tz database
// that time/tzdata embeds in the binary, and never handed to the operating
// system as given. time.LoadLocation alone answers differently by platform:
// on Linux it reads /usr/share/zoneinfo, where "posix/Europe/Paris" and
// "zone.tab" are files too; on macOS that directory is case-insensitive, so
// "europe/paris" loads there but not on Linux; on Windows only the embedded
// copy exists. Matching first makes the set of accepted names, and their
// spelling in the result, the same everywhere: a name is accepted in any
// letter case and answered with the database's spelling ("europe/paris"
// becomes "Europe/Paris").
//
// The zone's rules still come from time.LoadLocation, which prefers the
// system database when it has the zone (it may hold a newer release of
// tzdata than the Go toolchain the binary was built with) and otherwise
// uses the embedded copy.

// zoneByFold maps each zone name, folded by foldASCII, to its spelling in
// the database. No two names in the database differ only in case; a test
// checks it.
var zoneByFold = func() map[string]string {
	m := make(map[string]string, len(zoneNames))
	for _, name := range zoneNames {
		m[foldASCII(name)] = name
	}
	return m
}()

// foldASCII lower-cases the ASCII letters of s and leaves every other
// character alone. Every lookup of a name in zones.go (zone names, the path
// after "zoneinfo/", abbreviations, Windows names, bare cities) goes
// through it, so a name matches or is suggested by one rule. Zone names,
// abbreviations and Windows names are ASCII; strings.ToLower and
// strings.ToUpper would also map four other letters to ASCII ones (İ, the
// Turkish dotted capital I, to i; K, the Kelvin sign, to k; ı, the dotless
// small i, to I; ſ, the long s, to S), so "Europe/PARİS" would match
// Europe/Paris and "ıst" would be taken for IST.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// loadZone returns the location named by the timezone argument and the
// zone's name as the tz database spells it. An empty name means UTC. Any
// name that is not in the database is refused with a *ZoneError.
func loadZone(name string) (*time.Location, string, error) {
	if name == "" {
		return time.UTC, "UTC", nil
	}
	canonical, ok := zoneByFold[foldASCII(name)]
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
// IANA time zone database. Its message says what the argument looks like
// instead (an abbreviation, a UTC offset, a Windows name, a file path) and
// asks for an IANA Area/City name.
type ZoneError struct {
	Zone        string   // the timezone argument, exactly as given
	Suggestions []string // IANA zone names the argument may have meant; may be empty

	reason string // what the argument is instead, completing "timezone %q …"
	advice string // if set, replaces the request for an Area/City name and the suggestions
}

func (e *ZoneError) Error() string {
	var b strings.Builder
	zone := []rune(e.Zone)
	if len(zone) > 60 { // a megabyte of argument need not come back whole
		fmt.Fprintf(&b, "timezone %q… (%d characters) %s. ", string(zone[:60]), len(zone), e.reason)
	} else {
		fmt.Fprintf(&b, "timezone %q %s. ", e.Zone, e.reason)
	}
	if e.advice != "" {
		b.WriteString(e.advice + ".")
		return b.String()
	}
	b.WriteString("Use an IANA time zone name of the form Area/City")
	switch n := len(e.Suggestions); n {
	case 0:
		b.WriteString(`, such as "Europe/Paris", "America/New_York" or "Asia/Tokyo"`)
	case 1:
		fmt.Fprintf(&b, ": perhaps %q", e.Suggestions[0])
	default:
		b.WriteString(": perhaps ")
		for i, s := range e.Suggestions {
			switch {
			case i == n-1:
				b.WriteString(" or ")
			case i > 0:
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", s)
		}
	}
	b.WriteString(".")
	return b.String()
}

// refuse explains why name, which is not in the tz database, is refused,
// and suggests the zones it may have meant.
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
		// "/usr/share/zoneinfo/Europe/Paris" names a zone after all.
		if _, rest, ok := strings.Cut(name, "zoneinfo/"); ok {
			if z, ok := zoneByFold[foldASCII(rest)]; ok {
				e.Suggestions = []string{z}
			}
		}
		return e
	}
	if zones, ok := abbreviations[folded]; ok {
		return &ZoneError{Zone: name, Suggestions: zones,
			reason: "is a time zone abbreviation, not an IANA zone name; abbreviations are ambiguous and do not say when daylight saving time begins or ends"}
	}
	if e := refuseOffset(name, trimmed); e != nil {
		return e
	}
	windows := strings.Replace(folded, " daylight time", " standard time", 1)
	if zones, ok := windowsZones[windows]; ok {
		return &ZoneError{Zone: name, Suggestions: zones,
			reason: "is a Windows time zone name, not an IANA zone name"}
	}
	return &ZoneError{Zone: name, Suggestions: nearZones(trimmed),
		reason: "is not a zone in the IANA time zone database"}
}

// utcOffset matches a UTC offset written as a zone: "+05:00", "UTC+5",
// "GMT-03:30", "UTC−8" (with a minus sign, U+2212).
var utcOffset = regexp.MustCompile(`^(?i:UTC|GMT|Z)?\s*([+\-−])\s*(\d{1,2})(?::?(\d{2}))?$`)

// refuseOffset returns the refusal of a UTC offset, or nil if trimmed is
// not one. A whole-hour offset gets the Etc/GMT zone that holds it, whose
// sign is inverted (POSIX style): UTC+05:00 is Etc/GMT-5.
func refuseOffset(name, trimmed string) *ZoneError {
	m := utcOffset.FindStringSubmatch(trimmed)
	if m == nil {
		return nil
	}
	e := &ZoneError{Zone: name, reason: "is a UTC offset, not an IANA zone name",
		advice: "Use an IANA time zone name of the form Area/City for the place, which also follows its daylight saving time"}
	hours, _ := strconv.Atoi(m[2]) // the pattern allows only digits
	minutes := 0
	if m[3] != "" {
		minutes, _ = strconv.Atoi(m[3])
	}
	east := m[1] == "+"
	switch {
	case hours == 0 && minutes == 0:
		e.Suggestions = []string{"UTC"}
		e.advice += `; for UTC itself, use "UTC"`
	case minutes != 0:
		// No Etc zone holds a fractional offset; only the place's name helps.
	case east && hours <= 14:
		e.Suggestions = []string{fmt.Sprintf("Etc/GMT-%d", hours)}
		e.advice += fmt.Sprintf(`; for a fixed UTC+%02d:00 all year, use %q (the Etc/GMT sign is inverted)`, hours, e.Suggestions[0])
	case !east && hours <= 12:
		e.Suggestions = []string{fmt.Sprintf("Etc/GMT+%d", hours)}
		e.advice += fmt.Sprintf(`; for a fixed UTC-%02d:00 all year, use %q (the Etc/GMT sign is inverted)`, hours, e.Suggestions[0])
	}
	return e
}

// nearZones returns the zones name may have meant: itself with spaces as
// underscores ("America/New York"), or, for a bare city, the zones whose
// last element is that city ("new york" suggests "America/New_York").
func nearZones(name string) []string {
	name = foldASCII(strings.ReplaceAll(name, " ", "_"))
	if z, ok := zoneByFold[name]; ok {
		return []string{z}
	}
	if name == "" || strings.Contains(name, "/") {
		return nil
	}
	var near []string
	for _, z := range zoneNames {
		if i := strings.LastIndexByte(z, '/'); i >= 0 && foldASCII(z[i+1:]) == name {
			near = append(near, z)
		}
	}
	slices.Sort(near)
	return near
}

// zonesTxt lists abbreviations and Windows names, each with the zones it
// suggests. It is data, not code, so that adding a name is adding a line.
//
//go:embed zones.txt
var zonesTxt string

// abbreviations and windowsZones map each name in zones.txt, folded by
// foldASCII as refuse looks it up, to the zones it suggests.
var abbreviations, windowsZones = readZonesTxt()

// readZonesTxt reads the "name: zone …" lines of zones.txt, abbreviations
// first and Windows names after the line "[windows]".
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
