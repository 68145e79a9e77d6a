package atomicfile

import (
	"io/fs"
	"os"
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

// WriteOutput writes a file the user named as an output (-o FILE): a new
// or regular file is replaced atomically, as by Write; a path that exists
// as anything else (a device such as /dev/null or /dev/stdout, a FIFO, a
// symbolic link) is written through and kept, never replaced by a rename.
// State files never come here: Write does not follow what it replaces.
func WriteOutput(path string, data []byte, perm fs.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return Write(path, data, perm)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
