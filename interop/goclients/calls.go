package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// calls is interop/calls.json: the wire contract the checks rely on, the
// same for every client in interop/ (see calls.mjs).
type calls struct {
	Tools map[string]struct {
		Properties   []string `json:"properties"`
		Required     []string `json:"required"`
		OutputSchema bool     `json:"outputSchema"`
	} `json:"tools"`
	Valid   []call `json:"valid"`
	Invalid []call `json:"invalid"`
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

func readCalls(file string) (*calls, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cs calls
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &cs, nil
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

// expectTools checks the tools against calls.json: the names, object input
// schemas with the properties and required list each must have, and an
// outputSchema where there must be one.
func (cs *calls) expectTools(tools []tool) error {
	var names, want []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	for name := range cs.Tools {
		want = append(want, name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		return fmt.Errorf("tools are %v, want %v", names, want)
	}
	for _, t := range tools {
		w := cs.Tools[t.Name]
		var props []string
		properties, _ := t.InputSchema["properties"].(map[string]any)
		for p := range properties {
			props = append(props, p)
		}
		var required []string
		list, _ := t.InputSchema["required"].([]any)
		for _, r := range list {
			required = append(required, fmt.Sprint(r))
		}
		if err := all(
			expect(t.InputSchema["type"] == "object", "%s: inputSchema.type is %v", t.Name, t.InputSchema["type"]),
			expect(sameSet(props, w.Properties), "%s: inputSchema properties are %v, want %v", t.Name, props, w.Properties),
			expect(sameSet(required, w.Required), "%s: inputSchema.required is %v, want %v", t.Name, required, w.Required),
			expect((t.OutputSchema != nil) == w.OutputSchema, "%s: outputSchema is %v", t.Name, t.OutputSchema),
		); err != nil {
			return err
		}
	}
	return nil
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
