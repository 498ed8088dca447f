package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCalculateDigits calls calculate through the real binary, over stdio,
// and reads result as a host written in JavaScript does, parsing every JSON
// number into a float64, in structuredContent and in the text block: result
// is a string, so the parse cannot round it (121932631112635269 would be
// 121932631112635260 as a number).
func TestCalculateDigits(t *testing.T) {
	tests := []struct {
		expression, result string
		exact              bool
	}{
		{"123456789 * 987654321", "121932631112635269", true},
		{"2^64", "18446744073709551616", true},
		{"2^53 + 1", "9007199254740993", true},
		{"0.1 + 0.2", "0.3", true},
		{"0.07 * 100", "7", true},
		{"3.3 * 3", "9.9", true},
		{"1 - 0.9", "0.1", true},
		{"1.1 * 1.1", "1.21", true},
		{"10^-30", "1e-30", true},
		{"2^70", "1.180591620717411303424e+21", true},
		{"-0", "0", true},
		{"1/3", "0.3333333333333333", false},
		{"2^0.5", "1.4142135623730951", false},
		{"(2^0.5)^2", "2.0000000000000004", false},
		{"2^-400", "3.8725919148493183e-121", false},
	}
	s := startWireServer(t)
	s.send(t, wireInit)
	s.send(t, wireInitialized)
	require.Nil(t, s.receive(t).Error)
	for i, tt := range tests {
		expression, err := json.Marshal(tt.expression)
		require.NoError(t, err)
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":%s}}}`, i+2, expression))
		resp := s.receive(t)
		require.Nil(t, resp.Error, "tools/call calculate %q", tt.expression)
		var result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		require.NoError(t, json.Unmarshal(resp.Result, &result))
		require.Len(t, result.Content, 1, "calculate %q: content", tt.expression)
		for where, data := range map[string][]byte{
			"structuredContent": result.StructuredContent,
			"the text block":    []byte(result.Content[0].Text),
		} {
			var out map[string]any // as JSON.parse reads it
			require.NoError(t, json.Unmarshal(data, &out), "calculate %q: %s is %s", tt.expression, where, data)
			assert.Equal(t, tt.result, out["result"], "calculate %q: result in %s", tt.expression, where)
			assert.Equal(t, tt.exact, out["exact"], "calculate %q: exact in %s", tt.expression, where)
		}
	}
}
