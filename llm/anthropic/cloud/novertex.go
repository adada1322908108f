//go:build !vertex

package cloud

import (
	"context"
	"fmt"
)

// VertexLinked reports whether this build serves Vertex AI.
const VertexLinked = false

// newVertex says that this build does not serve Vertex AI, and how to get one that does.
func newVertex(context.Context, func(string) string) (*Platform, error) {
	return nil, fmt.Errorf("%s: this ouro is built without Google Vertex AI (its SDK would add 5 MB and gRPC to every run); build it with `go build -tags vertex ./cmd/ouro`, or use the Anthropic API or Amazon Bedrock", UseVertex)
}
