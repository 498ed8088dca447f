package protocol

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk checks a call's arguments against the tool's inputSchema before
// the handler runs and, as MCP 2025-11-25 asks (SEP-1303), answers a
// failure with a tool result whose isError is set, so that the model can
// correct its call. But the text is the JSON Schema validator's own:
//
//	validating "arguments": validating root: validating /properties/expression: type: <invalid reflect.Value> has type "null", want "string"
//
// which a model can act on only by guessing. plainArguments says it as
//
//	invalid arguments for calculate: argument "expression" must be a string, not null

// schemaErrors match the messages of the validator (github.com/google/jsonschema-go)
// for the keywords the tools' input schemas use, and say each in plain words.
// The validator prints a list of names with %q, as ["a" "b"], and a list of
// enum values with %v, as [a b].
var schemaErrors = []struct {
	pattern *regexp.Regexp
	plain   func(m []string) string
}{
	{regexp.MustCompile(`(?s)^validating root: required: missing properties: \[(.*)\]$`),
		func(m []string) string { return "missing required argument " + commas(m[1]) }},
	{regexp.MustCompile(`(?s)^validating root: unexpected additional properties \[(.*)\]$`),
		func(m []string) string {
			return "unknown argument " + commas(m[1]) + "; use only the arguments in the tool's inputSchema"
		}},
	{regexp.MustCompile(`(?s)^validating root: validating /properties/([^:]*): type: .* has type "(.*)", want "(.*)"$`),
		func(m []string) string { return fmt.Sprintf("argument %q must be a %s, not %s", m[1], m[3], m[2]) }},
	{regexp.MustCompile(`(?s)^validating root: validating /properties/([^:]*): enum: (.*) does not equal any of: \[(.*)\]$`),
		func(m []string) string {
			return fmt.Sprintf("argument %q is %s; it must be one of %s", m[1], quoteShort(m[2]), commas(fmt.Sprintf("%q", strings.Fields(m[3]))))
		}},
	// The SDK decodes the arguments before it validates them: a number
	// beyond float64 fails there.
	{regexp.MustCompile(`(?s)^unmarshaling arguments: .*cannot unmarshal "([^"]{1,40})[^"]*" into Go struct field .*\.([^ .]+) of type float64$`),
		func(m []string) string {
			return fmt.Sprintf("argument %q: the number %s is out of range for a 64-bit float", m[2], m[1])
		}},
}

// plainArguments rewrites, in res, go-sdk's tool error for arguments that
// fail call's tool's inputSchema. A message it does not recognise keeps the
// validator's detail, without the "validating root" noise.
func plainArguments(call *mcp.CallToolRequest, res mcp.Result) {
	result, ok := res.(*mcp.CallToolResult)
	if !ok || !result.IsError || len(result.Content) != 1 {
		return
	}
	text, ok := result.Content[0].(*mcp.TextContent)
	if !ok {
		return
	}
	detail, found := strings.CutPrefix(text.Text, `validating "arguments": `)
	if !found {
		return
	}
	plain := strings.TrimPrefix(detail, "validating root: ")
	for _, e := range schemaErrors {
		if m := e.pattern.FindStringSubmatch(detail); m != nil {
			plain = e.plain(m)
			break
		}
	}
	switch kind := Kind(call.Params.Arguments); kind {
	case "an object", "null", "nothing": // null or no arguments are no arguments
	default:
		plain = `arguments must be a JSON object, such as {"name": value}, not ` + kind
	}
	text.Text = fmt.Sprintf("invalid arguments for %s: %s", call.Params.Name, plain)
}

// quoteShort quotes s as a Go string, cut to its first 40 characters: an
// argument of a megabyte should not come back whole in the message.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(s)
}

// commas separates the names of a %q-printed list with commas.
func commas(list string) string { return strings.ReplaceAll(list, `" "`, `", "`) }
