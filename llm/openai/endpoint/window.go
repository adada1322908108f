package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ServerWindow asks a compatible server (not the OpenAI API itself) for the context window
// it serves model with, so compaction works against the real window rather than a guess:
//   - llama.cpp's GET /props, whose default_generation_settings.n_ctx is the window of one
//     slot (what a request may hold: -c divided among --parallel slots);
//   - else GET {base}/models: llama.cpp's meta.n_ctx (the slot's window) or meta.n_ctx_train
//     (what the model was trained for), or vLLM's max_model_len, for the entry named model
//     (or the only entry).
//
// It returns the window and where it was read; 0 and an error when the server says
// nothing usable. The caller bounds the wait through ctx.
func ServerWindow(ctx context.Context, e Endpoint, model string, client *http.Client) (int, string, error) {
	if e.Official || e.BaseURL == "" {
		return 0, "", errors.New("the OpenAI API does not report context windows")
	}
	if client == nil {
		client = http.DefaultClient
	}
	base := strings.TrimRight(e.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	perr := getJSON(ctx, client, e, root+"/props", &props)
	if perr == nil && props.Settings.NCtx > 0 {
		return props.Settings.NCtx, "the server's /props", nil
	}
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Meta struct {
				NCtx      int `json:"n_ctx"`
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
			MaxModelLen int `json:"max_model_len"`
		} `json:"data"`
	}
	merr := getJSON(ctx, client, e, base+"/models", &list)
	if merr == nil {
		for _, m := range list.Data {
			if m.ID != model && len(list.Data) != 1 {
				continue
			}
			switch {
			case m.Meta.NCtx > 0:
				return m.Meta.NCtx, "the server's /models (meta.n_ctx)", nil
			case m.MaxModelLen > 0:
				return m.MaxModelLen, "the server's /models (max_model_len)", nil
			case m.Meta.NCtxTrain > 0:
				return m.Meta.NCtxTrain, "the server's /models (meta.n_ctx_train)", nil
			}
		}
	}
	if perr == nil {
		perr = errors.New("no default_generation_settings.n_ctx")
	}
	if merr == nil {
		merr = fmt.Errorf("no context window for %q", model)
	}
	return 0, "", fmt.Errorf("the server reports no context window: /props: %v; /models: %v", perr, merr)
}

// getJSON decodes the JSON answer to a GET of url into v.
func getJSON(ctx context.Context, client *http.Client, e Endpoint, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	// /props carries the chat template: tens of kilobytes, never megabytes.
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(v); err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	return nil
}
