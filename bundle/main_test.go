package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSecrets: a sensitive user_config value may reach the server in
// its environment, not in its arguments, where any user of the machine
// reads it; a value that is not sensitive may go either way.
func TestCheckSecrets(t *testing.T) {
	for _, c := range []struct {
		name, manifest string
		refused        bool
	}{
		{"sensitive, in env", `{"server": {"mcp_config": {"command": "x", "env": {"API_KEY": "${user_config.api_key}"}}},
			"user_config": {"api_key": {"sensitive": true}}}`, false},
		{"sensitive, in args", `{"server": {"mcp_config": {"command": "x", "args": ["--key=${user_config.api_key}"]}},
			"user_config": {"api_key": {"sensitive": true}}}`, true},
		{"sensitive, in a platform's args", `{"server": {"mcp_config": {"command": "x", "platform_overrides": {"win32": {"args": ["${user_config.api_key}"]}}}},
			"user_config": {"api_key": {"sensitive": true}}}`, true},
		{"sensitive, in args, named to act on a terminal", `{"server": {"mcp_config": {"command": "x", "platform_overrides": {"\u001b[2J\u202e": {"args": ["${user_config.\u009b2J}"]}}}},
			"user_config": {"\u009b2J": {"sensitive": true}}}`, true},
		{"not sensitive, in args", `{"server": {"mcp_config": {"command": "x", "args": ["${user_config.folder}"]}},
			"user_config": {"folder": {}}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m manifest
			if err := json.Unmarshal([]byte(c.manifest), &m); err != nil {
				t.Fatal(err)
			}
			err := m.checkSecrets("manifest.json")
			if refused := err != nil; refused != c.refused {
				t.Errorf("checkSecrets(%s) = %v, want refused %v", c.manifest, err, c.refused)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\x1b\u009b\u202e") {
				t.Errorf("checkSecrets(%s) = %q: a terminal would act on it", c.manifest, err)
			}
		})
	}
}

// TestManifestPaths: a manifest is refused, before anything is built, if
// the build would write outside where it should (the bundle's directory,
// bundle/out) or make a bundle with no server.
func TestManifestPaths(t *testing.T) {
	for _, c := range []struct {
		name, manifest, wantErr string // wantErr "": accepted
	}{
		{"as it should be", `{"name": "my-server", "icon": "icon.png", "server": {"mcp_config": {"command": "${__dirname}/server/darwin/my-server",
			"platform_overrides": {"linux": {"command": "${__dirname}/server/linux/my-server"}}}},
			"compatibility": {"platforms": ["darwin", "linux"]}}`, ""},
		{"command leaves the bundle", `{"name": "x", "server": {"mcp_config": {"command": "${__dirname}/../../x"}},
			"compatibility": {"platforms": ["linux"]}}`, `linux's command "${__dirname}/../../x" leaves ${__dirname}`},
		{"a platform's command leaves the bundle", `{"name": "x", "server": {"mcp_config": {"command": "${__dirname}/x",
			"platform_overrides": {"win32": {"command": "${__dirname}/server/../../x.exe"}}}},
			"compatibility": {"platforms": ["linux", "win32"]}}`, `win32's command "${__dirname}/server/../../x.exe" leaves`},
		{"absolute command", `{"name": "x", "server": {"mcp_config": {"command": "${__dirname}//tmp/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `leaves ${__dirname}`},
		{"command not under __dirname", `{"name": "x", "server": {"mcp_config": {"command": "/usr/bin/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `is not under ${__dirname}/`},
		{"icon leaves", `{"name": "x", "icon": "../../secret.png", "server": {"mcp_config": {"command": "${__dirname}/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `icon "../../secret.png" is not beside the manifest`},
		{"absolute icon", `{"name": "x", "icon": "/etc/icon.png", "server": {"mcp_config": {"command": "${__dirname}/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `icon "/etc/icon.png" is not beside`},
		{"name leaves out/", `{"name": "../../x", "server": {"mcp_config": {"command": "${__dirname}/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `name "../../x" is not a file's name`},
		{"name a folder", `{"name": "a/b", "server": {"mcp_config": {"command": "${__dirname}/x"}},
			"compatibility": {"platforms": ["linux"]}}`, `name "a/b" is not a file's name`},
		{"no name", `{"server": {"mcp_config": {"command": "${__dirname}/x"}}, "compatibility": {"platforms": ["linux"]}}`, `name "" is not`},
		{"no platform", `{"name": "x", "server": {"mcp_config": {"command": "${__dirname}/x"}}}`, "compatibility.platforms is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "manifest.json")
			if err := os.WriteFile(file, []byte(c.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readManifest(file)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("readManifest(%s) = %v, want accepted", c.manifest, err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("readManifest(%s) = %v, want an error with %q", c.manifest, err, c.wantErr)
			}
		})
	}
}

// TestOutputIsADirectory: -o naming a directory is refused before
// anything is built, and the directory is left as it was.
func TestOutputIsADirectory(t *testing.T) {
	manifest, err := filepath.Abs(filepath.Join("testdata", "my-server", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "mine.mcpb")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(out, "kept")
	if err := os.WriteFile(kept, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(filepath.Dir(manifest), manifest, out)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("run(-o %s) = %v, want an error that says it is a directory", out, err)
	}
	if data, err := os.ReadFile(kept); err != nil || string(data) != "mine" {
		t.Errorf("-o %s: its file is now %q, %v", out, data, err)
	}
}
