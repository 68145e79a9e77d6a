package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestProbeHTTP checks the hand-written readiness GET against net/http's
// server: 2xx is ready, anything else names the status, a server that
// never answers is cut off by the context.
func TestProbeHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte(strings.Repeat("x", 100000)))
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/q":
			if r.URL.RawQuery != "a=1" || r.Host == "" {
				w.WriteHeader(http.StatusBadRequest)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		path, wantErr string
	}{
		{"/ok", ""},
		{"ok", ""},
		{"/nocontent", ""},
		{"/q?a=1", ""},
		{"/down", "GET /down: 503 Service Unavailable"},
		{"/missing", "GET /missing: 404 Not Found"},
		{"", ""}, // a TCP connect
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := probe(ctx, addr, tc.path, nil)
		cancel()
		if got := errString(err); got != tc.wantErr {
			t.Errorf("probe(%q) = %q, want %q", tc.path, got, tc.wantErr)
		}
	}
}

func TestProbeHTTPSilentAndMalformed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				n, _ := c.Read(buf)
				if strings.HasPrefix(string(buf[:n]), "GET /garbage ") {
					c.Write([]byte("SSH-2.0-OpenSSH\r\n"))
					return
				}
				time.Sleep(2 * time.Second) // never answers
			}()
		}
	}()
	addr := l.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err = probe(ctx, addr, "/garbage", nil)
	cancel()
	if got := errString(err); !strings.Contains(got, "malformed HTTP response") {
		t.Errorf("probe of a non-HTTP answer = %q", got)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	t0 := time.Now()
	err = probe(ctx, addr, "/silent", nil)
	cancel()
	// The deadline ended the probe, not the server (which holds the
	// connection 2 s): a loaded machine may be late, never that late.
	if got := errString(err); !strings.Contains(got, "deadline exceeded") || time.Since(t0) >= 2*time.Second {
		t.Errorf("probe of a silent server = %q after %v", got, time.Since(t0))
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestProbeMatch: the matcher sees the status and the de-chunked body
// (Content-Length, chunked, and a body larger than the 64 KiB kept).
func TestProbeMatch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", "6")
			w.Write([]byte("ready\n"))
		case "/chunked":
			w.Write([]byte("part one, "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
		case "/big":
			w.(http.Flusher).Flush()
			w.Write([]byte(strings.Repeat("y", 100000)))
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("warming"))
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/length", 200, "ready\n"},
		{"/chunked", 200, "part one, part two"},
		{"/big", 200, strings.Repeat("y", 1<<16)},
		{"/down", 503, "warming"},
	} {
		var code int
		var body string
		err := probe(t.Context(), addr, tc.path, func(c int, b []byte) error { code, body = c, string(b); return nil })
		if err != nil || code != tc.code || body != tc.body {
			t.Errorf("%s: code %d, body %.40q (%d bytes), err %v; want %d %.40q (%d bytes)", tc.path, code, body, len(body), err, tc.code, tc.body, len(tc.body))
		}
	}
}
