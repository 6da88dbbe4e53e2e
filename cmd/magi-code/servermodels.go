package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/magi-code/magi-code/client/mission"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
)

// Bounds of a server's model list: the time the whole request may take,
// the bytes of its body and the models kept.
const (
	serverModelsTimeout = 5 * time.Second
	serverModelsBytes   = 1 << 20
	serverModelsMax     = 1000
)

// serverModels is Mission Control's ServerModels: the models of the
// selected provider's server when that provider is a key-less one of the
// OpenAI kind (a local server: ollama, lmstudio, llamacpp, or a table
// without api_key_env), read when the /model picker opens. Any other
// provider lists nothing here (its models come from the catalog).
func serverModels(env runner.Env) func(context.Context) ([]mission.ModelChoice, error) {
	return func(ctx context.Context) ([]mission.ModelChoice, error) {
		name := configuredProvider(env)
		p, ok := config.LookupProvider(config.Env(env), name)
		if !ok || name == config.FixtureProvider || !p.KeyLess() || p.Kind != config.KindOpenAI {
			return nil, nil
		}
		return listModels(ctx, nil, name, p.BaseURL)
	}
}

// errModelList is every failure of listModels: the picker says only that
// the server did not list its models.
var errModelList = errors.New("the server did not list its models")

// listModels asks GET baseURL/models (OpenAI's model list, which Ollama,
// LM Studio, llama.cpp and vLLM serve) and returns its model IDs as
// choices of provider name, in the server's order. No credential is sent;
// a redirect to another origin is refused; the request ends with ctx or
// after serverModelsTimeout; a body over serverModelsBytes is an error;
// IDs that are no model name (CheckModel) are left out, and at most
// serverModelsMax are kept. hc nil is the default client.
func listModels(ctx context.Context, hc *http.Client, name, baseURL string) ([]mission.ModelChoice, error) {
	ctx, cancel := context.WithTimeout(ctx, serverModelsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/models", nil)
	if err != nil {
		return nil, errModelList
	}
	req.Header.Set("Accept", "application/json")
	resp, err := provider.HTTPClient(hc).Do(req) // no redirect to another origin
	if err != nil {
		return nil, errModelList
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errModelList
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, serverModelsBytes+1))
	if err != nil || len(body) > serverModelsBytes {
		return nil, errModelList
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil, errModelList
	}
	var out []mission.ModelChoice
	seen := map[string]bool{}
	for _, m := range list.Data {
		if config.CheckModel(m.ID) != nil || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		out = append(out, mission.ModelChoice{Provider: name, ID: m.ID, Name: m.ID})
		if len(out) == serverModelsMax {
			break
		}
	}
	return out, nil
}
