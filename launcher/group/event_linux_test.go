package group_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/childproof/childproof/launcher/group"
)

// TestEventString: the line up shows for each Event, byte for byte.
func TestEventString(t *testing.T) {
	tests := []struct {
		e    group.Event
		want string
	}{
		{group.Event{Kind: group.EventRestarting, Name: "api", Code: 3, Restart: 2, Max: 5, Delay: 1500 * time.Millisecond},
			"api exited with status 3; restart 2 of 5 in 1.5s"},
		{group.Event{Kind: group.EventExited, Name: "api", Code: 1},
			"api exited with status 1"},
		{group.Event{Kind: group.EventExited, Name: "api", Code: 1, Restart: 1, Max: 1, GaveUp: true},
			"api exited with status 1 after 1 restart: giving up (max 1)"},
		{group.Event{Kind: group.EventExited, Name: "api", Code: 2, Restart: 3, Max: 3, GaveUp: true},
			"api exited with status 2 after 3 restarts: giving up (max 3)"},
		{group.Event{Kind: group.EventExited, Name: "api", Code: 0, Restart: 3, Max: 3, GaveUp: true},
			"api exited with status 0"},
		{group.Event{Kind: group.EventStopping, Err: &group.ExitError{Name: "db", Code: 1}},
			"db failed: stopping everything this up started, in reverse order"},
		{group.Event{Kind: group.EventStopping, Err: fmt.Errorf("supervise: %w", &group.RestartError{Name: "db", N: 2, Err: errors.New("boom")})},
			"db's restart failed: stopping everything this up started, in reverse order"},
		{group.Event{Kind: group.EventStopping, Err: context.Canceled},
			"context canceled: stopping everything this up started, in reverse order"},
		{group.Event{Kind: group.EventAdopted, Name: "db", Pid: 42},
			"db is already running from this spec and verifies (worker pid 42): left as it is"},
		{group.Event{Kind: group.EventStarting, Name: "db"},
			"starting db"},
		{group.Event{Kind: group.EventStarting, Name: "web", DependsOn: []string{"api", "db"}},
			"starting web (after api, db)"},
		{group.Event{Kind: group.EventStarted, Name: "db", Pid: 42}, ""},
		{group.Event{Kind: group.EventStartFailed, Name: "db", Err: errors.New("boom")}, ""},
		{group.Event{Kind: group.EventStartFailed, Name: "api", Started: 1, Err: errors.New("boom")},
			"api failed to start: stopping the 1 launch this up started, in reverse order"},
		{group.Event{Kind: group.EventStartFailed, Name: "web", Started: 2, Err: errors.New("boom")},
			"web failed to start: stopping the 2 launches this up started, in reverse order"},
		{group.Event{Kind: group.EventRestarted, Name: "api", Restart: 2, Pid: 43},
			"restart 2 of api verified (worker pid 43)"},
		{group.Event{Kind: group.EventRestartFailed, Name: "api", Restart: 3, Err: errors.New("boom")},
			"restart 3 of api failed"},
		{group.Event{}, ""},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%+v.String()\n got %q\nwant %q", tc.e, got, tc.want)
		}
	}
}
