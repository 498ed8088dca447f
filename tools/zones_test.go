package tools

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusedZones is a table of timezone arguments that are not zone names,
// with what each refusal must say: the argument quoted, "IANA", and the
// zones it suggests, in order.
func TestRefusedZones(t *testing.T) {
	tests := []struct {
		zone        string
		suggestions []string
		contains    string // a further substring of the message, if any
	}{
		{"Local", nil, "server's own time zone"},
		{"local", nil, "server's own time zone"},
		{" ", nil, "omit timezone for UTC"},
		{"\t", nil, "omit timezone for UTC"},

		{"../../etc/passwd", nil, "file path"},
		{"/etc/localtime", nil, "file path"},
		{"/usr/share/zoneinfo/Europe/Paris", []string{"Europe/Paris"}, "file path"},
		{`C:\Windows\System32`, nil, "file path"},
		{"Europe/../Paris", nil, "file path"},

		{"PST", []string{"America/Los_Angeles", "Asia/Manila"}, "abbreviation"},
		{"pdt", []string{"America/Los_Angeles"}, "abbreviation"},
		{"EDT", []string{"America/New_York", "America/Toronto"}, "abbreviation"},
		{"CEST", []string{"Europe/Paris", "Europe/Berlin", "Europe/Rome"}, "abbreviation"},
		{"IST", []string{"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"}, "abbreviation"},
		{"CST", []string{"America/Chicago", "Asia/Shanghai", "America/Havana"}, "abbreviation"},
		{"BST", []string{"Europe/London", "Asia/Dhaka"}, "abbreviation"},
		{"AEST", []string{"Australia/Sydney", "Australia/Brisbane", "Australia/Melbourne"}, "abbreviation"},

		{"UTC+5", []string{"Etc/GMT-5"}, "UTC offset"},
		{"GMT+5", []string{"Etc/GMT-5"}, "sign is inverted"},
		{"+05:00", []string{"Etc/GMT-5"}, "UTC+05:00"},
		{"-08:00", []string{"Etc/GMT+8"}, "UTC-08:00"},
		{"UTC−8", []string{"Etc/GMT+8"}, "UTC offset"}, // U+2212 MINUS SIGN
		{"utc+14", []string{"Etc/GMT-14"}, "UTC offset"},
		{"+0545", nil, "UTC offset"},
		{"UTC+5:30", nil, "UTC offset"},
		{"UTC+0", []string{"UTC"}, "UTC offset"},
		{"UTC-13", nil, "UTC offset"}, // no Etc/GMT+13

		{"China Standard Time", []string{"Asia/Shanghai"}, "Windows time zone name"},
		{"Pacific Standard Time", []string{"America/Los_Angeles"}, "Windows time zone name"},
		{"pacific daylight time", []string{"America/Los_Angeles"}, "Windows time zone name"},
		{"W. Europe Standard Time", []string{"Europe/Berlin"}, "Windows time zone name"},
		{"India Standard Time", []string{"Asia/Kolkata"}, "Windows time zone name"},

		{"Paris", []string{"Europe/Paris"}, "not a zone"},
		{"new york", []string{"America/New_York"}, "not a zone"},
		{"America/New York", []string{"America/New_York"}, "not a zone"},
		{" Europe/Paris ", []string{"Europe/Paris"}, "not a zone"},
		{"Heure normale d’Europe centrale", nil, "not a zone"},
		{"Mars/Olympus_Mons", nil, "not a zone"},
		{"Europe/Pariss", nil, "not a zone"},

		// Names, abbreviations and Windows names are matched, and
		// suggested, ignoring the case of ASCII letters only: Unicode's
		// case mappings would also take İ, K, ı and ſ to ASCII letters.
		{"EUROPE/PARIS ", []string{"Europe/Paris"}, "not a zone"},
		{"Europe/PARİS", nil, "not a zone"}, // U+0130, Turkish dotted capital I, lower-cased "i" by Unicode
		{"europe/PARİS", nil, "not a zone"},
		{"/usr/share/zoneinfo/europe/PARIS", []string{"Europe/Paris"}, "file path"},
		{"/usr/share/zoneinfo/Europe/PARİS", nil, "file path"},
		{"NEW YORK", []string{"America/New_York"}, "not a zone"},
		{"new yor\u212a", nil, "not a zone"}, // U+212A, Kelvin sign, lower-cased "k" by Unicode
		{"america/new yor\u212a", nil, "not a zone"},
		{"PARIS", []string{"Europe/Paris"}, "not a zone"},
		{"parİs", nil, "not a zone"},
		{"INDIA STANDARD TIME", []string{"Asia/Kolkata"}, "Windows time zone name"},
		{"İndia Standard Time", nil, "not a zone"},
		{"\u212aorea Standard Time", nil, "not a zone"},
		{"ist", []string{"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"}, "abbreviation"},
		{"ıst", nil, "not a zone"},      // U+0131, Turkish dotless small i, upper-cased "I" by Unicode
		{"P\u017fT", nil, "not a zone"}, // U+017F, long s, upper-cased "S" by Unicode
	}
	for _, tt := range tests {
		t.Run(tt.zone, func(t *testing.T) {
			_, err := Timestamp(time.Unix(0, 0), "", tt.zone)
			var ze *ZoneError
			require.ErrorAs(t, err, &ze, "Timestamp(%q)", tt.zone)
			assert.Equal(t, tt.zone, ze.Zone)
			assert.Equal(t, tt.suggestions, ze.Suggestions, "Timestamp(%q) suggestions", tt.zone)

			msg := err.Error()
			assert.Contains(t, msg, fmt.Sprintf("timezone %q", tt.zone), "Timestamp(%q) quotes its input", tt.zone)
			assert.Contains(t, msg, "IANA time zone name of the form Area/City", "Timestamp(%q)", tt.zone)
			assert.Contains(t, msg, tt.contains, "Timestamp(%q)", tt.zone)
			for _, s := range tt.suggestions {
				assert.Contains(t, msg, `"`+s+`"`, "Timestamp(%q) suggests %s", tt.zone, s)
			}
		})
	}
}

// TestLongZoneName checks that a name longer than any zone's is refused
// as such, before it is matched against anything (an offset with 8 MB of
// spaces in it took 7.3 s of CPU in a regular expression), and quoted in
// part, with its length; and that maxZoneLength is longer than any name
// the tables hold.
func TestLongZoneName(t *testing.T) {
	for _, zone := range []string{strings.Repeat("Z", 1_000_000), "UTC" + strings.Repeat(" ", 8<<20) + "+"} {
		_, err := Timestamp(time.Unix(0, 0), "", zone)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 400, "Timestamp(a %d-character zone) message length", len(zone))
		assert.Contains(t, err.Error(), fmt.Sprintf(`"… (%d characters) is longer than any time zone name (at most %d characters)`, len(zone), maxZoneLength))
	}
	zone := strings.Repeat("Z", 1_000_000)
	_, err := Timestamp(time.Unix(0, 0), "", zone)
	assert.Contains(t, err.Error(), `timezone "`+strings.Repeat("Z", 60)+`"…`)

	abbreviations, windowsZones := zonesTables()
	names := append(slices.Collect(maps.Keys(abbreviations)), zoneNames[:]...)
	for name := range windowsZones {
		names = append(names, name, strings.Replace(name, " standard time", " daylight time", 1))
	}
	for _, name := range names {
		assert.LessOrEqual(t, len(name), maxZoneLength, "%q is longer than maxZoneLength", name)
	}
	page, err := os.ReadFile("../docs/limits.md")
	require.NoError(t, err)
	assert.Contains(t, string(page), fmt.Sprintf("a `timezone` of more than %d characters is refused", maxZoneLength), "docs/limits.md")
}

// TestZoneErrorMessage shows whole messages, one per number of suggestions.
func TestZoneErrorMessage(t *testing.T) {
	tests := []struct {
		zone, want string
	}{
		{"Mars/Olympus_Mons", `timezone "Mars/Olympus_Mons" is not a zone in the IANA time zone database. ` +
			`Use an IANA time zone name of the form Area/City, such as "Europe/Paris", "America/New_York" or "Asia/Tokyo".`},
		{"JST", `timezone "JST" is a time zone abbreviation, not an IANA zone name; ` +
			`abbreviations are ambiguous and do not say when daylight saving time begins or ends. ` +
			`Use an IANA time zone name of the form Area/City: perhaps "Asia/Tokyo".`},
		{"IST", `timezone "IST" is a time zone abbreviation, not an IANA zone name; ` +
			`abbreviations are ambiguous and do not say when daylight saving time begins or ends. ` +
			`Use an IANA time zone name of the form Area/City: perhaps "Asia/Kolkata", "Europe/Dublin" or "Asia/Jerusalem".`},
		{"UTC+5", `timezone "UTC+5" is a UTC offset, not an IANA zone name. ` +
			`Use an IANA time zone name of the form Area/City for the place, which also follows its daylight saving time; ` +
			`for a fixed UTC+05:00 all year, use "Etc/GMT-5" (the Etc/GMT sign is inverted).`},
		{"+05:30", `timezone "+05:30" is a UTC offset, not an IANA zone name. ` +
			`Use an IANA time zone name of the form Area/City for the place, which also follows its daylight saving time.`},
	}
	for _, tt := range tests {
		_, err := Timestamp(time.Unix(0, 0), "", tt.zone)
		assert.EqualError(t, err, tt.want, "Timestamp(%q)", tt.zone)
	}
}

// update makes TestZoneNamesMatchGoroot rewrite zonenames.go.
var update = flag.Bool("update", false, "rewrite zonenames.go from $GOROOT/lib/time/zoneinfo.zip")

// TestZoneNamesMatchGoroot checks that zonenames.go lists exactly the zones
// in $GOROOT/lib/time/zoneinfo.zip, the archive time/tzdata embeds, so that
// the list holds exactly the names time.LoadLocation can always load. When
// it fails after a Go upgrade, run "go test ./tools -run TestZoneNames
// -update", which rewrites zonenames.go.
func TestZoneNamesMatchGoroot(t *testing.T) {
	skip := t.Skipf
	if *update {
		skip = t.Fatalf
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		skip("go env GOROOT: %v", err)
	}
	archive := filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip")
	z, err := zip.OpenReader(archive)
	if err != nil {
		skip("no tz database in GOROOT: %v", err)
	}
	defer func() { _ = z.Close() }()
	var names []string
	for _, f := range z.File {
		if !f.FileInfo().IsDir() {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	if *update {
		writeZoneNames(t, names)
		return
	}
	assert.Equal(t, names, zoneNames[:],
		"zoneNames differs from %s; run go test ./tools -run TestZoneNames -update", archive)
}

// writeZoneNames writes zonenames.go, which declares zoneNames, the names
// of the zones in the tz database, sorted.
func writeZoneNames(t *testing.T, names []string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by \"go test ./tools -run TestZoneNames -update\" from $GOROOT/lib/time/zoneinfo.zip; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package tools\n\n")
	fmt.Fprintf(&b, "// zoneNames holds the %d zone names of the tz database that time/tzdata\n", len(names))
	fmt.Fprintf(&b, "// embeds, spelled as the database spells them, in byte order.\n")
	fmt.Fprintf(&b, "var zoneNames = [...]string{\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q,\n", n)
	}
	fmt.Fprintf(&b, "}\n")
	src, err := format.Source(b.Bytes())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile("zonenames.go", src, 0o644))
}

// TestZoneNamesLoad checks that every listed zone loads, in any letter case,
// and that no two names differ only in case, so lower-casing a name finds
// one zone.
func TestZoneNamesLoad(t *testing.T) {
	assert.Len(t, zoneByFold(), len(zoneNames), "two zone names differ only in case")
	for _, name := range zoneNames {
		for _, spelling := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			loc, got, err := loadZone(spelling)
			if assert.NoError(t, err, "loadZone(%q)", spelling) {
				assert.Equal(t, name, got, "loadZone(%q) name", spelling)
				assert.Equal(t, name, loc.String(), "loadZone(%q) location", spelling)
			}
		}
	}
}

// TestSuggestionTables checks zones.txt line by line: each is blank, a
// comment, a section or "name: zone …"; every suggestion is a zone; no
// abbreviation listed is itself a zone (the database's own EST, CET or MST
// are accepted, never refused), and each is upper case; no two names differ
// only in case; and Timestamp refuses each name with its line's zones.
func TestSuggestionTables(t *testing.T) {
	isZone := func(name string) bool {
		_, ok := zoneByFold()[foldASCII(name)]
		return ok
	}
	section, names := "", map[string]int{}
	for i, line := range strings.Split(zonesTxt, "\n") {
		line = strings.TrimSpace(line) // as readZonesTxt reads it, \r\n included
		at := fmt.Sprintf("zones.txt:%d", i+1)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "[abbreviations]" || line == "[windows]":
			require.True(t, section == "" && line == "[abbreviations]" || section == "[abbreviations]",
				"%s: %s; want [abbreviations], then [windows]", at, line)
			section = line
			continue
		}
		require.NotEmpty(t, section, "%s: %q comes before [abbreviations]", at, line)
		name, list, ok := strings.Cut(line, ": ")
		require.True(t, ok, "%s: %q is not of the form name: zone …", at, line)
		zones := strings.Fields(list)
		require.NotEmpty(t, zones, "%s: %s suggests no zone", at, name)
		for _, z := range zones {
			assert.True(t, slices.Contains(zoneNames[:], z), "%s: %s suggests %s, which is not a zone", at, name, z)
		}
		names[section]++

		_, err := Timestamp(time.Unix(0, 0), "", name)
		var ze *ZoneError
		require.ErrorAs(t, err, &ze, "%s: Timestamp(%q)", at, name)
		assert.Equal(t, zones, ze.Suggestions, "%s: Timestamp(%q) suggestions", at, name)
		if section == "[abbreviations]" {
			assert.False(t, isZone(name), "%s: %s is a zone in the database", at, name)
			assert.Equal(t, strings.ToUpper(name), name, "%s: %s is not upper case", at, name)
			assert.Contains(t, err.Error(), "is a time zone abbreviation", "%s: Timestamp(%q)", at, name)
		} else {
			assert.Contains(t, err.Error(), "is a Windows time zone name", "%s: Timestamp(%q)", at, name)
		}
	}
	abbreviations, windowsZones := zonesTables()
	assert.Len(t, abbreviations, names["[abbreviations]"], "two abbreviations in zones.txt differ only in case")
	assert.Len(t, windowsZones, names["[windows]"], "two Windows names in zones.txt differ only in case")
}
