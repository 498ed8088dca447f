package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// A shape is what a look at a message tells of it before it is decoded.
type shape struct {
	depth    int     // how deeply it nests arrays and objects
	values   int     // about how many values it holds: one more than its commas and openings
	repeated *member // a name that one of its objects holds twice, or nil
}

// A member is a name in an object, as decoders read it: escapes undone,
// and each byte that is not UTF-8 read as U+FFFD.
type member struct {
	name  []byte
	at    int // the byte offset of its opening quote, 0-based
	depth int // of the object that holds it: 1 for the message itself
}

// shapeOf looks at data without decoding it, and stops counting past
// maxNesting or maxValues. Its names are of use once data is known to be
// JSON: for data that is not, they may be anything.
//
// A name twice in one object is refused anywhere in a message (RFC 8259,
// §4, lets each decoder read it as it will; RFC 7493, I-JSON, forbids it),
// since the decoders a request passes through read it differently:
// decoding into a struct keeps the first of "_meta":{…},"_meta":null (null
// leaves a struct as it was), into a map the last. Check saw a request of
// 2026-07-28, go-sdk one of no revision, and answered it with code 0; and
// go-sdk validates a tool's arguments as a map, while the tool reads them
// into a struct. One rule for every object is simpler than a list of the
// objects where decoders disagree.
func shapeOf(data []byte) shape {
	// objects[d] holds the names of the value open at depth d, if it is
	// an object; its names are kept for the next at that depth.
	var objects [maxNesting + 2]struct {
		isObject bool
		names    []member
	}
	s := shape{values: 1}
	depth := 0
	for i := 0; i < len(data) && s.depth <= maxNesting && s.values <= maxValues; i++ {
		switch c := data[i]; c {
		case '"':
			end := stringEnd(data, i)
			if depth > 0 && objects[depth].isObject && nextByte(data, end+1) == ':' {
				objects[depth].names = append(objects[depth].names, member{name: nameOf(data[i : end+1]), at: i, depth: depth})
			}
			i = end
		case '[', '{':
			depth++
			s.depth = max(s.depth, depth)
			s.values++
			if 0 < depth && depth < len(objects) { // data that is not JSON may close more than it opens
				objects[depth].isObject, objects[depth].names = c == '{', objects[depth].names[:0]
			}
		case ']', '}':
			if s.repeated == nil && depth > 0 && depth < len(objects) && objects[depth].isObject {
				s.repeated = twice(objects[depth].names)
			}
			depth--
		case ',':
			s.values++
		}
	}
	return s
}

// stringEnd returns the offset of the quote that ends the string whose
// opening quote is data[start], or len(data) if none does.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++ // the escaped byte is not a quote
		case '"':
			return i
		}
	}
	return len(data)
}

// nextByte returns the first byte of data from offset i that is not white
// space, or 0 if there is none.
func nextByte(data []byte, i int) byte {
	if i < len(data) {
		if rest := bytes.TrimLeft(data[i:], " \t\r\n"); len(rest) > 0 {
			return rest[0]
		}
	}
	return 0
}

// nameOf returns the name that quoted, a JSON string, holds, as
// encoding/json reads it.
func nameOf(quoted []byte) []byte {
	if len(quoted) >= 2 && bytes.IndexByte(quoted, '\\') < 0 && utf8.Valid(quoted) {
		return quoted[1 : len(quoted)-1] // as most are written: nothing to undo
	}
	var name string
	if json.Unmarshal(quoted, &name) != nil {
		return quoted // not JSON, which Decode refuses for that
	}
	return []byte(name)
}

// twice returns the second of a name that names holds twice, or nil. It
// sorts names.
func twice(names []member) *member {
	slices.SortStableFunc(names, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	for i := 1; i < len(names); i++ {
		if bytes.Equal(names[i].name, names[i-1].name) {
			second := names[i] // names is kept for the next object
			return &second
		}
	}
	return nil
}
