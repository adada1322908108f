// Command ouro-openai is the helper ouro runs its openai:NAME models in (OpenAI and the
// servers that speak its Chat Completions API: Ollama, vLLM, llama.cpp …). It holds the
// official OpenAI SDK, which ouro itself does not link, so that a session on Claude pays
// nothing for it (see llm/openaiproc for the figures). ouro starts it for each model call
// and speaks JSON lines with it over stdin and stdout; it is not meant to be run by hand.
// Install it next to ouro:
//
//	go install github.com/ouroagent/ouro/cmd/ouro github.com/ouroagent/ouro/cmd/ouro-openai
package main

import (
	"fmt"
	"os"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/openai"
	"github.com/ouroagent/ouro/llm/openai/endpoint"
	"github.com/ouroagent/ouro/llm/openaiproc"
)

func main() {
	err := openaiproc.Serve(os.Stdin, os.Stdout, func(e endpoint.Endpoint) (llm.Provider, error) {
		first, idle, err := llm.StreamIdleBounds()
		if err != nil {
			return nil, err
		}
		return openai.New(openai.Config{APIKey: e.APIKey, BaseURL: e.BaseURL, StreamFirst: first, StreamIdle: idle})
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ouro-openai:", err)
		os.Exit(2)
	}
}
