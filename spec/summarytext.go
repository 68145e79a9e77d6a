package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SummaryText is what Summary.WriteText is told that schema does not
// know. The zero value shows paths as the launch gives them and the
// worker row empty. It is plain data, safe for concurrent use while no one
// changes it.
type SummaryText struct {
	// Path shows a path of the launch that is not hidden (its directory
	// and env file); `childproof check` shows it relative to the working
	// directory when it lies below it. nil shows it as it is.
	Path func(string) string
	// Worker is the worker row's text, how the worker is chosen:
	// "comm srv", "exe /bin/srv", "the owner of port 8080" or "the
	// launched process". The choice is verify.SelectionOf's, which
	// schema does not import.
	Worker string
}

// WriteText writes s as `childproof check` shows it: a "launch NAME
// (file:line)" line, then a row a part, "  key        text" (the key
// padded to ten), names and placeholders only, never a value. l is the
// launch s was derived from (Launch.Summary): the parts the summary shows
// as they are (name, ports, readiness timeout, restart policy, …) are
// read from it. It returns the writer's error.
func (s Summary) WriteText(w io.Writer, l *Launch, o SummaryText) error {
	var b strings.Builder
	row := func(key, format string, args ...any) {
		fmt.Fprintf(&b, "  %-10s %s\n", key, fmt.Sprintf(format, args...))
	}
	path := func(p Shown) string {
		if p.Hidden || o.Path == nil {
			return p.String()
		}
		return o.Path(p.Value)
	}
	at := ""
	if r := l.Ranges.Block; r.Filename != "" {
		at = fmt.Sprintf(" (%s:%d)", r.Filename, r.Start.Line)
	}
	fmt.Fprintf(&b, "launch %q%s\n", l.Name, at)
	if s.Dispatch {
		row("dispatch", "bash --noprofile --norc %s", strings.Join(s.Argv, " "))
	} else {
		row("command", "%s", strings.Join(s.Argv, " "))
	}
	row("dir", "%s", path(s.Dir))
	if s.EnvFile != (Shown{}) {
		row("env_file", "%s", path(s.EnvFile))
	}
	writeVarSources(&b, s.Env, s.EnvErr)
	if p := l.Protected(); len(p) > 0 {
		row("protected", "%s", strings.Join(p, ", "))
	}
	if len(l.Require) > 0 {
		row("require", "%s", strings.Join(l.Require, ", "))
	}
	// Secret names: the secret list, and env values from env()/file()
	// (a --set of either is never stored in the round history).
	switch {
	case len(s.Secret) > 0 && len(s.SecretFromEnv) > 0:
		row("secret", "%s; from env()/file(): %s", strings.Join(s.Secret, ", "), strings.Join(s.SecretFromEnv, ", "))
	case len(s.Secret) > 0:
		row("secret", "%s", strings.Join(s.Secret, ", "))
	case len(s.SecretFromEnv) > 0:
		row("secret", "from env()/file(): %s", strings.Join(s.SecretFromEnv, ", "))
	}
	for _, p := range l.Ports {
		extra := ""
		if p.AllowAllInterfaces {
			extra = " (all interfaces allowed)"
		}
		row("port", "%s %s%s", p.Name, p.HostPort(), extra)
	}
	if len(l.Ports) == 0 {
		row("port", "none declared: no port is checked")
	}
	row("worker", "%s", o.Worker)
	switch {
	case s.ReadyHTTP != (Shown{}) && len(l.Ready.Status) > 0:
		row("ready", "GET %s answers %s, within %s", s.ReadyHTTP, statusList(l.Ready.Status), l.ReadyTimeout())
	case s.ReadyHTTP != (Shown{}):
		row("ready", "GET %s answers 2xx, within %s", s.ReadyHTTP, l.ReadyTimeout())
	case s.ReadyExec != (Shown{}):
		row("ready", "%s (ready.exec) exits 0, within %s", s.ReadyExec, l.ReadyTimeout())
	case s.ReadyLog != (Shown{}):
		row("ready", "a line of the worker's output matches %s, within %s", s.ReadyLog, l.ReadyTimeout())
	case len(l.Ports) > 0:
		row("ready", "the worker owns the port and accepts a TCP connect, within %s", l.ReadyTimeout())
	default:
		row("ready", "the worker is found and verified, within %s", l.ReadyTimeout())
	}
	row("attempts", "%d", l.EffectiveAttempts())
	row("on_stale", "%s", l.EffectiveOnStale())
	row("forbid", "%s", strings.Join(l.EffectiveForbidWrappers(), ", "))
	if r := l.Restart; r.EffectivePolicy() != RestartNever {
		row("restart", "%s, at most %d, the first after %s (doubling, at most %s)", r.EffectivePolicy(), r.EffectiveMax(), r.EffectiveBackoff(), max(MaxRestartBackoff, r.EffectiveBackoff()))
	}
	if len(l.DependsOn) > 0 {
		row("after", "%s (up starts and verifies them first)", strings.Join(l.DependsOn, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVarSources writes the env rows: every variable name the launch
// passes, padded to the longest, with its sources (VarSource.Describe);
// err, the env file's error, first. Names only.
func writeVarSources(b *strings.Builder, sources []VarSource, err error) {
	if err != nil {
		fmt.Fprintf(b, "  %-10s %v\n", "env", err)
	}
	if len(sources) == 0 {
		fmt.Fprintf(b, "  %-10s none: the worker starts with an empty environment\n", "env")
		return
	}
	width := 0
	for _, s := range sources {
		width = max(width, len(s.Name))
	}
	for i, s := range sources {
		key := ""
		if i == 0 {
			key = "env"
		}
		fmt.Fprintf(b, "  %-10s %-*s  %s\n", key, width, s.Name, s.Describe())
	}
}

// Describe says where v's value comes from, as `childproof check` shows
// it after the name: the winning source, the sources it wins over ("(over
// env_file, inherit)"), an inherit pattern's count of matches, and
// whether the caller gives it, nothing is passed, or it is removed before
// launch. It names no value.
func (v VarSource) Describe() string {
	from := make([]string, len(v.From))
	for j, o := range v.From {
		from[j] = string(o)
		if o == FromInheritPattern {
			if v.Matches == 1 {
				from[j] += " (1 match here)"
			} else {
				from[j] += fmt.Sprintf(" (%d matches here)", v.Matches)
			}
		}
	}
	desc := ""
	if len(from) > 0 {
		desc = from[0]
	}
	if len(from) > 1 {
		desc += " (over " + strings.Join(from[1:], ", ") + ")"
	}
	if v.Unknown {
		desc += " (from the caller, not set here)"
	}
	if v.Unset {
		desc += " (unset here: not passed)"
	}
	if v.Removed {
		desc += " — removed before launch"
	}
	return desc
}

// statusList names HTTP codes: "200", "200 or 204", "200, 204 or 301".
func statusList(codes []int) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}
