package verify

import "testing"

func TestReportFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Report
		want string
	}{
		{"verified", Report{Verified: true}, ""},
		{"no problem named", Report{}, "verification failed"},
		{"the first problem", Report{Problems: []Problem{{Kind: KindEnvMissing, Message: "MOCK_LLM_KEY is not set"}, {Kind: KindPortNotOwned, Message: "port 8080"}}},
			"verification failed on the worker: MOCK_LLM_KEY is not set"},
	} {
		if got := tc.r.Failure(); got != tc.want {
			t.Errorf("%s: Failure() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
