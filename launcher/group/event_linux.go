package group

import (
	"errors"
	"fmt"
	"strings"
)

// String is the line `childproof up` shows for e, after its
// "childproof: up: " prefix ("childproof: " for a restart's):
//
//   - EventAdopted: "NAME is already running from this spec and
//     verifies (worker pid PID): left as it is"
//   - EventStarting: "starting NAME", with " (after DEP, DEP)" naming
//     its DependsOn
//   - EventStarted: "" (nothing: the launch's report says it)
//   - EventStartFailed: "NAME failed to start: stopping the N launch(es)
//     this up started, in reverse order"; "" when it started none (the
//     error Up returns says it)
//   - EventRestarting: "NAME exited with status N; restart R of MAX in
//     DELAY"
//   - EventRestarted: "restart R of NAME verified (worker pid PID)"
//   - EventRestartFailed: "restart R of NAME failed"
//   - EventExited: "NAME exited with status N", with " after R
//     restart(s): giving up (max MAX)" when a non-zero exit exhausted
//     the restart policy
//   - EventStopping: "WHY: stopping everything this up started, in
//     reverse order", WHY naming the launch that failed or whose
//     restart failed, else Err's text
//
// "" for an Event of no known Kind (the zero Event).
func (e Event) String() string {
	switch e.Kind {
	case EventAdopted:
		return fmt.Sprintf("%s is already running from this spec and verifies (worker pid %d): left as it is", e.Name, e.Pid)
	case EventStarting:
		deps := ""
		if len(e.DependsOn) > 0 {
			deps = " (after " + strings.Join(e.DependsOn, ", ") + ")"
		}
		return fmt.Sprintf("starting %s%s", e.Name, deps)
	case EventStartFailed:
		if e.Started == 0 {
			return ""
		}
		launches := "1 launch"
		if e.Started != 1 {
			launches = fmt.Sprintf("%d launches", e.Started)
		}
		return fmt.Sprintf("%s failed to start: stopping the %s this up started, in reverse order", e.Name, launches)
	case EventRestarted:
		return fmt.Sprintf("restart %d of %s verified (worker pid %d)", e.Restart, e.Name, e.Pid)
	case EventRestartFailed:
		return fmt.Sprintf("restart %d of %s failed", e.Restart, e.Name)
	case EventRestarting:
		return fmt.Sprintf("%s exited with status %d; restart %d of %d in %s", e.Name, e.Code, e.Restart, e.Max, e.Delay)
	case EventExited:
		gaveUp := ""
		if e.GaveUp && e.Code != 0 {
			restarts := "1 restart"
			if e.Restart != 1 {
				restarts = fmt.Sprintf("%d restarts", e.Restart)
			}
			gaveUp = fmt.Sprintf(" after %s: giving up (max %d)", restarts, e.Max)
		}
		return fmt.Sprintf("%s exited with status %d%s", e.Name, e.Code, gaveUp)
	case EventStopping:
		var xe *ExitError
		var re *RestartError
		why := ""
		switch {
		case errors.As(e.Err, &xe):
			why = xe.Name + " failed"
		case errors.As(e.Err, &re):
			why = re.Name + "'s restart failed"
		case e.Err != nil:
			why = e.Err.Error()
		}
		return why + ": stopping everything this up started, in reverse order"
	}
	return ""
}
