package script

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/childproof/childproof/internal/inputfile"
)

// MaxFileSize bounds the bytes read of one file.
const MaxFileSize = 32 << 20

var errNotFound = errors.New("no such file")

// Read reads the file at abs, at most MaxFileSize bytes of it: a file
// that is missing is "no such file", one that is not a regular file says
// what it is.
func Read(abs string) ([]byte, error) {
	if _, err := os.Stat(abs); err != nil {
		return nil, errNotFound
	}
	f, fi, err := inputfile.Open(abs)
	if ie := (*inputfile.Error)(nil); errors.As(err, &ie) {
		return nil, errors.New(strings.TrimPrefix(ie.Why, "is "))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	// Room for the file and the read that sees its end: bytes.Buffer
	// doubles when less than bytes.MinRead is free.
	b.Grow(int(min(fi.Size()+bytes.MinRead, MaxFileSize+bytes.MinRead)))
	if _, err := b.ReadFrom(&limitedReader{f, MaxFileSize}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type limitedReader struct {
	f *os.File
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("file larger than %d bytes", MaxFileSize)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

// BinaryAt returns the 1-based line and column of the first NUL byte, or 0.
func BinaryAt(src []byte) (int, int) {
	i := bytes.IndexByte(src, 0)
	if i < 0 {
		return 0, 0
	}
	line := 1 + bytes.Count(src[:i], []byte{'\n'})
	col := i - bytes.LastIndexByte(src[:i], '\n')
	return line, col
}
