// Command bundle builds an MCP Bundle, a .mcpb file: one file that Claude
// Desktop installs with a double-click, holding a Go server built for each
// platform, so that whoever installs it needs no Go. By default it builds
// this repository's server; -module builds yours.
//
// It reads the bundle's manifest (the format's specification: MANIFEST.md
// in github.com/modelcontextprotocol/mcpb) and builds the main package of
// the module for each of its compatibility.platforms, to where its
// mcp_config says that platform's command is, beside manifest.json and its
// icon. Then mcpb, the format's own tool (pinned in package-lock.json,
// installed here with npm ci), checks the manifest and packs the bundle.
// It prints each binary's size and the time taken. It refuses a manifest
// that passes a sensitive user_config value (an API key) in a command's
// args, not its env.
//
// Usage, from the top of the checkout:
//
//	go -C bundle run . [-module DIR] [-manifest FILE] [-o FILE]
//
// Paths are taken from the top of the checkout, as the README's other
// commands are, though go -C runs this program in bundle/:
//
//	-module DIR     the module whose main package is the server (default: the checkout)
//	-manifest FILE  the bundle's manifest, with the files it names beside it
//	                (default: DIR/manifest.json; for the checkout, bundle/manifest.json)
//	-o FILE         the bundle to write (default: bundle/out/NAME.mcpb, NAME the manifest's)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	macho "github.com/anchore/go-macholibre"
)

// checkout is the top of the checkout, from bundle/, where go -C runs
// this program; a relative path given to it is taken from there.
const checkout = ".."

// A manifest is what the build reads of manifest.json.
type manifest struct {
	Name   string `json:"name"`
	Icon   string `json:"icon"` // a file beside manifest.json, packed with it
	Server struct {
		MCPConfig struct {
			command
			PlatformOverrides map[string]command `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Sensitive bool `json:"sensitive"`
	} `json:"user_config"`
}

// A command is how a host starts the server: mcp_config's, or a
// platform's in its platform_overrides.
type command struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// A target is what the server is built for on a platform: Go's name for
// the operating system (GOOS), and the processors (GOARCH).
type target struct {
	goos   string
	arches []string
}

// targets are the platforms the build knows, named as Node.js names them
// (process.platform), as the manifest does. A manifest gives a command
// per platform, not per processor, so macOS's is one universal file that
// holds the server for Apple silicon (arm64) and for Intel (amd64).
var targets = map[string]target{
	"darwin": {"darwin", []string{"arm64", "amd64"}},
	"linux":  {"linux", []string{"amd64"}},
	"win32":  {"windows", []string{"amd64"}},
}

// buildFlags make each binary hold no path of this machine (-trimpath);
// -s -w leave out the symbol table and DWARF, which halves the bundle,
// while a panic's stack trace still names each function and line. And
// goBuild sets CGO_ENABLED=0: no C compiler for each platform, and the
// Linux binary needs no C library, so runs on any distribution.
var buildFlags = []string{"-trimpath", "-ldflags=-s -w"}

func main() {
	module := flag.String("module", ".", "the module `DIR` whose main package is the server; \".\" is this checkout's")
	manifestFile := flag.String("manifest", "", "the bundle's manifest `FILE`, the files it names beside it (default: DIR/manifest.json; for this checkout, bundle/manifest.json)")
	out := flag.String("o", "", "the bundle `FILE` to write (default: bundle/out/NAME.mcpb, NAME the manifest's)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage, from the top of the checkout: go -C bundle run . [-module DIR] [-manifest FILE] [-o FILE]\npaths are relative to the top of the checkout\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*module, *manifestFile, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// run builds the bundle of the module in moduleDir, as manifestFile
// describes it, into out; each is a path from the top of the checkout,
// and manifestFile and out may be "" for their defaults.
func run(moduleDir, manifestFile, out string) (err error) {
	began := time.Now()
	moduleDir, manifestFile, err = locate(moduleDir, manifestFile)
	if err != nil {
		return err
	}
	m, err := readManifest(manifestFile)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join("out", m.Name+".mcpb")
	} else if out = fromCheckout(out); !strings.HasSuffix(out, ".mcpb") {
		return fmt.Errorf("-o %s: a bundle's name ends in .mcpb", shown(out))
	}
	if info, err := os.Stat(out); err == nil && info.IsDir() {
		return fmt.Errorf("-o %s is a directory: give the bundle's file, such as %s", shown(out), shown(filepath.Join(out, m.Name+".mcpb")))
	}
	if err := npmCI(); err != nil {
		return err
	}
	if err := mcpb("validate", manifestFile); err != nil {
		return err
	}
	// The bundle's files, as packed, in a directory of their own: not one
	// named after -o, which could be a directory of the user's.
	dir, err := os.MkdirTemp("", "bundle-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	if err := stage(dir, m, moduleDir, manifestFile); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := mcpb("pack", dir, out); err != nil {
		return err
	}
	info, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Printf("\n%s: %.1f MB, built in %.0f s\n", shown(out), float64(info.Size())/1e6, time.Since(began).Seconds())
	return nil
}

// locate returns the module's directory and its manifest's file, from
// bundle/, for those given from the top of the checkout: the manifest is
// by default manifest.json in the module's directory, or for this
// checkout's, whose top holds its Go files, bundle/manifest.json.
func locate(moduleDir, manifestFile string) (string, string, error) {
	moduleDir = fromCheckout(moduleDir)
	if manifestFile != "" {
		return moduleDir, fromCheckout(manifestFile), nil
	}
	module, err := os.Stat(moduleDir)
	if err != nil {
		return "", "", err
	}
	top, err := os.Stat(checkout)
	if err != nil {
		return "", "", err
	}
	if os.SameFile(module, top) {
		return moduleDir, "manifest.json", nil
	}
	return moduleDir, filepath.Join(moduleDir, "manifest.json"), nil
}

// stage puts into dir the bundle's files: the server built for each
// platform of the manifest m, where its command is; the manifest, from
// manifestFile; and its icon, from beside it.
func stage(dir string, m *manifest, moduleDir, manifestFile string) error {
	for _, platform := range m.Compatibility.Platforms {
		began := time.Now()
		t, ok := targets[platform]
		if !ok {
			return fmt.Errorf("%s: cannot build for platform %q; the platforms are darwin, linux and win32", manifestFile, platform)
		}
		file, err := m.command(manifestFile, platform)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(file))
		if err := build(path, moduleDir, t); err != nil {
			return err
		}
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s, %.1f MB, built in %.0f s\n", platform, file, float64(info.Size())/1e6, time.Since(began).Seconds())
	}
	if err := copyFile(filepath.Join(dir, "manifest.json"), manifestFile); err != nil {
		return err
	}
	if m.Icon == "" {
		return nil
	}
	icon := filepath.FromSlash(m.Icon)
	return copyFile(filepath.Join(dir, icon), filepath.Join(filepath.Dir(manifestFile), icon))
}

// fromCheckout returns path, given from the top of the checkout, from
// bundle/.
func fromCheckout(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(checkout, path)
}

// shown returns path, from bundle/, as from the top of the checkout.
func shown(path string) string {
	top, err := filepath.Abs(checkout)
	if err != nil || filepath.IsAbs(path) {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(top, abs); err == nil {
		return rel
	}
	return path
}

func readManifest(path string) (*manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.checkSecrets(path); err != nil {
		return nil, err
	}
	if err := m.checkPaths(path); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkPaths refuses a manifest that would have the build write outside
// where it should: a name that is not one file's (the bundle is
// out/NAME.mcpb), or a command or an icon whose path leaves the bundle's
// directory ("../x", an absolute path), which the build writes to; and one
// with no platform, whose bundle would hold no server.
func (m *manifest) checkPaths(path string) error {
	if m.Name == "" || !filepath.IsLocal(m.Name) || strings.ContainsAny(m.Name, `/\`) {
		return fmt.Errorf("%s: name %q is not a file's name, as the bundle's NAME.mcpb is: want letters, digits and '-', such as \"my-server\"", path, m.Name)
	}
	if len(m.Compatibility.Platforms) == 0 {
		return fmt.Errorf("%s: compatibility.platforms is empty: name those to build the server for, of darwin, linux and win32", path)
	}
	for _, platform := range m.Compatibility.Platforms {
		file, err := m.command(path, platform)
		if err != nil {
			return err
		}
		if !filepath.IsLocal(filepath.FromSlash(file)) {
			return fmt.Errorf("%s: %s's command %q leaves ${__dirname}, the bundle's directory: want a path inside it, such as \"${__dirname}/server/%s/%s\"", path, platform, "${__dirname}/"+file, platform, m.Name)
		}
	}
	if m.Icon != "" && !filepath.IsLocal(filepath.FromSlash(m.Icon)) {
		return fmt.Errorf("%s: icon %q is not beside the manifest: want a path inside its directory, such as \"icon.png\"", path, m.Icon)
	}
	return nil
}

// checkSecrets refuses a sensitive user_config value passed in a
// command's args: another user of the machine reads a process's command
// line (ps), and only its own user its environment.
func (m *manifest) checkSecrets(path string) error {
	commands := map[string]command{"mcp_config": m.Server.MCPConfig.command}
	for platform, c := range m.Server.MCPConfig.PlatformOverrides {
		commands["platform_overrides."+platform] = c
	}
	for key, option := range m.UserConfig {
		if !option.Sensitive {
			continue
		}
		variable := "${user_config." + key + "}"
		for where, c := range commands {
			for _, arg := range c.Args {
				if strings.Contains(arg, variable) {
					return fmt.Errorf("%s: %s's args pass %s, which is sensitive, on the command line, which other users of the machine can read: pass it in env, as \"env\": {\"NAME\": %[3]s}", path, strconv.Quote(where), strconv.Quote(variable))
				}
			}
		}
	}
	return nil
}

// command returns the path, in the bundle, of platform's command: its
// platform_overrides entry's, or else mcp_config's, under ${__dirname}, which
// Claude Desktop replaces with the directory it unpacks the bundle into.
func (m *manifest) command(path, platform string) (string, error) {
	command := m.Server.MCPConfig.Command
	if o := m.Server.MCPConfig.PlatformOverrides[platform]; o.Command != "" {
		command = o.Command
	}
	file, ok := strings.CutPrefix(command, "${__dirname}/")
	if !ok {
		return "", fmt.Errorf("%s: %s's command %q is not under ${__dirname}/, the bundle's directory", path, platform, command)
	}
	return file, nil
}

// build builds the main package of moduleDir for t into file: for one
// processor, or for several as one universal (Mach-O "fat") file of them.
func build(file, moduleDir string, t target) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if len(t.arches) == 1 {
		return goBuild(file, moduleDir, t.goos, t.arches[0])
	}
	var parts []string
	for _, arch := range t.arches {
		part := file + "." + arch
		if err := goBuild(part, moduleDir, t.goos, arch); err != nil {
			return err
		}
		parts = append(parts, part)
	}
	if err := macho.Package(file, parts...); err != nil {
		return fmt.Errorf("a universal binary of %s: %w", strings.Join(parts, ", "), err)
	}
	for _, part := range parts {
		if err := os.Remove(part); err != nil {
			return err
		}
	}
	return nil
}

// goBuild builds the main package of moduleDir for goos and goarch, into
// file.
func goBuild(file, moduleDir, goos, goarch string) error {
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", file, ".")...)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=%s GOARCH=%s go build, in %s: %w", goos, goarch, moduleDir, err)
	}
	return nil
}

// npmCI installs mcpb as package-lock.json has it, unless it is installed
// already: a copy of the lock file in node_modules marks the install.
func npmCI() error {
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		return err
	}
	marker := filepath.Join("node_modules", ".bundle-lock")
	if installed, err := os.ReadFile(marker); err == nil && bytes.Equal(installed, lock) {
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci, which installs mcpb (it needs Node.js and npm): %w", err)
	}
	return os.WriteFile(marker, lock, 0o644)
}

// mcpb runs the mcpb command with args.
func mcpb(args ...string) error {
	cmd := exec.Command("node", append([]string{filepath.Join("node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mcpb %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

func copyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
