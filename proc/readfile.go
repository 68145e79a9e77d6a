package proc

// ReadFile reads the whole file at path, as os.ReadFile does and with its
// errors, without os.ReadFile's poller set-up and fstat on Linux (five
// system calls of eight for a /proc or cgroup file): for the launcher's
// reads of such files on a start's hot path.
func ReadFile(path string) ([]byte, error) { return readFile(path) }

// ScanFile reads the whole file at path as ReadFile does, into a buffer
// reused from call to call, and gives it to f, which must keep no part
// of it once it returns: for a file that is parsed and dropped (a
// status, a cgroup listing) on a start's hot path, never for one that
// holds secrets (an environ). f is not called when the read fails.
func ScanFile(path string, f func(b []byte)) error {
	bp := recBufs.Get()
	b, err := readFileInto(path, (*bp)[:0])
	if err == nil {
		f(b)
	}
	recBufs.Put(bp, b)
	return err
}
