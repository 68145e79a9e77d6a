package schema

import (
	"testing"
	"time"
)

func TestRestartNext(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		r       Restart
		code, n int
		wait    time.Duration
		again   bool
	}{
		{"no block", Restart{}, 1, 0, 0, false},
		{"never", Restart{Policy: "never"}, 1, 0, 0, false},
		{"on-failure, exit 0", Restart{Policy: "on-failure"}, 0, 0, 0, false},
		{"on-failure, exit 1", Restart{Policy: "on-failure"}, 1, 0, s, true},
		{"on-failure, killed", Restart{Policy: "on-failure"}, 137, 1, 2 * s, true},
		{"always, exit 0", Restart{Policy: "always"}, 0, 2, 4 * s, true},
		{"max reached", Restart{Policy: "always", Max: 3}, 1, 3, 0, false},
		{"default max 5", Restart{Policy: "always"}, 1, 5, 0, false},
		{"capped at 30s", Restart{Policy: "always", Max: 100, Backoff: s}, 1, 10, 30 * s, true},
		{"a backoff over the cap stays", Restart{Policy: "always", Max: 100, Backoff: time.Minute}, 1, 3, time.Minute, true},
		{"custom backoff", Restart{Policy: "on-failure", Backoff: 50 * time.Millisecond}, 2, 2, 200 * time.Millisecond, true},
	}
	for _, tt := range tests {
		wait, again := tt.r.Next(tt.code, tt.n)
		if wait != tt.wait || again != tt.again {
			t.Errorf("%s: Next = %s, %v; want %s, %v", tt.name, wait, again, tt.wait, tt.again)
		}
	}
}
