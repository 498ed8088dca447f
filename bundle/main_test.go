package main

import (
	"encoding/json"
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
		})
	}
}
