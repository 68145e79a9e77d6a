//go:build !unix

package statedir

// Migrated is false off Unix: there is no state dir there.
func Migrated(dir string) bool { return false }

// Migrate does nothing off Unix: there is no state dir there.
func Migrate(dir string) error { return nil }

// migrateFresh does nothing off Unix (and created nothing: false).
func migrateFresh(dir string) bool { return false }

// CleanTemps does nothing off Unix.
func CleanTemps(dir, prefix string) int { return 0 }

// CleanRecordTemps does nothing off Unix.
func (s *Store) CleanRecordTemps(name string) int { return 0 }

// IsTemp reports whether name is a temporary file's (see the Unix doc).
func IsTemp(name, prefix string) bool { return false }

// CleanTemp does nothing off Unix.
func CleanTemp(path string) int { return 0 }
