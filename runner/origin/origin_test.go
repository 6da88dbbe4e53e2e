package origin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/other?q=1", true},
		{"http://EXAMPLE.com/a", "http://example.com./b", true},
		{"http://example.com/a", "http://example.com:80/b", true},
		{"https://example.com/a", "https://example.com:443/b", true},
		{"HTTPS://example.com/a", "https://example.com/b", true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
		{"http://localhost:8080/", "http://127.0.0.1:8080/", false},
		{"https://example.com/", "http://example.com/", false},
		{"http://example.com/", "http://example.com:443/", false},
		{"http://example.com/", "http://sub.example.com/", false},
		{"http://[::1]:80/", "http://[::1]/", true},
		{"file:///a", "file:///b", false}, // no host: never the same
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := Same(a, b); got != tc.want {
			t.Errorf("Same(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestClientRefusesCrossOrigin: a request redirected to another port or
// another host name never reaches it; one redirected within the origin
// does, with its headers and body.
func TestClientRefusesCrossOrigin(t *testing.T) {
	var stolen atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	defer other.Close()
	otherURL, _ := url.Parse(other.URL)
	otherHost := "http://localhost:" + otherURL.Port() // same port, other host name
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-port":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/to-host":
			http.Redirect(w, r, otherHost+"/x", http.StatusPermanentRedirect)
		case "/to-self":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/final":
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s|%s", r.Header.Get("X-Key"), body)
		}
	}))
	defer home.Close()

	c := Client(home.Client())
	post := func(path string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, home.URL+path, strings.NewReader("secret-body"))
		req.Header.Set("X-Key", "key-1")
		return c.Do(req)
	}
	for _, path := range []string{"/to-port", "/to-host"} {
		resp, err := post(path)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrCrossOrigin) {
			t.Errorf("POST %s: err = %v; want ErrCrossOrigin", path, err)
		}
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
	resp, err := post("/to-self")
	if err != nil {
		t.Fatalf("POST /to-self: %v", err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "key-1|secret-body" {
		t.Errorf("same-origin redirect delivered %q; want the header and body", got)
	}
}
