package stdio

import "testing"

// BenchmarkDecode measures decode on a tools/call request, the most common
// line a server reads.
func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"2 * (3 + 4)"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, bad := decode(line); bad != nil {
			b.Fatalf("decode(%s) = %s", line, bad.Message)
		}
	}
}
