package readiness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/childproof/childproof/internal/probe"
	"github.com/childproof/childproof/spec"
)

// errCutShort is a probe that the readiness deadline ended before it
// could say anything: the previous probe's answer is the one reported.
var errCutShort = errors.New("cut short")

// probeRunTimeout bounds one TCP connect or GET.
const probeRunTimeout = 2 * time.Second

// Connect returns one probe of ports: a TCP connect to each, or with
// path the GET of it from each, its answer judged by match (nil: 2xx),
// each run bounded by probeRunTimeout and the deadline.
func Connect(ports []spec.Port, path string, match func(code int, body []byte) error) func(ctx context.Context, deadline time.Time) error {
	return func(ctx context.Context, deadline time.Time) error {
		t := min(probeRunTimeout, max(time.Until(deadline), time.Millisecond))
		err := probe.ReadyMatch(ctx, ports, path, t, match)
		if err != nil && t < probeRunTimeout && !time.Now().Before(deadline) {
			// The deadline, not the worker, ended this probe: the last
			// answer before it (a 503, a body that did not match) is
			// what the failure says.
			return fmt.Errorf("%w (%w)", err, errCutShort)
		}
		return err
	}
}
