package stdio_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/stdio"
)

// A server reads requests from any io.Reader and writes replies to any
// io.Writer. The line that is not JSON is answered with a parse error, and
// the session goes on: the ping after it is answered too. When the input
// ends, Run returns.
func ExampleTransport() {
	server := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	input := strings.NewReader(`{oops` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	err := server.Run(context.Background(), &stdio.Transport{Reader: input, Writer: os.Stdout})
	fmt.Println("Run:", err)
	// Output:
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at column 2: invalid character 'o' looking for beginning of object key string"}}
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// Run: <nil>
}
