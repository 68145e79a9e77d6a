package statedir

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestDigestPooled: Digest, with its HMAC states reused, is the keyed
// digest of name and value however many goroutines ask at once.
func TestDigestPooled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system")
	}
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := func(name, value string) string {
		m := hmac.New(sha256.New, st.key)
		m.Write([]byte(name))
		m.Write([]byte{0})
		m.Write([]byte(value))
		return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				name, value := fmt.Sprintf("N%d", i%7), fmt.Sprintf("%d-%d", g, i)
				if got, w := st.Digest(name, value), want(name, value); got != w {
					t.Errorf("Digest(%q, %q) = %s, want %s", name, value, got, w)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRecordMACPooled: the MACs of records, rounds and log masks, made
// with pooled HMAC states, are HMAC-SHA256 under the record key of their
// domain and bytes, however many goroutines ask at once.
func TestRecordMACPooled(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the state dir needs a Unix system")
	}
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := func(domain, b string) string {
		m := hmac.New(sha256.New, st.RecordKey())
		m.Write([]byte(domain + b))
		return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				b := fmt.Sprintf("%d-%d", g, i)
				for _, c := range []struct{ domain, got string }{
					{recordV2Domain, st.macV2([]byte(b))},
					{"childproof log mask v1\x00", st.logMaskMACOf([]byte(b))},
					{"", st.macOf([]byte(b))},
				} {
					if w := want(c.domain, b); c.got != w {
						t.Errorf("MAC of %q in %q = %s, want %s", b, c.domain, c.got, w)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
