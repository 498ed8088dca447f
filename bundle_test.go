package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The MCP Bundle, bundle/: Claude Desktop installs the server from one
// file, with no Go (docs/hosts.md). Its manifest, bundle/manifest.json,
// repeats what the server says of itself, for Claude Desktop to show
// before the server runs: TestBundleManifest keeps the two equal, and
// TestBundleStartsAsClaudeDesktop starts a built bundle as Claude Desktop
// does.

// bundleManifestFile is the bundle's manifest, which "go -C bundle run ."
// packs as it is.
var bundleManifestFile = filepath.Join("bundle", "manifest.json")

// A bundleManifest is bundle/manifest.json: the fields of an MCP Bundle's
// manifest that it has (MANIFEST.md in github.com/modelcontextprotocol/mcpb),
// in its order. Each is a field of manifest_version 0.2 (0.3 adds icons,
// localization and _meta), which the oldest Claude Desktop that
// bundleClaudeDesktop names installs.
type bundleManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	DisplayName     string `json:"display_name"`
	Version         string `json:"version"`
	Description     string `json:"description"`
	LongDescription string `json:"long_description"`
	Author          struct {
		Name string `json:"name"`
	} `json:"author"`
	Icon   string `json:"icon"`
	Server struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command           string            `json:"command"`
			Env               map[string]string `json:"env,omitempty"`
			PlatformOverrides map[string]struct {
				Command string `json:"command"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	Compatibility struct {
		ClaudeDesktop string   `json:"claude_desktop"`
		Platforms     []string `json:"platforms"`
	} `json:"compatibility"`
	Tools      []bundleTool                `json:"tools"`
	UserConfig map[string]bundleUserOption `json:"user_config,omitempty"`
}

// A bundleUserOption is a value of user_config: what Claude Desktop asks
// the user for, in the extension's settings, for the manifest to pass the
// server as ${user_config.KEY}. A sensitive one is masked as it is typed,
// and stored securely.
type bundleUserOption struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Sensitive   bool   `json:"sensitive,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// bundleClaudeDesktop gives, for a manifest_version, the oldest Claude
// Desktop known to install a bundle of it, which the manifest's
// compatibility.claude_desktop asks for: Claude Desktop 1.0.211 installs
// 0.2 and refuses 0.3, asking for an update
// (github.com/modelcontextprotocol/mcpb/issues/143, open); no release is
// known to be the first that takes 0.3.
var bundleClaudeDesktop = map[string]string{"0.2": "1.0.211"}

// A bundleTool is a tool as a manifest lists it.
type bundleTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// readBundleManifest decodes a manifest, refusing a field bundleManifest
// lacks, which -update would drop.
func readBundleManifest(t *testing.T, data []byte) bundleManifest {
	t.Helper()
	var m bundleManifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&m), "decoding the bundle's manifest: a field it has must be one of bundleManifest's, so that -update keeps it")
	return m
}

// command returns the file, in the bundle, of platform's command: its
// platform_overrides entry's, or else mcp_config's, under ${__dirname}.
func (m bundleManifest) command(t *testing.T, platform string) string {
	command := m.Server.MCPConfig.Command
	if o := m.Server.MCPConfig.PlatformOverrides[platform]; o.Command != "" {
		command = o.Command
	}
	file, ok := strings.CutPrefix(command, "${__dirname}/")
	require.True(t, ok, "%s's command %q is not under ${__dirname}/", platform, command)
	return filepath.FromSlash(file)
}

// TestBundleManifest: bundle/manifest.json gives the server's name, title
// (as display_name) and version, its tools with their descriptions, and a
// long_description made of its instructions and tools, as the server's
// initialize and tools/list give them; "go test -run TestBundleManifest
// -update ." writes them in. Its icon is a PNG file beside it, and it asks
// for the Claude Desktop that bundleClaudeDesktop names for its
// manifest_version.
func TestBundleManifest(t *testing.T) {
	data, err := os.ReadFile(bundleManifestFile)
	require.NoError(t, err)
	m := readBundleManifest(t, data)

	session := connectInMemory(t, "2025-11-25")
	initialized := session.InitializeResult()
	info := initialized.ServerInfo
	list, err := session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	tools := []bundleTool{}
	for _, tool := range list.Tools {
		tools = append(tools, bundleTool{tool.Name, tool.Description})
	}
	long := bundleLongDescription(t, initialized.Instructions, list.Tools)
	if *update {
		m.Name, m.DisplayName, m.Version, m.Tools, m.LongDescription = info.Name, info.Title, info.Version, tools, long
		var out bytes.Buffer
		require.NoError(t, writeJSON(&out, m))
		require.NoError(t, os.WriteFile(bundleManifestFile, out.Bytes(), 0o644))
		data = out.Bytes()
	}

	fix := "run \"go test -run TestBundleManifest -update .\", and read the change: git diff bundle"
	assert.Equal(t, info.Name, m.Name, "%s: name is not the server's; %s", bundleManifestFile, fix)
	assert.Equal(t, info.Title, m.DisplayName, "%s: display_name is not the server's title; %s", bundleManifestFile, fix)
	assert.Equal(t, info.Version, m.Version, "%s: version is not the server's; %s", bundleManifestFile, fix)
	assert.Equal(t, tools, m.Tools, "%s: tools are not the server's tools/list; %s", bundleManifestFile, fix)
	assert.Equal(t, long, m.LongDescription, "%s: long_description is not the server's instructions and tools; %s", bundleManifestFile, fix)

	icon, err := os.Open(filepath.Join(filepath.Dir(bundleManifestFile), filepath.FromSlash(m.Icon)))
	require.NoError(t, err, "%s: its icon", bundleManifestFile)
	defer func() { assert.NoError(t, icon.Close()) }()
	config, err := png.DecodeConfig(icon)
	require.NoError(t, err, "%s: its icon, %s, is not a PNG file", bundleManifestFile, m.Icon)
	assert.Equal(t, [2]int{512, 512}, [2]int{config.Width, config.Height}, "%s: %s's size, in pixels (mcpb validate recommends 512 × 512)", bundleManifestFile, m.Icon)

	oldest, ok := bundleClaudeDesktop[m.ManifestVersion]
	require.True(t, ok, "%s: no Claude Desktop is known to take manifest_version %q: add it to bundleClaudeDesktop, with its source", bundleManifestFile, m.ManifestVersion)
	assert.Equal(t, ">="+oldest, m.Compatibility.ClaudeDesktop, "%s: compatibility.claude_desktop", bundleManifestFile)
	var canonical bytes.Buffer
	require.NoError(t, writeJSON(&canonical, m))
	assert.Equal(t, canonical.String(), string(data), "%s is not as -update writes it; %s", bundleManifestFile, fix)
}

// bundleLongDescription returns the manifest's long_description, the
// Markdown Claude Desktop shows on the bundle's page: the server's
// instructions, each tool by its title with its description's first
// sentence and whether it is read-only (its annotations' readOnlyHint), and
// the go-sdk it is built on.
func bundleLongDescription(t *testing.T, instructions string, tools []*mcp.Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", instructions)
	for _, tool := range tools {
		sentence, _, _ := strings.Cut(tool.Description, "\n")
		if i := strings.Index(sentence, ". "); i >= 0 {
			sentence = sentence[:i+1]
		}
		readOnly := ""
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			readOnly = " Read-only."
		}
		fmt.Fprintf(&b, "- **%s** (`%s`): %s%s\n", tool.Title, tool.Name, sentence, readOnly)
	}
	fmt.Fprintf(&b, "\nIt runs on your computer and needs no account, key or network. It is the server of mcp-hello-tools, a lesson in writing an MCP server in Go, on go-sdk %s.", goSDKVersion(t))
	return b.String()
}

// goSDKVersion returns the version of go-sdk this test is built with, as go.mod requires it.
func goSDKVersion(t *testing.T) string {
	info, ok := debug.ReadBuildInfo()
	require.True(t, ok, "the test binary has no build information")
	for _, dep := range info.Deps {
		if dep.Path == "github.com/modelcontextprotocol/go-sdk" {
			return dep.Version
		}
	}
	t.Fatal("the test binary is not built with github.com/modelcontextprotocol/go-sdk")
	return ""
}

// bundleVariable names the environment variable that gives
// TestBundleStartsAsClaudeDesktop the bundle to start.
const bundleVariable = "MCP_HELLO_TOOLS_BUNDLE"

// TestBundleStartsAsClaudeDesktop does with a built bundle what Claude
// Desktop does: unpacks it with mcpb, takes the command its manifest gives
// this platform with ${__dirname} resolved (bundle/resolve.mjs, with the
// code Claude Desktop uses), and starts it with only the variables
// Claude Desktop passes; then it drives a session of each revision
// Claude Desktop speaks (docs/hosts.md) through it, and calls each tool.
// It checks the binaries of the other platforms, which cannot run here,
// for their processors. It runs when MCP_HELLO_TOOLS_BUNDLE names a bundle,
// as in .ci/run after "go -C bundle run .", on Linux on amd64.
func TestBundleStartsAsClaudeDesktop(t *testing.T) {
	bundle := os.Getenv(bundleVariable)
	if bundle == "" {
		t.Skip("needs a bundle: run \"go -C bundle run .\" and set " + bundleVariable + "=bundle/out/mcp-hello-tools.mcpb")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("starts the bundle's linux/amd64 server")
	}
	dir, m := unpackBundle(t, bundle, bundleManifestFile)

	t.Run("binaries", func(t *testing.T) {
		checkBundleBinaries(t, dir, m)
	})
	t.Run("icon", func(t *testing.T) {
		packed, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m.Icon)))
		require.NoError(t, err, "the bundle's icon")
		source, err := os.ReadFile(filepath.Join(filepath.Dir(bundleManifestFile), filepath.FromSlash(m.Icon)))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(source, packed), "the bundle's %s is not bundle/%s: build it again", m.Icon, m.Icon)
	})

	config, env, err := claudeDesktopCommand(t, dir, m, nil)
	require.NoError(t, err)
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cmd := exec.Command(config.Command, config.Args...)
			cmd.Env = env
			cmd.Dir = t.TempDir() // not the bundle's: hosts start servers anywhere
			session := start(t, cmd).connect(t, v)
			info := session.InitializeResult().ServerInfo
			assert.Equal(t, []string{m.Name, m.DisplayName, m.Version}, []string{info.Name, info.Title, info.Version},
				"the bundle's server says it is not what its manifest says")
			assert.Equal(t, m.Tools, bundleTools(t, session), "the bundle's server's tools/list is not its manifest's tools")
			callEachTool(t, session)
		})
	}
}

// yourModule is a reader's own module, but for its go.mod: a server in
// the shape of examples/hello whose tool needs an API key, and the
// manifest of its bundle, which asks the user for the key.
var yourModule = filepath.Join("bundle", "testdata", "my-server")

// TestBundleOfYourOwnModule builds the bundle of another module than this
// one, as a reader builds their own: yourModule, made a module in a
// temporary directory as the README's "Your own server" makes one, and
// bundled by "go -C bundle run . -module DIR". Its manifest asks for an API
// key (user_config.api_key, sensitive and required) and passes it to the
// server in the environment (mcp_config.env). The test starts the bundle
// as Claude Desktop does with a key the user gave, and sees that the
// server has that key, and that the key is on no command line; without a
// key, Claude Desktop does not start the server. It runs with
// TestBundleStartsAsClaudeDesktop, which needs what "go -C bundle run ."
// installs (mcpb), and cross-compiles four binaries.
func TestBundleOfYourOwnModule(t *testing.T) {
	if os.Getenv(bundleVariable) == "" {
		t.Skip("needs mcpb: run \"go -C bundle run .\" and set " + bundleVariable + "=bundle/out/mcp-hello-tools.mcpb")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("starts the bundle's linux/amd64 server")
	}
	module := t.TempDir()
	files, err := os.ReadDir(yourModule)
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(yourModule, f.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(module, f.Name()), data, 0o644))
	}
	bundle := filepath.Join(t.TempDir(), "my-server.mcpb")
	for _, args := range [][]string{
		{"-C", module, "mod", "init", "my-server"},
		{"-C", module, "get", "github.com/modelcontextprotocol/go-sdk@" + goSDKVersion(t)},
		{"-C", module, "mod", "tidy"},
		{"-C", "bundle", "run", ".", "-module", module, "-o", bundle},
	} {
		out, err := exec.Command("go", args...).CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	}
	dir, m := unpackBundle(t, bundle, filepath.Join(yourModule, "manifest.json"))
	const key, variable = "sk-test-0123456789abcdef", "MY_SERVER_API_KEY"

	t.Run("without a key", func(t *testing.T) {
		_, _, err := claudeDesktopCommand(t, dir, m, nil)
		assert.Error(t, err, "Claude Desktop would start the server with no API key, which its manifest requires")
	})
	config, env, err := claudeDesktopCommand(t, dir, m, map[string]string{"api_key": key})
	require.NoError(t, err)
	assert.True(t, m.UserConfig["api_key"].Sensitive, "user_config.api_key is not sensitive: Claude Desktop would show it as it is typed")
	assert.Equal(t, key, config.Env[variable], "the key is not in the server's environment as %s", variable)
	assert.NotContains(t, strings.Join(append([]string{config.Command}, config.Args...), " "), key, "the key is on the server's command line")

	t.Run("as an mcpServers file", func(t *testing.T) {
		resolve := exec.Command("node", filepath.Join("bundle", "resolve.mjs"), "--config", dir)
		resolve.Stdin = strings.NewReader(`{"api_key": "` + key + `"}`)
		out, err := resolve.Output()
		require.NoError(t, err, "node bundle/resolve.mjs --config %s", dir)
		var file struct {
			MCPServers map[string]launch `json:"mcpServers"`
		}
		require.NoError(t, json.Unmarshal(out, &file), "bundle/resolve.mjs --config printed %s", out)
		want := config
		if want.Args == nil {
			want.Args = []string{}
		}
		assert.Equal(t, map[string]launch{m.Name: want}, file.MCPServers, "bundle/resolve.mjs --config printed %s", out)
	})

	cmd := exec.Command(config.Command, config.Args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	session := start(t, cmd).connect(t, "2025-11-25")
	assert.Equal(t, m.Tools, bundleTools(t, session), "the bundle's server's tools/list is not its manifest's tools")
	res := callTool(t, session, "key_fingerprint", map[string]any{})
	require.False(t, res.IsError, "key_fingerprint: %v", res.Content)
	sum := sha256.Sum256([]byte(key))
	assert.Equal(t, hex.EncodeToString(sum[:8]), res.Content[0].(*mcp.TextContent).Text, "the key the server has")
}

// unpackBundle unpacks bundle into a new directory with mcpb, as Claude
// Desktop does on install, and returns the directory and the bundle's
// manifest, which must be source's.
func unpackBundle(t *testing.T, bundle, source string) (string, bundleManifest) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(filepath.Join("bundle", "node_modules", ".bin", "mcpb"), "unpack", bundle, dir).CombinedOutput()
	require.NoError(t, err, "mcpb unpack %s:\n%s", bundle, out)
	packed, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	want, err := os.ReadFile(source)
	require.NoError(t, err)
	require.Equal(t, string(want), string(packed), "the bundle's manifest is not %s: build it again", source)
	return dir, readBundleManifest(t, packed)
}

// claudeDesktopCommand returns the command that Claude Desktop starts, on
// this platform, for the bundle unpacked in dir, whose manifest is m, when
// the user has entered userConfig in the extension's settings (with
// bundle/resolve.mjs, which resolves it with the code Claude Desktop uses),
// and the environment it starts it with: the variables Claude Desktop
// passes, and the command's env. It fails as Claude Desktop declines to
// start the server, when a required value is missing.
func claudeDesktopCommand(t *testing.T, dir string, m bundleManifest, userConfig map[string]string) (launch, []string, error) {
	t.Helper()
	input, err := json.Marshal(userConfig)
	require.NoError(t, err)
	resolve := exec.Command("node", filepath.Join("bundle", "resolve.mjs"), dir)
	resolve.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	resolve.Stderr = &stderr
	out, err := resolve.Output()
	if err != nil {
		return launch{}, nil, fmt.Errorf("node bundle/resolve.mjs %s: %w\n%s", dir, err, &stderr)
	}
	var config launch
	require.NoError(t, json.Unmarshal(out, &config), "bundle/resolve.mjs printed %s", out)
	require.Equal(t, filepath.Join(dir, m.command(t, "linux")), config.Command, "the command Claude Desktop would start on Linux")
	var env, names []string
	for _, k := range hostVariables {
		if v, ok := os.LookupEnv(k); ok {
			env, names = append(env, k+"="+v), append(names, k)
		}
	}
	for k, v := range config.Env {
		env, names = append(env, k+"="+v), append(names, k)
	}
	t.Logf("Claude Desktop would start %s %q with %s", config.Command, config.Args, strings.Join(names, ", "))
	return config, env, nil
}

// bundleTools returns the tools that session's server lists, as a
// manifest lists them.
func bundleTools(t *testing.T, session *mcp.ClientSession) []bundleTool {
	t.Helper()
	list, err := session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	tools := []bundleTool{}
	for _, tool := range list.Tools {
		tools = append(tools, bundleTool{tool.Name, tool.Description})
	}
	return tools
}

// checkBundleBinaries checks that each platform of the manifest has its
// command in the bundle, built for its processors: on macOS, one universal
// file for Apple silicon and Intel; on Linux, one that names no dynamic
// loader, so runs on any distribution (CGO_ENABLED=0); on Windows, a
// console program, whose standard input and output are the protocol's (a
// GUI program has none).
func checkBundleBinaries(t *testing.T, dir string, m bundleManifest) {
	assert.ElementsMatch(t, []string{"darwin", "linux", "win32"}, m.Compatibility.Platforms, "the platforms built")
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m.Server.EntryPoint)))
	assert.NoError(t, err, "the manifest's entry_point")
	for _, platform := range m.Compatibility.Platforms {
		file := filepath.Join(dir, m.command(t, platform))
		switch platform {
		case "darwin":
			f, err := macho.OpenFat(file)
			require.NoError(t, err, "%s is not a universal Mach-O file", file)
			var cpus []macho.Cpu
			for _, arch := range f.Arches {
				cpus = append(cpus, arch.Cpu)
				assert.Equal(t, macho.TypeExec, arch.Type, "%s for %v", file, arch.Cpu)
			}
			assert.ElementsMatch(t, []macho.Cpu{macho.CpuArm64, macho.CpuAmd64}, cpus, "%s holds", file)
			assert.NoError(t, f.Close())
		case "linux":
			f, err := elf.Open(file)
			require.NoError(t, err, "%s is not an ELF file", file)
			assert.Equal(t, elf.EM_X86_64, f.Machine, "%s", file)
			for _, p := range f.Progs {
				assert.NotEqual(t, elf.PT_INTERP, p.Type, "%s names a dynamic loader", file)
			}
			assert.NoError(t, f.Close())
		case "win32":
			f, err := pe.Open(file)
			require.NoError(t, err, "%s is not a PE file", file)
			assert.Equal(t, uint16(pe.IMAGE_FILE_MACHINE_AMD64), f.Machine, "%s", file)
			header, ok := f.OptionalHeader.(*pe.OptionalHeader64)
			require.True(t, ok, "%s is not a 64-bit program", file)
			assert.Equal(t, uint16(pe.IMAGE_SUBSYSTEM_WINDOWS_CUI), header.Subsystem, "%s is not a console program", file)
			assert.NoError(t, f.Close())
		default:
			t.Errorf("the manifest names platform %q, which this test does not know", platform)
		}
	}
}
