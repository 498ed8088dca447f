package protocol

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk answers arguments that fail a tool's inputSchema with a tool error
// (SEP-1303), for the model to correct its call, in the validator's words:
//
//	validating "arguments": validating root: validating /properties/expression: type: <invalid reflect.Value> has type "null", want "string"
//
// plainArguments says it as
//
//	invalid arguments for calculate: argument "expression" must be a string, not null

// schemaErrors match the messages of github.com/google/jsonschema-go for the
// keywords the tools' schemas use, which print names as ["a" "b"] and enum
// values as [a b], and say each in plain words; compiled at the first use.
var schemaErrors = sync.OnceValue(func() []schemaError {
	return []schemaError{
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
		// A number beyond float64 fails as the SDK decodes the arguments.
		{regexp.MustCompile(`(?s)^unmarshaling arguments: .*cannot unmarshal "([^"]{1,40})[^"]*" into Go struct field .*\.([^ .]+) of type float64$`),
			func(m []string) string {
				return fmt.Sprintf("argument %q: the number %s is out of range for a 64-bit float", m[2], m[1])
			}},
	}
})

type schemaError struct {
	pattern *regexp.Regexp
	plain   func(m []string) string
}

// plainArguments rewrites go-sdk's tool error in res for arguments that
// fail the inputSchema; a message it does not know loses only its noise.
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
	for _, e := range schemaErrors() {
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

// quoteShort quotes s, cut to its first 40 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(s)
}

// commas separates the names of a %q-printed list with commas, and cuts a
// list longer than 200 bytes: a tool error is no longer than it need be.
func commas(list string) string {
	return strings.ReplaceAll(cutAt(list, 200), `" "`, `", "`)
}
