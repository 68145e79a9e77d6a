package verify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// explanation is an Explain of names over rows, judged against intended,
// as ExplainRecorded and ExplainPid build it.
func explanation(rows []ExplainRow, names []string, intended map[string]string) *Explanation {
	return &Explanation{Names: names, Rows: rows, Judgements: Judge(rows, names, intended)}
}

const (
	dGood = "hmac-sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	dBad  = "hmac-sha256:ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
)

// TestExplanationWriteText: explain's text, byte for byte — the header
// with the intended value's short digest, one line per process (state,
// at-exec evidence, argv cut at 60 bytes, the marks) and the answer.
func TestExplanationWriteText(t *testing.T) {
	shown := "0"
	long := []string{"python", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/llama-3-70b-instruct"}
	tests := []struct {
		name, title string
		ex          *Explanation
		want        string
	}{{
		name: "first differs at the worker", title: "api",
		ex: explanation([]ExplainRow{
			{Pid: 100, Comm: "bash", Argv: []string{"bash"}, Role: RoleAncestor, Vars: []ExplainVar{{Name: "K", State: VarUnset}}},
			{Pid: 200, Comm: "sh", Argv: []string{"sh", "-c", "run"}, Role: RoleRoot, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood, Changed: true}}},
			{Pid: 300, Comm: "python", Argv: long, Role: RoleWorker, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dBad, Changed: true}}},
		}, []string{"K"}, map[string]string{"K": dGood}),
		want: `K in api (intended: hmac-sha256:0011223344556677…)
  ancestor   pid 100     bash             unset                                bash
  root       pid 200     sh               set hmac-sha256:0011223344556677…    sh -c run   <- changes here
  worker     pid 300     python           set hmac-sha256:ffeeddccbbaa9988…    python -m vllm.entrypoints.openai.api_server --model /models…   <- changes here   <- NOT the intended value
  answer:  K first differs from the intended value at pid 300 (worker, python)
note: ` + FrozenNote + "\n",
	}, {
		name: "held everywhere, evidence at exec, a value shown, two names", title: "pid 200",
		ex: explanation([]ExplainRow{
			{Pid: 200, Comm: "sh", Argv: []string{"sh"}, Role: RoleRoot, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood}, {Name: "HF", State: VarSet, Value: &shown, Digest: dBad}}},
			{Pid: 201, Comm: "srv", Argv: []string{"srv"}, Role: RoleWorker, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood, Evidence: EvidenceExec}, {Name: "HF", State: VarEmpty, Changed: true}}},
		}, []string{"K", "HF"}, map[string]string{"K": dGood}),
		want: `K in pid 200 (intended: hmac-sha256:0011223344556677…)
  root       pid 200     sh               set hmac-sha256:0011223344556677…    sh
  worker     pid 201     srv              set hmac-sha256:0011223344556677… (at exec) srv
  answer:  K has the intended value on every process from the root to the worker

HF in pid 200
  root       pid 200     sh               set "0"                              sh
  worker     pid 201     srv              empty                                srv   <- changes here
note: ` + FrozenNote + "\n",
	}, {
		name: "worker unreadable", title: "api",
		ex: explanation([]ExplainRow{
			{Pid: 200, Comm: "sh", Role: RoleRoot, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood}}},
			{Pid: 201, Comm: "srv", Role: RoleWorker, Vars: []ExplainVar{{Name: "K", State: VarUnreadable}}},
			{Pid: 202, Comm: "helper", Argv: []string{"helper"}, Role: RoleDescendant, Vars: []ExplainVar{{Name: "K", State: VarUnset}}},
		}, []string{"K"}, map[string]string{"K": dGood}),
		want: `K in api (intended: hmac-sha256:0011223344556677…)
  root       pid 200     sh               set hmac-sha256:0011223344556677…    
  worker     pid 201     srv              unreadable                              <- cannot be judged (env-unreadable)
  descendant pid 202     helper           unset                                helper
  answer:  K cannot be judged on the worker: it rewrote its environment block and no exec-time evidence holds (env-unreadable, as verify says); the readable processes above it have the intended value
note: ` + FrozenNote + "\n",
	}, {
		name: "no names", title: "api", ex: explanation(nil, nil, nil),
		want: "note: " + FrozenNote + "\n",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.ex.WriteText(&b, tc.title)
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("WriteText (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplanationJSON: explain --format json's object — its keys, and
// first_differs, intended and unreadable_on_worker never null.
func TestExplanationJSON(t *testing.T) {
	rows := []ExplainRow{
		{Pid: 200, PPid: 1, Comm: "sh", Argv: []string{"sh"}, Role: RoleRoot, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood}, {Name: "U", State: VarSet, Digest: dBad}}},
		{Pid: 201, PPid: 200, Comm: "srv", Argv: []string{"srv"}, Role: RoleWorker, Vars: []ExplainVar{{Name: "K", State: VarSet, Digest: dGood}, {Name: "U", State: VarUnreadable}}},
	}
	tests := []struct {
		name string
		ex   *Explanation
		want string
	}{{
		name: "none intended",
		ex:   explanation(rows[:1], []string{"K", "U"}, nil),
		want: `{"launch":"api","intended":{},"first_differs":{},"unreadable_on_worker":[],"processes":[` +
			`{"pid":200,"ppid":1,"comm":"sh","argv":["sh"],"role":"root","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"set","digest":"` + dBad + `","changed":false}]}],"note":"` + FrozenNote + `"}`,
	}, {
		name: "held, unreadable",
		ex:   explanation(rows, []string{"K", "U"}, map[string]string{"K": dGood, "U": dBad}),
		want: `{"launch":"api","intended":{"K":"` + dGood + `","U":"` + dBad + `"},"first_differs":{"K":null,"U":null},"unreadable_on_worker":["U"],"processes":[` +
			`{"pid":200,"ppid":1,"comm":"sh","argv":["sh"],"role":"root","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"set","digest":"` + dBad + `","changed":false}]},` +
			`{"pid":201,"ppid":200,"comm":"srv","argv":["srv"],"role":"worker","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"unreadable","changed":false}]}],"note":"` + FrozenNote + `"}`,
	}, {
		name: "first differs",
		ex:   explanation(rows, []string{"K", "U"}, map[string]string{"K": dBad}),
		want: `{"launch":"api","intended":{"K":"` + dBad + `"},"first_differs":{"K":{"pid":200,"ppid":1,"comm":"sh","argv":["sh"],"role":"root","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"set","digest":"` + dBad + `","changed":false}]}},"unreadable_on_worker":["U"],"processes":[` +
			`{"pid":200,"ppid":1,"comm":"sh","argv":["sh"],"role":"root","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"set","digest":"` + dBad + `","changed":false}]},` +
			`{"pid":201,"ppid":200,"comm":"srv","argv":["srv"],"role":"worker","vars":[{"name":"K","state":"set","digest":"` + dGood + `","changed":false},{"name":"U","state":"unreadable","changed":false}]}],"note":"` + FrozenNote + `"}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.ex.JSON("api"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(b)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShortDigest: a keyed digest is cut after 16 hex digits; anything
// else is shown as it is.
func TestShortDigest(t *testing.T) {
	tests := []struct{ in, want string }{
		{dGood, "hmac-sha256:0011223344556677…"},
		{"hmac-sha256:0011223344556677", "hmac-sha256:0011223344556677"},
		{"", ""},
		{"d:" + strings.Repeat("x", 40), "d:" + strings.Repeat("x", 40)},
	}
	for _, tc := range tests {
		if got := ShortDigest(tc.in); got != tc.want {
			t.Errorf("ShortDigest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClip: a column value longer than its width is cut to the width,
// ending with "…"; a short one (or a width of 0) is kept; runes, not bytes.
func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"verified", 16, "verified"},
		{"failed (env-mismatch,port-not-owned)", 16, "failed (env-mis…"},
		{"ééééé", 3, "éé…"},
		{"abc", 0, "abc"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
