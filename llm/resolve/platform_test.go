package resolve

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/anthropic/cloud"
	"github.com/ouroagent/ouro/llm/fakeserver"
	"github.com/ouroagent/ouro/settings"
)

// cleanAWS keeps the developer's AWS configuration out of the test.
func cleanAWS(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// The default path of CLAUDE_CODE_USE_BEDROCK with only AWS keys (here in the settings'
// env): the request goes to Bedrock's runtime host of the default region, for the model's
// Bedrock id, signed with SigV4, with no Anthropic key; nothing leaves the machine.
func TestBedrockDefaultPath(t *testing.T) {
	cleanAWS(t)
	rec := fakeserver.RecordDefault(t)
	env := envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI"})
	p, name, err := newProvider("claude-sonnet-4-5", "", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if name != "claude-sonnet-4-5" {
		t.Errorf("the session's model is %q: it keeps the Claude name", name)
	}
	_, _ = p.Complete(context.Background(), &llm.Request{Model: name, MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	reqs := rec.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	r := reqs[0]
	if r.URL.Host != "bedrock-runtime.us-east-1.amazonaws.com" || r.URL.Scheme != "https" {
		t.Errorf("request to %s", r.URL)
	}
	if want := "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"; !strings.HasPrefix(r.URL.Path, want) {
		t.Errorf("path %s, want %s…", r.URL.Path, want)
	}
	if a := r.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(a, "/us-east-1/bedrock/") {
		t.Errorf("Authorization %q", a)
	}
	if r.Header.Get("X-Api-Key") != "" {
		t.Error("an Anthropic key header went to Bedrock")
	}
	c := Describe(name, nil, env)
	if c.Provider != "Amazon Bedrock" || c.BaseURL != "https://bedrock-runtime.us-east-1.amazonaws.com" || c.NoKey != "" {
		t.Errorf("connection %+v", c)
	}
}

// AWS_REGION picks the host and the cross-region prefix; a missing credential is said.
func TestBedrockRegionAndNoCredentials(t *testing.T) {
	cleanAWS(t)
	rec := fakeserver.RecordDefault(t)
	p, _, err := newProvider("claude-sonnet-5-5", "", envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-west-1",
		"AWS_BEARER_TOKEN_BEDROCK": "bedrock-api-key"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Complete(context.Background(), &llm.Request{Model: "claude-sonnet-5-5", MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	r := rec.Requests()[0]
	if r.URL.Host != "bedrock-runtime.eu-west-1.amazonaws.com" || !strings.HasPrefix(r.URL.Path, "/model/eu.anthropic.claude-sonnet-5-5/") {
		t.Errorf("request to %s", r.URL)
	}
	if r.Header.Get("Authorization") != "Bearer bedrock-api-key" {
		t.Errorf("Authorization %q", r.Header.Get("Authorization"))
	}
	// Without credentials the AWS SDK's chain finds none at the first request, which says so.
	p, _, err = newProvider("claude-sonnet-5-5", "", envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(rec.Requests())
	_, err = p.Complete(context.Background(), &llm.Request{Model: "claude-sonnet-5-5", MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "credentials") || len(rec.Requests()) != n {
		t.Errorf("no credentials: %v, %d requests sent", err, len(rec.Requests())-n)
	}
}

// A build without the vertex tag says so, and how to get one with it.
func TestVertexNotLinkedSaysHow(t *testing.T) {
	if cloud.VertexLinked {
		t.Skip("built with -tags vertex")
	}
	_, _, err := newProvider("claude-sonnet-4-5", "", envOf(map[string]string{"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "p"}), nil)
	if err == nil || !strings.Contains(err.Error(), "-tags vertex") {
		t.Errorf("%v", err)
	}
}

// awsCredentialExport from the person's settings gives Bedrock its credentials: its
// output is read as JSON (data), and the request is signed with them.
func TestBedrockCredentialExport(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the export command is a sh script")
	}
	cleanAWS(t)
	rec := fakeserver.RecordDefault(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "export.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"Credentials\": {\"AccessKeyId\": \"ASIAEXPORTED\", \"SecretAccessKey\": \"x\", \"SessionToken\": \"sess-tok\", \"Expiration\": \"2099-01-01T00:00:00Z\"}}'\n"), 0o755)
	set := &settings.Settings{AWSCredentialExport: settings.Sourced[string]{Value: script, Source: "/u/.claude/settings.json"}}
	env := envOf(map[string]string{"CLAUDE_CODE_USE_BEDROCK": "1"})
	keys := KeyHelper(set, env, dir, io.Discard)
	p, _, err := newProvider("claude-sonnet-4-5", "", env, keys)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = p.Complete(context.Background(), &llm.Request{Model: "claude-sonnet-4-5", MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	r := rec.Requests()[0]
	if a := r.Header.Get("Authorization"); !strings.Contains(a, "Credential=ASIAEXPORTED/") || r.Header.Get("X-Amz-Security-Token") != "sess-tok" {
		t.Errorf("Authorization %q, token %q", a, r.Header.Get("X-Amz-Security-Token"))
	}
}
