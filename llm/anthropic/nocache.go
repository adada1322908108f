package anthropic

import sdk "github.com/anthropics/anthropic-sdk-go/v2"

// dropCacheControl takes every prompt-cache breakpoint out of params
// (DISABLE_PROMPT_CACHING): a zero cache_control is not sent.
func dropCacheControl(params *sdk.MessageNewParams) {
	for i := range params.System {
		params.System[i].CacheControl = sdk.CacheControlEphemeralParam{}
	}
	// Tools carry none (and their encoded params are shared between requests: see
	// toolCache).
	for _, m := range params.Messages {
		var blocks []sdk.ContentBlockParamUnion
		switch {
		case m.OfUser != nil:
			blocks = m.OfUser.Content
		case m.OfAssistant != nil:
			blocks = m.OfAssistant.Content
		}
		for i := range blocks {
			if cc := blocks[i].GetCacheControl(); cc != nil {
				*cc = sdk.CacheControlEphemeralParam{}
			}
		}
	}
}
