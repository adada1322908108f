//go:build unix

package main

import (
	"strings"
	"testing"
)

// Issue 30 item 11, the default path: with only CLAUDE_CODE_USE_BEDROCK and AWS keys
// set, the first request leaves for Bedrock's runtime host of the default region (seen
// at a recording HTTPS_PROXY: nothing reaches the network); AWS_REGION moves it.
func TestDefaultPathBedrockGoesToTheRuntimeHost(t *testing.T) {
	aws := []string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI",
		"AWS_REGION=", "AWS_DEFAULT_REGION=", "AWS_PROFILE=", "AWS_EC2_METADATA_DISABLED=true"}
	targets, out := runThroughProxy(t, aws)
	if len(targets) == 0 || targets[0] != "CONNECT bedrock-runtime.us-east-1.amazonaws.com:443" {
		t.Fatalf("proxy saw %q, want CONNECT bedrock-runtime.us-east-1.amazonaws.com:443 first\n%s", targets, out)
	}
	targets, out = runThroughProxy(t, append(aws, "AWS_REGION=eu-west-3"))
	if len(targets) == 0 || targets[0] != "CONNECT bedrock-runtime.eu-west-3.amazonaws.com:443" {
		t.Fatalf("proxy saw %q with AWS_REGION=eu-west-3\n%s", targets, out)
	}
	if strings.Contains(out, "ANTHROPIC_API_KEY") {
		t.Errorf("asked for an Anthropic key on Bedrock:\n%s", out)
	}
}
