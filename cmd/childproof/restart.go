package main

import "time"

// maxBackoff caps the exponential restart backoff (unless the spec's
// backoff is longer: then that is the wait every time).
const maxBackoff = 30 * time.Second
