package schema

import (
	"os"
	"path/filepath"
	"strings"
)

// CompleteSpecName completes the NAME of a SPEC:NAME argument: when arg
// has a ':' after the path of an existing file, it returns SPEC:NAME for
// each of the file's launches (LaunchLabelsOf) whose name starts with what
// follows the ':', and ok; ok is false when arg has no such form.
func CompleteSpecName(arg string) (names []string, ok bool) {
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 {
		return nil, false
	}
	path, prefix := arg[:i], arg[i+1:]
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		return nil, false
	}
	for _, n := range LaunchLabelsOf(path) {
		if strings.HasPrefix(n, prefix) {
			names = append(names, path+":"+n)
		}
	}
	return names, true
}

// CompleteSpecFile lists what completes arg as a spec file: the .hcl files
// and the directories (ending in "/") in arg's directory whose names start
// with arg's last element (hidden ones only when that starts with '.'),
// spelled as arg spells their directory. A file that holds several
// launches is offered as FILE: too, to go on with a name.
func CompleteSpecFile(arg string) []string {
	dir, base := filepath.Split(arg)
	readDir := dir
	if readDir == "" {
		readDir = "."
	}
	ents, err := os.ReadDir(readDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		p := dir + n
		switch {
		case e.IsDir():
			out = append(out, p+"/")
		case strings.HasSuffix(n, ".hcl"):
			out = append(out, p)
			if len(LaunchLabelsOf(p)) > 1 {
				out = append(out, p+":")
			}
		}
	}
	return out
}

// LaunchLabelsOf is LaunchLabels of the spec file at path (from its syntax
// alone, so that a spec that does not load here still lists its
// launches); nil when it cannot be read.
func LaunchLabelsOf(path string) []string {
	src, err := readLimited(path)
	if err != nil {
		return nil
	}
	return LaunchLabels(src, path)
}
