package protocol

// The JSON-level checks of a message, made by jsontext (the prototype of
// Go's encoding/json/v2) before any decoder builds a value of it: how
// deeply it nests, how many values it holds, a name twice in one object,
// its top-level members as sent, and what an id, a string and a kind of
// value are.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxNesting is how deeply a message may nest arrays and objects, and
// maxValues how many values it may hold: MCP needs a few levels and a few
// hundred values, and the decoders' stacks grow with depth, their time and
// memory with values (8 MiB of {} is 2.8 million maps).
const (
	maxNesting = 64
	maxValues  = 10_000
)

// A scan is what one read of a message's tokens found.
type scan struct {
	jsonrpc, id, method, params json.RawMessage // its top-level members as sent, or nil

	deep, many bool // nested past maxNesting, or more than maxValues values: the read stopped there
	broken     bool // not one JSON value: diagnose says why

	// repeated is a name twice in one object, at its second: refused
	// anywhere in a message (RFC 8259, §4, lets each decoder read it as it
	// will; RFC 7493, I-JSON, forbids it), since the decoders a request
	// passes read it differently: a struct keeps the first of
	// "_meta":{…},"_meta":null (null leaves it as it was), a map the last;
	// and go-sdk validates a tool's arguments as a map, while the tool reads
	// them into a struct.
	repeated *jsontext.SyntacticError
}

// scanOf reads data, a message, token by token. Bytes that are not UTF-8
// are read as U+FFFD, as encoding/json reads them: only an id must be valid
// Unicode (badID), since a reply carries it back.
func scanOf(data []byte) scan {
	var s scan
	err := s.read(data)
	if errors.As(err, &s.repeated) && errors.Is(err, jsontext.ErrDuplicateName) {
		s = scan{repeated: s.repeated} // the bounds past the name still stand
		err = s.read(data, jsontext.AllowDuplicateNames(true))
	}
	s.broken = err != nil
	return s
}

// read reads data's tokens until its end, an error, or a bound passed.
func (s *scan) read(data []byte, opts ...jsontext.Options) error {
	d := jsontext.NewDecoder(bytes.NewBuffer(data), append(opts, jsontext.AllowInvalidUTF8(true))...)
	var member *json.RawMessage // the top-level member whose value is being read
	var start int64             // where its value starts, before ':'
	for values, tops := 0, 0; ; {
		tok, err := d.ReadToken()
		switch {
		case errors.Is(err, io.EOF) && tops == 1:
			return nil
		case errors.Is(err, io.EOF):
			return errNotOne // nothing
		case err != nil:
			return err
		}
		depth, k := d.StackDepth(), tok.Kind()
		in, length := d.StackIndex(depth)
		name := in == '{' && length%2 == 1
		if !name && k != '}' && k != ']' {
			values++
		}
		switch {
		case depth > maxNesting:
			s.deep = true
			return nil
		case values > maxValues:
			s.many = true
			return nil
		case depth == 0:
			if tops++; tops > 1 {
				return errNotOne // text after the message
			}
		case depth == 1 && name:
			member, start = s.member(tok.String()), d.InputOffset()
		case depth == 1 && member != nil:
			*member = bytes.TrimLeft(data[start:d.InputOffset()], " \t\r\n:")
			member = nil
		}
	}
}

var errNotOne = errors.New("not one JSON value")

// member returns where s keeps the top-level member of that name, or nil.
// Names are case-sensitive: "ID" is not "id".
func (s *scan) member(name string) *json.RawMessage {
	switch name {
	case "jsonrpc":
		return &s.jsonrpc
	case "id":
		return &s.id
	case "method":
		return &s.method
	case "params":
		return &s.params
	}
	return nil
}

// text returns the string a JSON value holds, and whether it holds one
// (null does not, though encoding/json reads it into a string as "").
func text(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true // as most are written: no escapes to undo
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// idOf returns the id in raw, a message's "id" member as sent, or the zero
// ID if there is none that MCP allows (badID).
func idOf(raw json.RawMessage) jsonrpc.ID {
	var id any
	if raw == nil || badID(raw) != "" || json.Unmarshal(raw, &id) != nil {
		return jsonrpc.ID{}
	}
	made, _ := jsonrpc.MakeID(id) // a string, or an integer held exactly in a float64
	return made
}

// badID says what is wrong with an id as sent, or returns "" for a string
// of valid Unicode or an integer that go-sdk reads exactly, into a float64.
// A string that is not valid Unicode is read as another, with U+FFFD in
// place of what is wrong: the reply would carry an id its client never sent.
func badID(raw json.RawMessage) string {
	switch n, err := strconv.ParseInt(string(raw), 10, 64); {
	case raw[0] == '"' && !utf8.Valid(raw):
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: it holds bytes that are not UTF-8, shown here as U+FFFD`,
			Inert(strings.ToValidUTF8(string(raw), "\ufffd")))
	case raw[0] == '"' && !jsontext.Value(raw).IsValid(): // UTF-8, so a lone half of a surrogate pair
		return fmt.Sprintf(`"id" must be valid Unicode, not %s: \ud800 to \udfff escape halves of a surrogate pair, `+
			`and each half must have its other`, Inert(string(raw)))
	case raw[0] == '"', err == nil && -1<<53 < n && n < 1<<53:
		return ""
	case string(raw) == "null":
		return `"id" must be a string or an integer, not null; leave it out to send a notification`
	}
	return fmt.Sprintf(`"id" must be a string or an integer within ±2^53, not %s`, Inert(string(raw)))
}

// kind names the kind of the JSON value data holds, from its first token:
// "an object", "null", "nothing" for white space…
func kind(data []byte) string {
	k := jsontext.Value(data).Kind()
	for _, kd := range kinds {
		if strings.IndexByte(kd.first, byte(k)) >= 0 {
			return kd.name
		}
	}
	return "nothing" // or what is not JSON, which decode refuses
}
