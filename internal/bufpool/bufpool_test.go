package bufpool

import "testing"

// TestPut: a buffer a read outgrew is kept up to max, and a larger one
// leaves the old in the pool.
func TestPut(t *testing.T) {
	p := New(8, 64)
	bp := p.Get()
	if len(*bp) != 0 || cap(*bp) != 8 {
		t.Fatalf("Get = len %d cap %d, want 0 and 8", len(*bp), cap(*bp))
	}
	grown := append((*bp)[:0], make([]byte, 40)...)
	p.Put(bp, grown)
	if cap(*bp) < 40 || len(*bp) != 0 {
		t.Errorf("after a read that grew to %d: len %d cap %d, want 0 and the grown room", cap(grown), len(*bp), cap(*bp))
	}
	before := cap(*bp)
	p.Put(bp, make([]byte, 0, 1000))
	if cap(*bp) != before {
		t.Errorf("a buffer over max replaced the kept one: cap %d, want %d", cap(*bp), before)
	}
	p.Put(bp, nil)
	if cap(*bp) != before {
		t.Errorf("Put after an error changed the buffer: cap %d, want %d", cap(*bp), before)
	}
}
