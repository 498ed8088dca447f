package tools

import (
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
	if zones, ok := abbreviationByFold[folded]; ok {
		return &ZoneError{Zone: name, Suggestions: zones,
			reason: "is a time zone abbreviation, not an IANA zone name; abbreviations are ambiguous and do not say when daylight saving time begins or ends"}
	}
	if e := refuseOffset(name, trimmed); e != nil {
		return e
	}
	windows := strings.Replace(folded, " daylight time", " standard time", 1)
	if zone, ok := windowsZones[windows]; ok {
		return &ZoneError{Zone: name, Suggestions: []string{zone},
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

// abbreviations maps common time zone abbreviations that are not names in
// the tz database to the IANA zones they most often mean, most likely first.
// Abbreviations the database does hold (EST, MST, HST, CET, EET, WET, GMT,
// UTC) are zones, with the database's meaning, and are not listed.
var abbreviations = map[string][]string{
	// North America
	"ET":   {"America/New_York"},
	"EDT":  {"America/New_York", "America/Toronto"},
	"CT":   {"America/Chicago"},
	"CST":  {"America/Chicago", "Asia/Shanghai", "America/Havana"},
	"CDT":  {"America/Chicago", "America/Havana"},
	"MT":   {"America/Denver"},
	"MDT":  {"America/Denver"},
	"PT":   {"America/Los_Angeles"},
	"PST":  {"America/Los_Angeles", "Asia/Manila"},
	"PDT":  {"America/Los_Angeles"},
	"AKST": {"America/Anchorage"},
	"AKDT": {"America/Anchorage"},
	"HDT":  {"America/Adak"},
	"AST":  {"America/Halifax", "America/Puerto_Rico", "Asia/Riyadh"},
	"ADT":  {"America/Halifax"},
	"NST":  {"America/St_Johns"},
	"NDT":  {"America/St_Johns"},
	// South America
	"BRT": {"America/Sao_Paulo"},
	"ART": {"America/Argentina/Buenos_Aires"},
	// Europe and Africa
	"Z":    {"UTC"},
	"BST":  {"Europe/London", "Asia/Dhaka"},
	"IST":  {"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"},
	"WEST": {"Europe/Lisbon", "Atlantic/Canary"},
	"CEST": {"Europe/Paris", "Europe/Berlin", "Europe/Rome"},
	"EEST": {"Europe/Athens", "Europe/Helsinki", "Europe/Kyiv"},
	"MSK":  {"Europe/Moscow"},
	"WAT":  {"Africa/Lagos"},
	"CAT":  {"Africa/Maputo"},
	"EAT":  {"Africa/Nairobi"},
	"SAST": {"Africa/Johannesburg"},
	// Asia and Oceania
	"GST":  {"Asia/Dubai"},
	"PKT":  {"Asia/Karachi"},
	"NPT":  {"Asia/Kathmandu"},
	"ICT":  {"Asia/Bangkok", "Asia/Ho_Chi_Minh"},
	"WIB":  {"Asia/Jakarta"},
	"SGT":  {"Asia/Singapore"},
	"HKT":  {"Asia/Hong_Kong"},
	"JST":  {"Asia/Tokyo"},
	"KST":  {"Asia/Seoul"},
	"AWST": {"Australia/Perth"},
	"ACST": {"Australia/Adelaide", "Australia/Darwin"},
	"ACDT": {"Australia/Adelaide"},
	"AEST": {"Australia/Sydney", "Australia/Brisbane", "Australia/Melbourne"},
	"AEDT": {"Australia/Sydney", "Australia/Melbourne"},
	"NZST": {"Pacific/Auckland"},
	"NZDT": {"Pacific/Auckland"},
}

// abbreviationByFold is abbreviations keyed by foldASCII of each
// abbreviation, as refuse looks them up.
var abbreviationByFold = func() map[string][]string {
	m := make(map[string][]string, len(abbreviations))
	for abbr, zones := range abbreviations {
		m[foldASCII(abbr)] = zones
	}
	return m
}()

// windowsZones maps the most common Windows time zone names, in lower case
// as foldASCII folds them, to the IANA zone that Unicode CLDR's
// windowsZones.xml gives for them (territory "001"). A name with "Daylight
// Time" is looked up with "Standard Time" instead.
var windowsZones = map[string]string{
	"hawaiian standard time":         "Pacific/Honolulu",
	"alaskan standard time":          "America/Anchorage",
	"pacific standard time":          "America/Los_Angeles",
	"us mountain standard time":      "America/Phoenix",
	"mountain standard time":         "America/Denver",
	"central standard time":          "America/Chicago",
	"central standard time (mexico)": "America/Mexico_City",
	"eastern standard time":          "America/New_York",
	"atlantic standard time":         "America/Halifax",
	"newfoundland standard time":     "America/St_Johns",
	"e. south america standard time": "America/Sao_Paulo",
	"argentina standard time":        "America/Argentina/Buenos_Aires",
	"gmt standard time":              "Europe/London",
	"greenwich standard time":        "Atlantic/Reykjavik",
	"w. europe standard time":        "Europe/Berlin",
	"romance standard time":          "Europe/Paris",
	"central europe standard time":   "Europe/Budapest",
	"central european standard time": "Europe/Warsaw",
	"gtb standard time":              "Europe/Bucharest",
	"fle standard time":              "Europe/Kyiv",
	"russian standard time":          "Europe/Moscow",
	"turkey standard time":           "Europe/Istanbul",
	"egypt standard time":            "Africa/Cairo",
	"south africa standard time":     "Africa/Johannesburg",
	"israel standard time":           "Asia/Jerusalem",
	"arabian standard time":          "Asia/Dubai",
	"arab standard time":             "Asia/Riyadh",
	"iran standard time":             "Asia/Tehran",
	"pakistan standard time":         "Asia/Karachi",
	"india standard time":            "Asia/Kolkata",
	"nepal standard time":            "Asia/Kathmandu",
	"se asia standard time":          "Asia/Bangkok",
	"china standard time":            "Asia/Shanghai",
	"singapore standard time":        "Asia/Singapore",
	"tokyo standard time":            "Asia/Tokyo",
	"korea standard time":            "Asia/Seoul",
	"w. australia standard time":     "Australia/Perth",
	"aus eastern standard time":      "Australia/Sydney",
	"new zealand standard time":      "Pacific/Auckland",
}
