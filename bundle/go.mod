module mcp-hello-tools/bundle

go 1.26.0

require github.com/anchore/go-macholibre v0.1.1

require (
	github.com/go-restruct/restruct v1.2.0-alpha // indirect
	github.com/pkg/errors v0.8.1 // indirect
)
