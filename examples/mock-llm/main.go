// Command mock-llm is a tiny stand-in for an LLM provider API, used by
// childproof's examples and tests. Like a real provider client it refuses
// to start without its key: MOCK_LLM_KEY must be set and non-empty.
//
//	MOCK_LLM_KEY=… mock-llm [--addr 127.0.0.1:18081]
//
// It serves GET /healthz (200 "ok") and POST /v1/complete (a canned JSON
// answer), and shuts down gracefully on SIGTERM or SIGINT.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run())
}

func run() int {
	addr := flag.String("addr", "127.0.0.1:18081", "listen address (host:port)")
	flag.Parse()
	if os.Getenv("MOCK_LLM_KEY") == "" {
		fmt.Fprintln(os.Stderr, "LLM_PROVIDER_NOT_CONFIGURED: MOCK_LLM_KEY missing")
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mock-llm: %v\n", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /v1/complete", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"model": "mock", "text": "hello from mock-llm"})
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "mock-llm: listening on %s (pid %d)\n", ln.Addr(), os.Getpid())
	select {
	case err := <-errc:
		fmt.Fprintf(os.Stderr, "mock-llm: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	fmt.Fprintln(os.Stderr, "mock-llm: signal received, shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "mock-llm: shutdown: %v\n", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "mock-llm: stopped")
	return 0
}
