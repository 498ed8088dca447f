package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// calls is interop/calls.json: the calls the checks make and what each
// must return, the same for every client in interop/ (see calls.mjs).
type calls struct {
	Valid   []call `json:"valid"`
	Invalid []call `json:"invalid"`
}

// offers is what the server itself offers, as interop/offers.mjs asked it:
// the capabilities of its initialize result and the tools of its
// tools/list. A client must show each, as the server offers it.
type offers struct {
	Capabilities map[string]any `json:"capabilities"`
	Tools        []tool         `json:"tools"`
}

// A call is one tools/call request and what its result must be: for a
// valid call, the exact text of the first content block, a subset of the
// structuredContent, and regular expressions its string fields match; for
// an invalid one, whether the inputSchema alone refuses the arguments.
type call struct {
	Tool              string            `json:"tool"`
	Arguments         map[string]any    `json:"arguments"`
	Text              *string           `json:"text"`
	StructuredContent map[string]any    `json:"structuredContent"`
	Patterns          map[string]string `json:"patterns"`
	SchemaRefuses     bool              `json:"schemaRefuses"`
}

// String renders the call for a check's name, as calls.mjs does.
func (c call) String() string {
	args, _ := json.Marshal(c.Arguments)
	return c.Tool + " " + string(args)
}

// readJSON reads file, a JSON document, into v.
func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// firstOfEach keeps the first call of each tool in list.
func firstOfEach(list []call) []call {
	var first []call
	for _, c := range list {
		if !slices.ContainsFunc(first, func(f call) bool { return f.Tool == c.Tool }) {
			first = append(first, c)
		}
	}
	return first
}

// A tool is a tools/list entry as a client library parsed it, seen through
// JSON: what the library would hand a host.
type tool struct {
	Name         string         `json:"name"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
}

// A result is a tools/call result as a client library parsed it, seen
// through JSON.
type result struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
}

// viaJSON converts v, a library's own type, to out through its JSON form.
func viaJSON(v, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// names returns the names of the server's tools, in its order.
func (o *offers) names() []string {
	var names []string
	for _, t := range o.Tools {
		names = append(names, t.Name)
	}
	return names
}

// expectTools checks the tools a client listed against the server's own:
// the same names, each an object input schema with the same properties
// and required list, and an outputSchema where the server's tool has one.
func (o *offers) expectTools(tools []tool) error {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	if !sameSet(names, o.names()) {
		return fmt.Errorf("tools are %v, the server's are %v", names, o.names())
	}
	for _, t := range tools {
		w := o.Tools[slices.IndexFunc(o.Tools, func(w tool) bool { return w.Name == t.Name })]
		if err := all(
			expect(t.InputSchema["type"] == "object", "%s: inputSchema.type is %v", t.Name, t.InputSchema["type"]),
			expect(sameSet(t.properties(), w.properties()), "%s: inputSchema properties are %v, the server's %v", t.Name, t.properties(), w.properties()),
			expect(sameSet(t.required(), w.required()), "%s: inputSchema.required is %v, the server's %v", t.Name, t.required(), w.required()),
			expect((t.OutputSchema != nil) == (w.OutputSchema != nil), "%s: outputSchema is %v", t.Name, t.OutputSchema),
		); err != nil {
			return err
		}
	}
	return nil
}

// properties returns the names of the properties of t's inputSchema.
func (t tool) properties() []string {
	properties, _ := t.InputSchema["properties"].(map[string]any)
	return slices.Collect(maps.Keys(properties))
}

// required returns the required list of t's inputSchema.
func (t tool) required() []string {
	var required []string
	list, _ := t.InputSchema["required"].([]any)
	for _, r := range list {
		required = append(required, fmt.Sprint(r))
	}
	return required
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// expectValid checks the result of a valid call.
func (c call) expectValid(r result) error {
	if r.IsError {
		return fmt.Errorf("isError: %v", r.Content)
	}
	if len(r.Content) == 0 || r.Content[0].Type != "text" {
		return fmt.Errorf("no text content block in %+v", r)
	}
	if c.Text != nil && r.Content[0].Text != *c.Text {
		return fmt.Errorf("text is %q, want %q", r.Content[0].Text, *c.Text)
	}
	for key, want := range c.StructuredContent {
		if got := r.StructuredContent[key]; !reflect.DeepEqual(got, want) {
			return fmt.Errorf("structuredContent.%s is %#v, want %#v", key, got, want)
		}
	}
	for key, pattern := range c.Patterns {
		got, _ := r.StructuredContent[key].(string)
		if !regexp.MustCompile(pattern).MatchString(got) {
			return fmt.Errorf("structuredContent.%s is %q, want /%s/", key, got, pattern)
		}
	}
	return nil
}

// expectToolError checks the result of an invalid call: isError set, and a
// text block that says what was wrong (its wording is not checked).
func expectToolError(r result) error {
	if !r.IsError {
		return fmt.Errorf("isError is false: %+v", r)
	}
	if len(r.Content) == 0 || r.Content[0].Type != "text" || strings.TrimSpace(r.Content[0].Text) == "" {
		return fmt.Errorf("no text saying why in %+v", r)
	}
	return nil
}
