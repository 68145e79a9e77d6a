package main

import (
	"testing"
	"time"

	"github.com/childproof/childproof/schema"
)

func TestRestartAfter(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		r        schema.Restart
		code, n  int
		stopping bool
		wait     time.Duration
		again    bool
	}{
		{"no block", schema.Restart{}, 1, 0, false, 0, false},
		{"never", schema.Restart{Policy: "never"}, 1, 0, false, 0, false},
		{"on-failure, exit 0", schema.Restart{Policy: "on-failure"}, 0, 0, false, 0, false},
		{"on-failure, exit 1", schema.Restart{Policy: "on-failure"}, 1, 0, false, s, true},
		{"on-failure, killed", schema.Restart{Policy: "on-failure"}, 137, 1, false, 2 * s, true},
		{"always, exit 0", schema.Restart{Policy: "always"}, 0, 2, false, 4 * s, true},
		{"always, asked to stop", schema.Restart{Policy: "always"}, 143, 0, true, 0, false},
		{"max reached", schema.Restart{Policy: "always", Max: 3}, 1, 3, false, 0, false},
		{"default max 5", schema.Restart{Policy: "always"}, 1, 5, false, 0, false},
		{"capped at 30s", schema.Restart{Policy: "always", Max: 100, Backoff: s}, 1, 10, false, 30 * s, true},
		{"a backoff over the cap stays", schema.Restart{Policy: "always", Max: 100, Backoff: time.Minute}, 1, 3, false, time.Minute, true},
		{"custom backoff", schema.Restart{Policy: "on-failure", Backoff: 50 * time.Millisecond}, 2, 2, false, 200 * time.Millisecond, true},
	}
	for _, tt := range tests {
		wait, again := restartAfter(tt.r, tt.code, tt.n, tt.stopping)
		if wait != tt.wait || again != tt.again {
			t.Errorf("%s: restartAfter = %s, %v; want %s, %v", tt.name, wait, again, tt.wait, tt.again)
		}
	}
}
