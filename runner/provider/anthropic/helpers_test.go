package anthropic

import sdk "github.com/anthropics/anthropic-sdk-go/v2"

type sdkBlock = sdk.ContentBlockParamUnion

func sdkNewThinking(sig, text string) sdkBlock { return sdk.NewThinkingBlock(sig, text) }
