package group

import (
	"errors"
	"fmt"
)

// String is the line `childproof up` shows for e (after its
// "childproof: up: " prefix): "NAME exited with status N; restart R of
// MAX in DELAY" (EventRestarting); "NAME exited with status N", with
// " after R restarts: giving up (max MAX)" when a non-zero exit exhausted
// the restart policy (EventExited); "WHY: stopping everything this up
// started, in reverse order" (EventStopping), WHY naming the launch that
// failed or whose restart failed, else Err's text. "" for an Event of no
// known Kind (the zero Event).
func (e Event) String() string {
	switch e.Kind {
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
