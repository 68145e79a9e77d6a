//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

func write(path string, data []byte, perm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := WriteTemp(dir, "."+filepath.Base(path)+".", data, perm, durable)
	if tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if durable {
		SyncDir(dir)
	}
	return nil
}

// WriteTemp writes data to a new file in dir named prefix and a random
// suffix (os.CreateTemp), with mode perm and fsync'd when durable. It
// returns the file's name even when writing it failed; "" when none was
// created.
func WriteTemp(dir, prefix string, data []byte, perm fs.FileMode, durable bool) (string, error) {
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// SyncDir fsyncs a directory, making a rename in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
