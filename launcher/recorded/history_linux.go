package recorded

import (
	"errors"
	"time"

	"github.com/childproof/childproof/launcher/statedir"
	"github.com/childproof/childproof/proc"
	"github.com/childproof/childproof/verify"
)

// History is a launch's crash-fix rounds as they stand now — what
// `childproof history` shows. It is plain data, safe for concurrent use
// while no one changes it.
type History struct {
	// Rounds are the recorded rounds, oldest first. A verified round
	// whose worker is gone unseen ends "gone" (FillRoundEnds); a round
	// still "launching" while no launch of the name is under way (or
	// followed by another round) was cut short: its Outcome is
	// "interrupted" here (the file is left as it is).
	Rounds []*statedir.Round
	// Current is the round of the recorded launch, the baseline of the
	// next relaunch; zero when the launch has no readable record.
	Current int
}

// History returns name's rounds (see History.Rounds). The error says
// which rounds could not be read or ended; the rounds read are returned
// with it.
func (s *State) History(p proc.FS, name string) (*History, error) {
	rounds, err := FillRoundEnds(p, s, name)
	h := &History{Rounds: rounds}
	if rec, lerr := s.Load(name); lerr == nil {
		h.Current = rec.Round
	}
	for i, r := range rounds {
		if r.Outcome == statedir.RoundLaunching && (i < len(rounds)-1 || !s.Launching(name)) {
			r.Outcome = statedir.RoundInterrupted
		}
	}
	return h, err
}

// FillRoundEnds records, for every verified round of name whose end is
// not known yet and whose worker is gone (and, for the recorded launch's
// round, not replaced by one its selector re-selects), that it was found gone now
// (status unknown, uptime an upper bound). Detached launches end unseen:
// this is how their end gets into the history, when a later command
// (history, ps, run, relaunch) looks. It returns the rounds.
func FillRoundEnds(p proc.FS, st *State, name string) ([]*statedir.Round, error) {
	rounds, err := st.Rounds(name)
	var open []*statedir.Round
	for _, r := range rounds {
		if r.End == nil && r.Outcome == statedir.RoundVerified && r.Worker != nil {
			open = append(open, r)
		}
	}
	if len(open) == 0 {
		return rounds, err
	}
	unlock, lerr := st.LockHistory(name)
	if lerr != nil {
		return rounds, errors.Join(err, lerr)
	}
	defer unlock()
	// The round of the recorded launch is alive while its tree runs a
	// worker its selector picks, the recorded one gone or not (a
	// respawn): that round has not ended.
	rec, _ := st.Load(name)
	for _, r := range open {
		live := r.Worker.Check(p)
		if live != verify.Gone && live != verify.Reused {
			continue
		}
		if rec != nil && rec.Round == r.N {
			if again, _ := st.ReselectLive(p, rec); again != nil {
				continue
			}
		}
		cur, lerr := st.LoadRound(name, r.N)
		if lerr != nil || cur.End != nil {
			if cur != nil {
				*r = *cur
			}
			continue
		}
		st.SetEnd(r, &statedir.RoundEnd{At: time.Now().UTC(), How: statedir.EndGone, Seen: statedir.SeenCensus, UptimeAtMost: true})
		st.SaveRound(r, true)
	}
	return rounds, err
}
