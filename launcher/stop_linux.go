package launcher

import (
	"context"
	"time"

	"github.com/childproof/childproof/launcher/census"
	"github.com/childproof/childproof/proc"
)

// StopRecord stops a recorded launch (census.StopRecord).
func StopRecord(ctx context.Context, p proc.FS, st *State, rec *Record, timeout time.Duration) (*StopResult, error) {
	return census.StopRecord(ctx, p, st.census(), rec, timeout)
}

// StopLaunch stops the recorded launch name under its lock, as the stop
// command does (census.StopLaunch).
func StopLaunch(ctx context.Context, p proc.FS, st *State, name string, timeout, wait time.Duration, check func(*Record) error) (*Record, *StopResult, error) {
	return census.StopLaunch(ctx, p, st.census(), name, timeout, wait, check)
}
