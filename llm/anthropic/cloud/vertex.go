//go:build vertex

package cloud

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"golang.org/x/oauth2/google"
)

// VertexLinked reports whether this build serves Vertex AI.
const VertexLinked = true

func newVertex(ctx context.Context, env func(string) string) (*Platform, error) {
	project := strings.TrimSpace(env("ANTHROPIC_VERTEX_PROJECT_ID"))
	if project == "" {
		return nil, fmt.Errorf("%s: set ANTHROPIC_VERTEX_PROJECT_ID to your Google Cloud project", UseVertex)
	}
	r := strings.TrimSpace(env("CLOUD_ML_REGION"))
	if r == "" {
		r = "us-east5"
	}
	if !region.MatchString(r) {
		return nil, fmt.Errorf("%s: CLOUD_ML_REGION %q is no region name (such as us-east5 or global)", UseVertex, r)
	}
	const scope = "https://www.googleapis.com/auth/cloud-platform"
	var creds *google.Credentials
	var err error
	if path := env("GOOGLE_APPLICATION_CREDENTIALS"); path != "" && os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") == "" {
		// Given in the settings' env: Google's library reads only the process environment.
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			creds, err = google.CredentialsFromJSON(ctx, data, scope)
		}
	} else {
		creds, err = google.FindDefaultCredentials(ctx, scope)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: Google credentials: %w (run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS)", UseVertex, err)
	}
	host := vertexHost(r)
	var opt option.RequestOption
	if err := catch(func() { opt = vertex.WithCredentials(ctx, r, project, creds) }); err != nil {
		return nil, fmt.Errorf("%s: %w", UseVertex, err)
	}
	return &Platform{Name: "Google Vertex AI", Options: []option.RequestOption{opt}, Host: host, Region: r, Project: project,
		model: vertexModel}, nil
}
