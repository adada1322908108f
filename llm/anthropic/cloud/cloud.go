// Package cloud serves Claude models from Amazon Bedrock or Google Vertex AI instead of
// the Anthropic API, as Claude Code does under CLAUDE_CODE_USE_BEDROCK and
// CLAUDE_CODE_USE_VERTEX, through the Anthropic Go SDK's bedrock and vertex packages (the
// request is the Messages API's; the SDK rewrites its URL and body and signs it).
//
// Bedrock: the region is AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1; credentials
// are the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
// SSO, ...) or AWS_BEARER_TOKEN_BEDROCK. Vertex: ANTHROPIC_VERTEX_PROJECT_ID (required),
// the region CLOUD_ML_REGION (us-east5 by default), Google's application default
// credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, the metadata server).
package cloud

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// The variables that choose a platform.
const (
	UseBedrock = "CLAUDE_CODE_USE_BEDROCK"
	UseVertex  = "CLAUDE_CODE_USE_VERTEX"
)

// Platform is where a session's Claude requests go instead of the Anthropic API.
type Platform struct {
	Name string // "Amazon Bedrock" or "Google Vertex AI"
	// Options make the SDK's message service send to the platform (base URL, signing).
	Options []option.RequestOption
	// Host is where requests go (for ouro doctor and /status).
	Host string
	// Region and Project say what the host was built from; Project is Vertex's.
	Region, Project string
	model           func(string) string
}

// Model is the platform's id for a Claude model name.
func (p *Platform) Model(name string) string { return p.model(name) }

// Chosen reports which platform env asks for: "bedrock", "vertex" or "".
func Chosen(env func(string) string) string {
	switch {
	case truthy(env(UseBedrock)):
		return "bedrock"
	case truthy(env(UseVertex)):
		return "vertex"
	}
	return ""
}

// truthy is Claude Code's reading of a boolean variable.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// region is a cloud region's shape: it becomes part of a host name, so nothing else may
// pass (a value such as "evil.example/x" would send the request, and a bearer token, to
// another host).
var region = regexp.MustCompile(`^[a-z]{2,}(-[a-z0-9]+)*$`)

// Where says, without loading any credentials, which platform env asks for ("" for
// none) and the host its requests would go to (with the variables it came from).
func Where(env func(string) string) (name, host, from string) {
	switch Chosen(env) {
	case "bedrock":
		r := firstOf(env, "AWS_REGION", "AWS_DEFAULT_REGION")
		from = UseBedrock + ", AWS_REGION"
		if r == "" {
			r, from = "us-east-1", UseBedrock+", the default region"
		}
		return "Amazon Bedrock", "bedrock-runtime." + r + ".amazonaws.com", from
	case "vertex":
		r := firstOf(env, "CLOUD_ML_REGION")
		from = UseVertex + ", CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID " + env("ANTHROPIC_VERTEX_PROJECT_ID")
		if r == "" {
			r, from = "us-east5", UseVertex+", the default region, ANTHROPIC_VERTEX_PROJECT_ID "+env("ANTHROPIC_VERTEX_PROJECT_ID")
		}
		return "Google Vertex AI", vertexHost(r), from
	}
	return "", "", ""
}

func vertexHost(r string) string {
	switch r {
	case "global":
		return "aiplatform.googleapis.com"
	case "us", "eu":
		return "aiplatform." + r + ".rep.googleapis.com"
	}
	return r + "-aiplatform.googleapis.com"
}

// FromEnv returns the platform env asks for, nil when it asks for none. env reads the
// environment, then the settings' env.
//
// cmds are awsCredentialExport and awsAuthRefresh, for Bedrock.
func FromEnv(ctx context.Context, env func(string) string, cmds AWSCommands) (*Platform, error) {
	switch Chosen(env) {
	case "bedrock":
		return newBedrock(ctx, env, cmds)
	case "vertex":
		return newVertex(ctx, env)
	}
	return nil, nil
}

func newBedrock(ctx context.Context, env func(string) string, cmds AWSCommands) (*Platform, error) {
	r := firstOf(env, "AWS_REGION", "AWS_DEFAULT_REGION")
	if r == "" {
		r = "us-east-1"
	}
	if !region.MatchString(r) {
		return nil, fmt.Errorf("%s: AWS region %q is no region name (such as us-east-1)", UseBedrock, r)
	}
	opts := []func(*config.LoadOptions) error{config.WithRegion(r)}
	// The settings' env counts as exported (as in Claude Code); the AWS SDK reads only the
	// process environment, so keys given there are handed to it.
	if id, secret := env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" && os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, env("AWS_SESSION_TOKEN"))))
	}
	if p := env("AWS_PROFILE"); p != "" && os.Getenv("AWS_PROFILE") == "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the AWS configuration: %w", UseBedrock, err)
	}
	withCommands(&cfg, cmds)
	if tok := env("AWS_BEARER_TOKEN_BEDROCK"); tok != "" && os.Getenv("AWS_BEARER_TOKEN_BEDROCK") == "" {
		cfg.BearerAuthTokenProvider = bedrock.NewStaticBearerTokenProvider(tok)
		cfg.AuthSchemePreference = []string{"httpBearerAuth"}
	}
	if cfg.Credentials == nil && cfg.BearerAuthTokenProvider == nil && os.Getenv("AWS_BEARER_TOKEN_BEDROCK") == "" {
		return nil, fmt.Errorf("%s: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK", UseBedrock)
	}
	prefix := crossRegion(r)
	return &Platform{Name: "Amazon Bedrock", Options: []option.RequestOption{bedrock.WithConfig(cfg)},
		Host: "bedrock-runtime." + r + ".amazonaws.com", Region: r,
		model: func(name string) string { return bedrockModel(name, prefix) }}, nil
}

// catch turns the SDK's panic on a client it cannot build into an error.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

func firstOf(env func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(env(n)); v != "" {
			return v
		}
	}
	return ""
}
