package acp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ouroagent/ouro/llm"
)

func TestPromptBlocks(t *testing.T) {
	mime := "text/x-go"
	got, err := promptBlocks([]sdk.ContentBlock{
		sdk.TextBlock("fix this"),
		sdk.ImageBlock("iVBORw0KGgo=", "image/png"),
		sdk.ResourceLinkBlock("main.go", "file:///src/app/main.go"),
		sdk.ResourceLinkBlock("the spec", "https://example.com/spec"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///src/app/util.go", Text: "package app", MimeType: &mime}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, b := range got {
		switch b.Type {
		case llm.BlockText:
			parts = append(parts, b.Text)
		case llm.BlockImage:
			parts = append(parts, "image:"+b.Source.MediaType+":"+b.Source.Data)
		}
	}
	want := []string{"fix this", "image:image/png:iVBORw0KGgo=", "@/src/app/main.go", "@https://example.com/spec (the spec)", "<context ref=\"/src/app/util.go\">\npackage app\n</context>"}
	if strings.Join(parts, "|") != strings.Join(want, "|") {
		t.Fatalf("blocks = %q\nwant     %q", parts, want)
	}
	if _, err := promptBlocks([]sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}); err == nil || !strings.Contains(err.Error(), "audio") {
		t.Fatalf("audio: err = %v", err)
	}
	if _, err := promptBlocks(nil); err == nil {
		t.Fatal("an empty prompt was accepted")
	}
}

func TestMCPConfigFromTheClient(t *testing.T) {
	cfg, err := mcpConfig([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "files", Command: "/usr/bin/srv", Args: []string{"--root", "/p"}, Env: []sdk.EnvVariable{{Name: "TOKEN", Value: "t"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "docs", Type: "http", Url: "https://mcp.example.com", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(cfg), &got); err != nil {
		t.Fatal(err)
	}
	files, docs := got["mcpServers"]["files"], got["mcpServers"]["docs"]
	if files["command"] != "/usr/bin/srv" || files["type"] != "stdio" || files["env"].(map[string]any)["TOKEN"] != "t" || len(files["args"].([]any)) != 2 {
		t.Errorf("stdio server = %v", files)
	}
	if docs["type"] != "http" || docs["url"] != "https://mcp.example.com" || docs["headers"].(map[string]any)["Authorization"] != "Bearer x" {
		t.Errorf("http server = %v", docs)
	}
	if cfg, err := mcpConfig(nil); cfg != "" || err != nil {
		t.Errorf("no servers: %q, %v", cfg, err)
	}
	if _, err := mcpConfig([]sdk.McpServer{{Sse: &sdk.McpServerSseInline{Name: "old", Url: "https://x"}}}); err == nil {
		t.Error("an SSE server was accepted; ouro does not advertise sse")
	}
	dup := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}}
	if _, err := mcpConfig([]sdk.McpServer{dup, dup}); err == nil {
		t.Error("two servers of one name were accepted")
	}
}
