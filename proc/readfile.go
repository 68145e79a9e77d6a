package proc

// ReadFile reads the whole file at path, as os.ReadFile does and with its
// errors, without os.ReadFile's poller set-up and fstat on Linux (five
// system calls of eight for a /proc or cgroup file): for the launcher's
// reads of such files on a start's hot path.
func ReadFile(path string) ([]byte, error) { return readFile(path) }
