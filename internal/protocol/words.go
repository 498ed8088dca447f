package protocol

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The words both transports and the middleware speak: how much of what a
// client sent a message quotes, how it is quoted, and the names of JSON's
// kinds of value.

// MaxQuote is the most of what a client sent, in bytes, that a message
// quotes back (a method, an id, a header, an argument), and the longest
// error message taken from go-sdk or a handler, which may quote what a
// client sent whole: a client may send megabytes of any of them.
const MaxQuote = 200

// Errorf returns a JSON-RPC error with the given code and message.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Cut returns s cut to n bytes, without a broken character, and "…": a
// reply quotes at most a little of what a client sent.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Inert returns s cut to MaxQuote bytes, with each character a terminal
// would act on rather than show written as Go quotes it: C0, DEL and C1
// controls (ESC and U+009B start terminal commands) as \x1b and \u009b,
// formatting characters such as the bidirectional override U+202E as
// \u202e, and the line and paragraph separators. A message of go-sdk's may
// quote a client's header whole; a log or a terminal shows it as text.
func Inert(s string) string {
	var b strings.Builder
	for _, r := range Cut(s, MaxQuote) {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		}
	}
	return Cut(b.String(), MaxQuote)
}

// CutLogValue cuts each string a log line carries to MaxQuote bytes, as
// Cut does, but a panic's "stack": as a slog.HandlerOptions.ReplaceAttr, it
// makes a log line quote at most a little of what a client sent.
func CutLogValue(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindString && a.Key != "stack" {
		a.Value = slog.StringValue(Cut(a.Value.String(), MaxQuote))
	}
	return a
}

// schemaKind names the kind a JSON Schema type stands for ("integer" is a
// number), or returns "" for one not in kinds.
func schemaKind(schemaType string) string {
	for _, k := range kinds {
		if k.schemaType != "" && (k.schemaType == schemaType || k.name == "a number" && schemaType == "integer") {
			return k.name
		}
	}
	return ""
}

// goKind names the kind of JSON value that decodes into a Go value of k.
func goKind(goKind reflect.Kind) string {
	for _, k := range kinds {
		if slices.Contains(k.goKinds, goKind) {
			return k.name
		}
	}
	return "a JSON value"
}

// kinds are JSON's kinds of value as refusals name them, each with the
// kinds of jsontext's first token of one, its type in a JSON Schema, and the
// kinds of Go value that one decodes into.
var kinds = []struct {
	name, first, schemaType string
	goKinds                 []reflect.Kind
}{
	{"an object", "{", "object", []reflect.Kind{reflect.Map, reflect.Struct}},
	{"an array", "[", "array", []reflect.Kind{reflect.Slice, reflect.Array}},
	{"a string", `"`, "string", []reflect.Kind{reflect.String}},
	{"a boolean", "tf", "boolean", []reflect.Kind{reflect.Bool}},
	{"null", "n", "null", nil},
	{"a JSON value", "", "", []reflect.Kind{reflect.Interface}}, // any of them
	{"a number", "0", "number", []reflect.Kind{reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64}},
}
