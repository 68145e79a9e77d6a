package statedir

import (
	"os"
	"path/filepath"
	"strings"
)

// Names lists the launch names of the record files in the state dir
// l.Dir, in directory order, without opening the state dir: nothing is
// created, migrated, locked or authenticated (shell completion reads it).
// Temporary files (a leading '.') and files other than regular *.json
// ones are skipped; a legacy file's name is its stem (NameOfStem). A
// missing records directory lists nothing.
func (l Layout) Names() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(l.Dir, RecordsDir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() && !strings.HasPrefix(n, ".") {
			out = append(out, NameOfStem(n))
		}
	}
	return out, nil
}
