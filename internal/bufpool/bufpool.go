package bufpool

import "sync"

// Pool is a sync.Pool of byte buffers. It is safe for concurrent use.
// Never give it a buffer that held a secret (an environ).
type Pool struct {
	p   sync.Pool
	max int
}

// New returns a Pool whose new buffers have room for size bytes (none
// when size is 0) and which keeps no buffer of more than max bytes.
func New(size, max int) *Pool {
	p := &Pool{max: max}
	p.p.New = func() any { b := make([]byte, 0, size); return &b }
	return p
}

// Get returns a buffer (empty, with its room) to read into and give back
// with Put.
func (p *Pool) Get() *[]byte { return p.p.Get().(*[]byte) }

// Put gives bp back once the caller is done with b, what a read into
// *bp's room returned (a larger array when the read outgrew it; nil
// after an error): b's array is kept instead when it is larger and at
// most max bytes.
func (p *Pool) Put(bp *[]byte, b []byte) {
	if cap(b) > cap(*bp) && cap(b) <= p.max {
		*bp = b[:0]
	}
	p.p.Put(bp)
}
