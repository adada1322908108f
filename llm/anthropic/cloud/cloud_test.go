package cloud

import (
	"context"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestModelIDs(t *testing.T) {
	for name, want := range map[string]string{
		"claude-sonnet-4-5":                 "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		"claude-haiku-4-5":                  "us.anthropic.claude-haiku-4-5-20251001-v1:0",
		"claude-sonnet-5-5":                 "us.anthropic.claude-sonnet-5-5",
		"global.anthropic.claude-opus-4-5":  "global.anthropic.claude-opus-4-5",
		"arn:aws:bedrock:us-east-1:1:x/y/z": "arn:aws:bedrock:us-east-1:1:x/y/z",
	} {
		if got := bedrockModel(name, "us"); got != want {
			t.Errorf("bedrock %s = %s, want %s", name, got, want)
		}
	}
	if got := bedrockModel("claude-sonnet-4-5", crossRegion("eu-west-1")); got != "eu.anthropic.claude-sonnet-4-5-20250929-v1:0" {
		t.Errorf("eu: %s", got)
	}
	for name, want := range map[string]string{
		"claude-sonnet-4-5": "claude-sonnet-4-5@20250929", "claude-opus-5-5": "claude-opus-5-5", "claude-x@2026": "claude-x@2026",
	} {
		if got := vertexModel(name); got != want {
			t.Errorf("vertex %s = %s, want %s", name, got, want)
		}
	}
}

func TestChosen(t *testing.T) {
	for v, want := range map[string]string{"1": "bedrock", "true": "bedrock", "0": "", "": "", "false": ""} {
		if got := Chosen(envOf(map[string]string{UseBedrock: v})); got != want {
			t.Errorf("%q: %q", v, got)
		}
	}
	if got := Chosen(envOf(map[string]string{UseVertex: "1"})); got != "vertex" {
		t.Errorf("vertex: %q", got)
	}
}

// A region becomes part of a host name: one that is no region name is refused before
// anything is sent (it would send the request, and a bearer token, elsewhere).
func TestRegionIsNotAHost(t *testing.T) {
	for _, r := range []string{"evil.example/x", "us-east-1.evil.example", "us east", "US-EAST-1@x"} {
		_, err := FromEnv(context.Background(), envOf(map[string]string{UseBedrock: "1", "AWS_REGION": r,
			"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}), AWSCommands{})
		if err == nil || !strings.Contains(err.Error(), "no region name") {
			t.Errorf("AWS_REGION %q: %v", r, err)
		}
		_, err = FromEnv(context.Background(), envOf(map[string]string{UseVertex: "1", "CLOUD_ML_REGION": r, "ANTHROPIC_VERTEX_PROJECT_ID": "p"}), AWSCommands{})
		if err == nil || (VertexLinked && !strings.Contains(err.Error(), "no region name")) {
			t.Errorf("CLOUD_ML_REGION %q: %v", r, err)
		}
	}
}

func TestWhere(t *testing.T) {
	if n, h, _ := Where(envOf(map[string]string{UseBedrock: "1"})); n != "Amazon Bedrock" || h != "bedrock-runtime.us-east-1.amazonaws.com" {
		t.Errorf("%s %s", n, h)
	}
	if _, h, _ := Where(envOf(map[string]string{UseBedrock: "1", "AWS_DEFAULT_REGION": "eu-central-1"})); h != "bedrock-runtime.eu-central-1.amazonaws.com" {
		t.Errorf("%s", h)
	}
	if _, h, _ := Where(envOf(map[string]string{UseVertex: "1"})); h != "us-east5-aiplatform.googleapis.com" {
		t.Errorf("%s", h)
	}
	if _, h, _ := Where(envOf(map[string]string{UseVertex: "1", "CLOUD_ML_REGION": "global"})); h != "aiplatform.googleapis.com" {
		t.Errorf("%s", h)
	}
	if n, _, _ := Where(envOf(nil)); n != "" {
		t.Errorf("%s", n)
	}
}
