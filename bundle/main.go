// Command bundle builds the server's MCP Bundle, out/NAME.mcpb: one file
// that Claude Desktop installs with a double-click, holding the server
// built for each platform, so that whoever installs it needs no Go.
//
// It reads manifest.json, the bundle's manifest (the format's
// specification: MANIFEST.md in github.com/modelcontextprotocol/mcpb),
// and builds the server of the directory above for each of its
// compatibility.platforms, to where its mcp_config says that platform's
// command is, beside manifest.json and its icon. Then mcpb, the format's
// own tool (pinned in package-lock.json, installed here with npm ci),
// checks the manifest and packs the bundle. It prints each binary's size and the time taken.
//
// Usage, from the checkout:
//
//	go -C bundle run .
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	macho "github.com/anchore/go-macholibre"
)

// A manifest is what the build reads of manifest.json.
type manifest struct {
	Name   string `json:"name"`
	Icon   string `json:"icon"` // a file beside manifest.json, packed with it
	Server struct {
		MCPConfig struct {
			Command           string `json:"command"`
			PlatformOverrides map[string]struct {
				Command string `json:"command"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
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
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func run() error {
	began := time.Now()
	m, err := readManifest("manifest.json")
	if err != nil {
		return err
	}
	if err := npmCI(); err != nil {
		return err
	}
	if err := mcpb("validate", "manifest.json"); err != nil {
		return err
	}
	dir := filepath.Join("out", m.Name) // the bundle's files, as packed
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, platform := range m.Compatibility.Platforms {
		began := time.Now()
		t, ok := targets[platform]
		if !ok {
			return fmt.Errorf("manifest.json: cannot build for platform %q; the platforms are darwin, linux and win32", platform)
		}
		file, err := m.command(platform)
		if err != nil {
			return err
		}
		file = filepath.Join(dir, filepath.FromSlash(file))
		if err := build(file, t); err != nil {
			return err
		}
		info, err := os.Stat(file)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s, %.1f MB, built in %.0f s\n", platform, file, float64(info.Size())/1e6, time.Since(began).Seconds())
	}
	for _, file := range []string{"manifest.json", m.Icon} {
		if file == "" {
			continue
		}
		if err := copyFile(filepath.Join(dir, filepath.FromSlash(file)), filepath.FromSlash(file)); err != nil {
			return err
		}
	}
	bundle := dir + ".mcpb"
	if err := mcpb("pack", dir, bundle); err != nil {
		return err
	}
	info, err := os.Stat(bundle)
	if err != nil {
		return err
	}
	fmt.Printf("\nbundle/%s: %.1f MB, built in %.0f s\n", bundle, float64(info.Size())/1e6, time.Since(began).Seconds())
	return nil
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
	return &m, nil
}

// command returns the path, in the bundle, of platform's command: its
// platform_overrides entry's, or else mcp_config's, under ${__dirname}, which
// Claude Desktop replaces with the directory it unpacks the bundle into.
func (m *manifest) command(platform string) (string, error) {
	command := m.Server.MCPConfig.Command
	if o := m.Server.MCPConfig.PlatformOverrides[platform]; o.Command != "" {
		command = o.Command
	}
	file, ok := strings.CutPrefix(command, "${__dirname}/")
	if !ok {
		return "", fmt.Errorf("manifest.json: %s's command %q is not under ${__dirname}/, the bundle's directory", platform, command)
	}
	return file, nil
}

// build builds the server for t into file: for one processor, or for
// several as one universal (Mach-O "fat") file of them.
func build(file string, t target) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if len(t.arches) == 1 {
		return goBuild(file, t.goos, t.arches[0])
	}
	var parts []string
	for _, arch := range t.arches {
		part := file + "." + arch
		if err := goBuild(part, t.goos, arch); err != nil {
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

// goBuild builds the main package of the directory above, the server, for
// goos and goarch, into file.
func goBuild(file, goos, goarch string) error {
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", file, ".")...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=%s GOARCH=%s go build: %w", goos, goarch, err)
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
	return os.WriteFile(dst, data, 0o644)
}
