package spec

import (
	"fmt"
	"strings"
)

// InvalidError is a Launch that breaks the spec language's rules: each
// problem names the field ("port[0].number") and says what is wrong, in
// the words a spec's diagnostics use. It is plain data, safe for concurrent
// use while no one changes it.
type InvalidError struct {
	Launch   string
	Problems []FieldProblem
	// GoNames renders the fields by their Go names (Ports[0].Number,
	// Ready.Timeout), for a caller that built the Launch in Go; false:
	// the spec language's (port[0].number, ready.timeout).
	GoNames bool
}

// FieldProblem is one broken rule of a Launch. It is plain data, safe for
// concurrent use while no one changes it.
type FieldProblem struct {
	Field, Summary, Detail string
}

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if e.GoNames {
			parts[i] = GoField(p.Field) + ": " + goDetail(p.Detail)
			continue
		}
		parts[i] = p.Field + ": " + p.Detail
	}
	return fmt.Sprintf("launch %q is invalid: %s", e.Launch, strings.Join(parts, "; "))
}

// GoField names a field path of the spec language ("port[0].number",
// "ready.timeout", "env[NAME]", "worker.comm", a role's "worker[1].comm")
// by the Go fields of Launch ("Ports[0].Number", "Ready.Timeout",
// "Env[NAME]", "Worker.Comm", "Roles[1].Worker.Comm").
func GoField(path string) string {
	var b strings.Builder
	role := false // the previous segment was a role, worker[i]
	for i, seg := range strings.Split(path, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		name, index, _ := strings.Cut(seg, "[")
		switch {
		case i == 0 && name == "port":
			name = "ports"
		case i == 0 && name == "worker" && index != "":
			role = true
			b.WriteString("Roles[" + index)
			continue
		case role && name != "name" && name != "ports":
			b.WriteString("Worker.") // comm, exe, count: the role's Worker
		}
		for _, w := range strings.Split(name, "_") {
			if w != "" {
				b.WriteString(strings.ToUpper(w[:1]) + w[1:])
			}
		}
		if index != "" {
			b.WriteString("[" + index)
		}
	}
	out := b.String()
	for spec, goName := range goFieldNames {
		out = strings.ReplaceAll(out, spec, goName)
	}
	return out
}

// goFieldNames are the Go names the snake-to-camel rule does not give.
var goFieldNames = map[string]string{"Http": "HTTP", "NtasksPerNode": "TasksPerNode", "Log.Keep": "LogKeep"}

// goDetail rewrites what a problem's detail says in the spec language.
func goDetail(d string) string {
	return strings.ReplaceAll(d, "write allow_all_interfaces = true in this port block", "set AllowAllInterfaces: true in this Port")
}
