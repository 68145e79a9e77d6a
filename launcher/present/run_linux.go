package present

import (
	"fmt"
	"io"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
)

// RunOutput is what `childproof run` prints once the worker is verified:
// the launch's report and its round. Its JSON is the report's object
// (docs/launcher.md) with "round" added; WriteText is the text. It is plain data: safe for concurrent use while nothing changes it.
type RunOutput struct {
	*verify.Report
	// Round is the launch's round in the history; 0 (left out of the
	// JSON, no round line) when none was recorded.
	Round int `json:"round,omitempty"`
}

// NewRunOutput is la's RunOutput: its report and its round.
func NewRunOutput(la *launcher.Launch) *RunOutput {
	return &RunOutput{Report: la.Report, Round: la.Round()}
}

// WriteText writes o as run's text: the report (verify.Report.WriteText),
// then for a Round the line "  round:   N (childproof history NAME)".
func (o *RunOutput) WriteText(w io.Writer) {
	o.Report.WriteText(w)
	writeRoundLine(w, o.Round, o.Report.Name)
}

// writeRoundLine writes run's and relaunch's round line, nothing for
// round 0.
func writeRoundLine(w io.Writer, round int, name string) {
	if round > 0 {
		fmt.Fprintf(w, "  round:   %d (childproof history %s)\n", round, name)
	}
}
