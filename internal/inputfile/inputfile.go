package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Error says why path is not read. It is safe for concurrent use (it is
// never changed after it is made).
type Error struct {
	Path string
	// Why is what makes it unreadable: "is not a regular file (a FIFO)",
	// "is larger than N bytes", "is a file of /proc (procfs), whose reads
	// may block or never end".
	Why string
}

func (e *Error) Error() string { return e.Path + " " + e.Why }

// Open opens the regular file at path for reading, following symlinks as
// open does. The open itself never blocks (O_NONBLOCK: a FIFO with no
// writer), and what was opened is checked with fstat before anything
// reads it: anything but a regular file, or a file of a pseudo file system
// (procfs, sysfs, debugfs, …), is an *Error. The file is in blocking mode
// again when returned.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Error{Path: path, Why: "is not a regular file (" + kind(fi.Mode()) + ")"}
	}
	if why := pseudo(f); why != "" {
		f.Close()
		return nil, nil, &Error{Path: path, Why: why}
	}
	if err := blocking(f); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Read reads the regular file at path (as Open checks it), refusing one
// larger than limit bytes (an *Error), also when it grows while read.
func Read(path string, limit int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	b := make([]byte, 0, fi.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(cap(b), int(limit)+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return nil, tooLarge(path, limit)
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Head reads at most n bytes from the start of the regular file at path
// (as Open checks it).
func Head(path string, n int) ([]byte, error) {
	f, _, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	m, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:m], err
}

func tooLarge(path string, limit int64) *Error {
	return &Error{Path: path, Why: fmt.Sprintf("is larger than %d bytes", limit)}
}

// kind names a file type that is not a regular file.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a file"
}
