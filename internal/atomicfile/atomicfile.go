package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path atomically with permissions perm: through a
// temporary file in path's directory ("."+base+".*"), renamed over path.
// The temporary file is removed when any step fails. It is not fsync'd:
// Write guards against the writer's death, not the machine's.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// WriteSync is Write made durable: the temporary file is fsync'd before
// the rename and path's directory after it, so the new file also survives
// a crash of the machine. A failed directory fsync is not an error (the
// rename has happened; some file systems cannot sync a directory).
func WriteSync(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

func write(path string, data []byte, perm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil && durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if durable {
		syncDir(dir)
	}
	return nil
}

// syncDir fsyncs a directory, making a rename in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
