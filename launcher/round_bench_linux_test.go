package launcher

import (
	"testing"

	"github.com/childproof/childproof/schema"
)

// BenchmarkRoundBookkeeping is what the round history adds to a launch's
// hot path: number the round and write it "launching" (no fsync), then
// write its outcome (fsync'd, like a record).
func BenchmarkRoundBookkeeping(b *testing.B) {
	st, err := OpenState(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	l := &schema.Launch{Name: "bench", Command: []string{"true"}}
	opts := Options{EnvInput: EnvInput{Set: map[string]string{"A": "1", "B": "2"}}, Provenance: Provenance{Command: "run"}}
	for b.Loop() {
		_, prev, prevErr := st.LoadFile(l.Name)
		r := st.beginRound(l, opts, nil, prev, prevErr)
		r.Outcome = "verified"
		if err := st.SaveRound(r, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordSave is the fsync'd record write of every launch, to
// compare BenchmarkRoundBookkeeping with.
func BenchmarkRecordSave(b *testing.B) {
	st, _ := OpenState(b.TempDir())
	r := &Record{Name: "bench", Env: map[string]string{}, WorkerEnv: map[string]string{"A": "x"}}
	for b.Loop() {
		st.Save(r)
	}
}
