package provider

import (
	"net/http"
	"testing"
)

func TestToolArguments(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `{}`},
		{"white space", " \n\t", `{}`},
		{"object", `{"path":"a"}`, `{"path":"a"}`},
		{"trimmed", " {\"a\":1}\n", `{"a":1}`},
		{"other JSON kept", `[1,2]`, `[1,2]`},
		{"malformed as string", `{"path":`, `"{\"path\":"`},
		{"plain text as string", `hello`, `"hello"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(ToolArguments(tc.in)); got != tc.want {
				t.Errorf("ToolArguments(%q) = %s; want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestHTTPClient(t *testing.T) {
	own := &http.Client{Transport: &http.Transport{}}
	if got := HTTPClient(own); got.Transport != own.Transport || got.CheckRedirect == nil || own.CheckRedirect != nil {
		t.Errorf("HTTPClient(own) = %+v; want a copy on the same transport with a redirect policy, own unchanged", got)
	}
	got := HTTPClient(nil)
	tr, ok := got.Transport.(*http.Transport)
	if !ok || tr == http.DefaultTransport {
		t.Fatalf("HTTPClient(nil).Transport = %T %p; want a clone of the default transport", got.Transport, got.Transport)
	}
	if tr.ResponseHeaderTimeout != DefaultHeaderTimeout {
		t.Errorf("ResponseHeaderTimeout = %v; want %v", tr.ResponseHeaderTimeout, DefaultHeaderTimeout)
	}
}
