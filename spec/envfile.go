package spec

import (
	"fmt"

	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/internal/inputfile"
)

// EnvFileNames returns the names l.EnvFile assigns, in first-seen order;
// nil when the launch has no env file.
func (l *Launch) EnvFileNames() ([]string, error) {
	entries, err := l.envFileEntries()
	if err != nil {
		return nil, err
	}
	return dotenv.Names(entries), nil
}

// EnvFileVars returns what l.EnvFile assigns, a later line winning; nil
// when the launch has no env file. The file is read as Load reads it: a
// regular file of at most MaxFileSize bytes.
func (l *Launch) EnvFileVars() (map[string]string, error) {
	entries, err := l.envFileEntries()
	if err != nil || entries == nil {
		return nil, err
	}
	vars := make(map[string]string, len(entries))
	for _, e := range entries {
		vars[e.Name] = e.Value
	}
	return vars, nil
}

// envFileEntries reads and parses l.EnvFile. On a syntax error it returns
// the entries before it with the error, as dotenv.Parse does.
func (l *Launch) envFileEntries() ([]dotenv.Entry, error) {
	if l.EnvFile == "" {
		return nil, nil
	}
	data, err := inputfile.Read(l.EnvFile, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("env_file: %w", err)
	}
	entries, err := dotenv.Parse(l.EnvFile, data)
	if err != nil {
		return entries, fmt.Errorf("env_file: %w", err)
	}
	return entries, nil
}

// MaxFileSize bounds the spec file, env files and file() reads: anything
// larger is refused with a diagnostic instead of being read into memory.
const MaxFileSize = 1 << 20
