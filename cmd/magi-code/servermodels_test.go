package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestListModels: a server's /v1/models becomes the picker's choices: no
// credential sent, IDs that are no model name left out, duplicates once,
// at most serverModelsMax; a body over the bound, a non-200 answer,
// invalid JSON and a redirect to another origin are errors; a cancelled
// context ends the request.
func TestListModels(t *testing.T) {
	var body string
	status := http.StatusOK
	var authSeen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other origin was asked: %s", r.URL)
	}))
	defer other.Close()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authSeen = append(authSeen, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		switch r.URL.Path {
		case "/v1/models":
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		case "/redirect/models":
			http.Redirect(w, r, other.URL+"/v1/models", http.StatusFound)
		case "/slow/models":
			<-block
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(block)

	body = `{"object":"list","data":[{"id":"llama3.2:latest","object":"model"},{"id":"qwen2.5-coder"},{"id":"two words"},` +
		`{"id":"-flag"},{"id":"sk-proj-0123456789abcdefghijklmnop"},{"id":"qwen2.5-coder"},{"id":""},{"id":"a\u001b[2Jb"}]}`
	got, err := listModels(context.Background(), nil, "ollama", srv.URL+"/v1/")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range got {
		if c.Provider != "ollama" {
			t.Fatalf("provider %q", c.Provider)
		}
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "llama3.2:latest,qwen2.5-coder" {
		t.Fatalf("ids %q", ids)
	}
	for _, a := range authSeen {
		if a != "" {
			t.Fatalf("a credential was sent: %q", a)
		}
	}

	var many strings.Builder
	many.WriteString(`{"data":[`)
	for i := range serverModelsMax + 5 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"id":"m%d"}`, i)
	}
	many.WriteString(`]}`)
	body = many.String()
	if got, err := listModels(context.Background(), nil, "x", srv.URL+"/v1"); err != nil || len(got) != serverModelsMax {
		t.Fatalf("%d models, %v; want %d", len(got), err, serverModelsMax)
	}

	for name, c := range map[string]struct {
		body   string
		status int
		base   string
	}{
		"over the byte bound": {`{"data":[]}` + strings.Repeat(" ", serverModelsBytes+1-len(`{"data":[]}`)), 200, "/v1"},
		"at the byte bound":   {`{"data":[]}` + strings.Repeat(" ", serverModelsBytes-len(`{"data":[]}`)), 200, "/v1"},
		"not JSON":            {`<html>`, 200, "/v1"},
		"an error status":     {`{"data":[]}`, 500, "/v1"},
		"another origin":      {``, 200, "/redirect"},
	} {
		body, status = c.body, c.status
		_, err := listModels(context.Background(), nil, "x", srv.URL+c.base)
		if (err == nil) != (name == "at the byte bound") {
			t.Errorf("%s: err %v", name, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := listModels(ctx, nil, "x", srv.URL+"/slow"); done <- err }()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled request listed models")
	}
}
