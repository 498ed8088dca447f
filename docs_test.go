package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README and the pages of docs/ are part of the lesson, so nothing in
// them may go stale. They are checked against what they speak of, never
// against their own wording: what they show the server do, against the
// server (docs_examples_test.go); what they say of the hosts, against the
// hosts' captures (docs_captures_test.go); and here, that what they point
// at is there: each link's file, the files an exercise's solution touches,
// the tests each guarantee names, and the functions a call's way names.

// docPages returns the README and each page of docs/, by file name.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	texts := make(map[string]string)
	for _, page := range append([]string{"README.md"}, pages...) {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		texts[page] = string(data)
	}
	return texts
}

// readme returns the README and the pages of docs/, one after the other.
func readme(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, text := range docPages(t) {
		all.WriteString(text)
	}
	return all.String()
}

// TestLinks checks that every relative link of the README, docs/ and the
// exercises' hints leads to a file of the repository.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	hints, err := filepath.Glob(filepath.Join("exercises", "*.md"))
	require.NoError(t, err)
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	for _, page := range append(append([]string{"README.md"}, pages...), hints...) {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if !strings.Contains(m[1], "://") {
				_, err := os.Stat(filepath.Join(filepath.Dir(page), m[1]))
				assert.NoError(t, err, "%s links %s", page, m[1])
			}
		}
	}
}

// TestExerciseHints checks that each exercise's hints, exercises/N-NAME.md,
// name in backticks every file its reference solution, N-NAME.patch,
// touches (itself, or by a pattern such as `testdata/*.txtar`): a learner
// who follows the hints is never left to find a file alone. (.ci/exercises
// checks that go test passes with each applied.)
func TestExerciseHints(t *testing.T) {
	patches, err := filepath.Glob(filepath.Join("exercises", "*.patch"))
	require.NoError(t, err)
	require.NotEmpty(t, patches)
	touched := regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)
	backticked := regexp.MustCompile("`([^`]+)`")
	for _, patch := range patches {
		hints, err := os.ReadFile(strings.TrimSuffix(patch, ".patch") + ".md")
		require.NoError(t, err, "%s has no hints beside it", patch)
		assert.Contains(t, readme(t), "("+strings.TrimSuffix(patch, ".patch")+".md)", "the README links no hints of %s", patch)
		data, err := os.ReadFile(patch)
		require.NoError(t, err)
		files := touched.FindAllStringSubmatch(string(data), -1)
		require.NotEmpty(t, files, "%s touches no file", patch)
		for _, f := range files {
			named := false
			for _, m := range backticked.FindAllStringSubmatch(string(hints), -1) {
				ok, _ := path.Match(m[1], f[1])
				named = named || ok
			}
			assert.True(t, named, "the hints of %s do not name %s, which it touches", patch, f[1])
		}
	}
}

// TestGuaranteesHeld: every line of docs/guarantees.md names the tests that
// hold it, each as a link to its file, and each is still declared there. A
// test renamed or deleted in a restructure fails here, not silently. A test
// that the default suite skips is marked so, † if it runs with
// MCP_HELLO_TOOLS_SLOW=1 (it calls slow), ‡ if with -stress N; every line
// names a test of the default suite, or says that only CI's runs hold it.
func TestGuaranteesHeld(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "guarantees.md"))
	require.NoError(t, err)
	held := regexp.MustCompile("\\[`((?:Test|Fuzz)\\w+)`\\]\\(\\.\\./([^)]+_test\\.go)\\)( ?[†‡])?")
	declared := map[string]map[string]string{} // file: its names, and what each is
	skipped := map[string]map[string]string{}  // file: its tests, and how the default suite skips each
	rows := 0
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| guarantee ") {
			continue
		}
		rows++
		tests := held.FindAllStringSubmatch(line, -1)
		if !assert.NotEmpty(t, tests, "docs/guarantees.md: no test holds %q", line) {
			continue
		}
		byDefault := false
		for _, m := range tests {
			name, file, mark := m[1], m[2], strings.TrimSpace(m[3])
			if declared[file] == nil {
				declared[file], skipped[file] = declaredIn(t, file), skippedIn(t, file)
			}
			ok := assert.Equal(t, "func", declared[file][name], "docs/guarantees.md names %s in %s, which does not declare it", name, file)
			assert.Equal(t, skipped[file][name], mark, "docs/guarantees.md: %s's mark (none: it runs in the default suite)", name)
			byDefault = byDefault || ok && skipped[file][name] == ""
		}
		assert.True(t, byDefault || strings.Contains(line, "held only by"),
			"docs/guarantees.md: no test of the default suite holds %q, and the line does not say so", line)
	}
	assert.Greater(t, rows, 30, "docs/guarantees.md has hardly any lines: is the pattern still right?")
}

// skippedIn returns, for each top-level Test and Fuzz function of a file,
// how the default suite skips it: "†" if it calls slow, "‡" if it reads the
// -stress flag, else "".
func skippedIn(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	names := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") && !strings.HasPrefix(fn.Name.Name, "Fuzz") {
			continue
		}
		names[fn.Name.Name] = ""
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "slow" {
					names[fn.Name.Name] = "†"
				}
			case *ast.StarExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "stress" {
					names[fn.Name.Name] = "‡"
				}
			}
			return true
		})
	}
	return names
}

// TestInternalsPath: each function, method, type or variable that
// docs/internals.md's way of a call names in backticks is declared in the
// file the page links last before it, so that a reader finds each step
// where the page says.
func TestInternalsPath(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "internals.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "## One call's way, forward")
	require.True(t, ok, "docs/internals.md has no section \"One call's way, forward\"")
	section, _, _ = strings.Cut(section, "\n## ")
	_, steps, _ := strings.Cut(section, "\n### ")
	mark := regexp.MustCompile("\\]\\(\\.\\./([^)]+\\.go)\\)|`([A-Za-z_][A-Za-z0-9_]*)`")
	declared := map[string]map[string]string{} // file: its names, and what each is
	file, names := "", 0
	for _, m := range mark.FindAllStringSubmatch(steps, -1) {
		if m[1] != "" {
			file = m[1]
			continue
		}
		if !assert.NotEmpty(t, file, "docs/internals.md names %s before it links a file", m[2]) {
			continue
		}
		if declared[file] == nil {
			declared[file] = declaredIn(t, file)
		}
		names++
		assert.NotEmpty(t, declared[file][m[2]], "docs/internals.md says %s is in %s, which does not declare it", m[2], file)
	}
	assert.Greater(t, names, 20, "docs/internals.md's way of a call names hardly any code")
}

// declaredIn returns the names file declares at its top level, methods by
// their names alone, each with what it is: "func", "method", "type" or
// "value".
func declaredIn(t *testing.T, file string) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	names := map[string]string{}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if names[decl.Name.Name] = "func"; decl.Recv != nil {
				names[decl.Name.Name] = "method"
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					names[spec.Name.Name] = "type"
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						names[id.Name] = "value"
					}
				}
			}
		}
	}
	return names
}

// TestLessonImportsNoInternal: server.go, the lesson's server, is built on
// go-sdk alone, as docs/internals.md's rooms say: the workarounds under
// internal/ are installed by the product (main.go), never by the lesson.
func TestLessonImportsNoInternal(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, parser.ImportsOnly)
	require.NoError(t, err)
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(path, modulePath+"/internal/"),
			"server.go imports %s: the lesson uses go-sdk alone; install a workaround in main.go", path)
	}
	assert.NotEmpty(t, f.Imports, "server.go imports nothing: is it still the lesson's server?")
}
