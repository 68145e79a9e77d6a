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
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
