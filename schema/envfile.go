package schema

import (
	"fmt"

	"github.com/childproof/childproof/internal/dotenv"
)

// EnvFileNames returns the names l.EnvFile assigns, in first-seen order;
// nil when the launch has no env file.
func (l *Launch) EnvFileNames() ([]string, error) {
	if l.EnvFile == "" {
		return nil, nil
	}
	data, err := readLimited(l.EnvFile)
	if err != nil {
		return nil, fmt.Errorf("env_file: %w", err)
	}
	entries, err := dotenv.Parse(l.EnvFile, data)
	if err != nil {
		return nil, fmt.Errorf("env_file: %w", err)
	}
	return dotenv.Names(entries), nil
}
