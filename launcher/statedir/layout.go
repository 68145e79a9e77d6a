package statedir

import "path/filepath"

// The directories of a state dir.
const (
	RecordsDir = "records"
	LogsDir    = "logs"
	LocksDir   = "locks"
	HistoryDir = "history"
)

// Subdirs are the directories childproof keeps in its state dir.
var Subdirs = []string{RecordsDir, LogsDir, LocksDir, HistoryDir}

// LayoutFile is the state dir's file that says its files are named by
// Encode (written by Migrate); a state dir without it may hold files of
// the legacy naming.
const LayoutFile = "layout"

// layoutV2 is LayoutFile's contents.
const layoutV2 = "childproof state layout 2\n"

// Layout names the files of the launches in the state dir Dir. It is a
// directory name, safe for concurrent use.
type Layout struct{ Dir string }

// Record is the record file of launch name.
func (l Layout) Record(name string) string {
	return filepath.Join(l.Dir, RecordsDir, Encode(name)+".json")
}

// LegacyRecord is where a state dir of the legacy naming kept the record
// of name (the same as Record for most names).
func (l Layout) LegacyRecord(name string) string {
	return filepath.Join(l.Dir, RecordsDir, Legacy(name)+".json")
}

// Log is the log of launch name; earlier logs are Log(name)+".1", ….
func (l Layout) Log(name string) string {
	return filepath.Join(l.Dir, LogsDir, Encode(name)+".log")
}

// Mask is the file of the digests of the last launch's secret values.
func (l Layout) Mask(name string) string {
	return filepath.Join(l.Dir, LogsDir, Encode(name)+".mask")
}

// Lock is the launch lock of name: every command that changes the
// launch's state holds it.
func (l Layout) Lock(name string) string {
	return filepath.Join(l.Dir, LocksDir, Encode(name)+".lock")
}

// HistoryLock is the lock of name's round history.
func (l Layout) HistoryLock(name string) string {
	return filepath.Join(l.Dir, LocksDir, Encode(name)+".history.lock")
}

// History is the directory of name's rounds.
func (l Layout) History(name string) string {
	return filepath.Join(l.Dir, HistoryDir, Encode(name))
}

// CgroupPrefix is the start of the name of every cgroup childproof
// creates for launch name: "childproof-ENC-" (a random suffix follows).
func CgroupPrefix(name string) string { return "childproof-" + Encode(name) + "-" }

// LegacyCgroupPrefix is CgroupPrefix in the legacy naming: cgroups that
// records written before Encode name.
func LegacyCgroupPrefix(name string) string { return "childproof-" + Legacy(name) + "-" }

// NameOfStem returns the launch name a record file's stem encodes, or the
// stem itself when it is not an encoding (a legacy file: its record
// names its launch).
func NameOfStem(stem string) string {
	if n, ok := Decode(stem); ok {
		return n
	}
	return stem
}
