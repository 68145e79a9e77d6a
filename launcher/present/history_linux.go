package present

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/childproof/childproof/launcher"
	"github.com/childproof/childproof/verify"
)

// This file holds `childproof history`'s outputs: the rounds table and
// its JSON object (History), and the --diff table (RoundsDiff).

// HistoryOutput is `childproof history NAME --format json`'s object:
// {"current": N, "name": NAME, "rounds": [...]}. It is plain data: safe for concurrent use while nothing changes it.
type HistoryOutput struct {
	// Current is History.Current: the round of the recorded launch, 0
	// for none.
	Current int `json:"current"`
	// Name is the launch's name.
	Name string `json:"name"`
	// Rounds are the rounds, oldest first, each Round.Redacted; never
	// nil ([] for none).
	Rounds []*launcher.Round `json:"rounds"`
}

// NewHistoryOutput is h's HistoryOutput for the launch name, each round
// redacted (Round.Redacted(showValues): a non-secret --set value only
// with showValues, a secret one never).
func NewHistoryOutput(h *launcher.History, name string, showValues bool) *HistoryOutput {
	out := &HistoryOutput{Current: h.Current, Name: name, Rounds: make([]*launcher.Round, 0, len(h.Rounds))}
	for _, r := range h.Rounds {
		out.Rounds = append(out.Rounds, r.Redacted(showValues))
	}
	return out
}

// historyRow is the layout of a row of history's table.
const historyRow = "%-5s %-19s %-8s %-16s %-26s %-10s %s\n"

// WriteHistory writes h as history's table: the header "ROUND WHEN COMMAND
// OUTCOME ENDED UPTIME DELTA", one row per round — its number, "*" after
// the Current one, when it started in local time ("2006-01-02
// 15:04:05"), its command, OutcomeText, EndText, UptimeText(now) and
// DeltaText(o) — each followed by a line
// "      signal: …, to pid N" per signal its tree received; then, for a
// Current round, the line "* the recorded launch (the baseline of the
// next relaunch): round N". A History without rounds writes the header
// only (the CLI says "no round … is recorded" instead).
func WriteHistory(w io.Writer, h *launcher.History, o TextOptions, now time.Time) {
	fmt.Fprintf(w, historyRow, "ROUND", "WHEN", "COMMAND", "OUTCOME", "ENDED", "UPTIME", "DELTA")
	for _, r := range h.Rounds {
		mark := ""
		if r.N == h.Current {
			mark = "*"
		}
		fmt.Fprintf(w, historyRow, strconv.Itoa(r.N)+mark, r.Started.Local().Format("2006-01-02 15:04:05"),
			verify.Clip(string(r.Command), 8), verify.Clip(OutcomeText(r), 16), verify.Clip(EndText(r), 26), UptimeText(r, now), DeltaText(r, o))
		for _, s := range r.Signals {
			fmt.Fprintf(w, "      signal: %s, to pid %d\n", s, s.ToPid)
		}
	}
	if h.Current > 0 {
		fmt.Fprintf(w, "* the recorded launch (the baseline of the next relaunch): round %d\n", h.Current)
	}
}

// WriteText writes d as history --diff's text: the Summary line, then
// per name that differs "  NAME  HOW" with the names padded to the
// longest, and its Note.
func (d *RoundsDiff) WriteText(w io.Writer) {
	fmt.Fprintln(w, d.Summary())
	width := 0
	for _, n := range d.Differ {
		width = max(width, len(n.Name))
	}
	for _, n := range d.Differ {
		fmt.Fprintf(w, "  %-*s  %s%s\n", width, n.Name, n.How, n.Note())
	}
}
