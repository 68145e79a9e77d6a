package export

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/childproof/childproof/internal/dotenv"
	"github.com/childproof/childproof/schema"
)

// kubectlEnvLine is one assignment of a file as `kubectl create secret
// generic --from-env-file` reads it.
type kubectlEnvLine struct {
	Name, Value string
	Line        int
	// FromCaller: a line with no '=' takes kubectl's own environment's
	// value (or is skipped when kubectl has none).
	FromCaller bool
	// Invalid: the key is no variable name ("export NAME"): kubectl
	// refuses the whole file.
	Invalid bool
}

// kubectlEnvFile reads data the way kubectl's --from-env-file does
// (k8s.io/kubectl's env file reader): lines as bufio.Scanner splits them
// (a trailing \r dropped), a UTF-8 BOM dropped from the first, leading
// white space trimmed; an empty line or one starting with '#' is skipped;
// the key is what comes before the first '=', the value everything after
// it, as it is: no quote is removed, no escape applied, no trailing blank
// or " # comment" dropped, nothing expanded.
func kubectlEnvFile(data []byte) []kubectlEnvLine {
	var out []kubectlEnvLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for n := 0; sc.Scan(); n++ {
		line := sc.Bytes()
		if n == 0 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimLeftFunc(line, unicode.IsSpace)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		key, value, hasEq := strings.Cut(string(line), "=")
		out = append(out, kubectlEnvLine{Name: key, Value: value, Line: n + 1, FromCaller: !hasEq,
			Invalid: !utf8.ValidString(key) || !schema.IsEnvName(key)})
	}
	return out
}

// checkKubectlEnvFile refuses an env file that kubectl create secret
// --from-env-file would read otherwise than childproof run does (the
// Secret the header tells to create from it would hold other values),
// naming the first line that differs, never a value. As for systemd,
// normalising it into another file would write its values, which are
// secrets.
func (p *plan) checkKubectlEnvFile() error {
	l := p.l
	if l.EnvFile == "" {
		return nil
	}
	data, entries, err := p.readEnvFile()
	if err != nil {
		return err
	}
	ours := dotenv.Map(entries)
	lines := kubectlEnvFile(data)
	kubectl := map[string]kubectlEnvLine{}
	for _, k := range lines {
		refuse := func(why string) error {
			return &UnsupportedError{Engine: Kubernetes, Part: "env_file",
				Feature: fmt.Sprintf("env_file line %d", k.Line),
				Reason:  fmt.Sprintf("%s:%d: %s; write the line as NAME=VALUE with no quotes, no \"export \" and no comment after the value, or set it in env (a Secret reference)", l.EnvFile, k.Line, why)}
		}
		switch {
		case k.Invalid:
			return refuse("kubectl --from-env-file refuses a key that is no variable name (\"export NAME\")")
		case k.FromCaller:
			return refuse(fmt.Sprintf("kubectl --from-env-file takes %s from kubectl's own environment on a line without '='", k.Name))
		}
		kubectl[k.Name] = k
	}
	for _, e := range entries {
		if ours[e.Name].Line != e.Line {
			continue // a later line sets it: judge that one
		}
		k, ok := kubectl[e.Name]
		switch {
		case !ok:
			return &UnsupportedError{Engine: Kubernetes, Part: "env_file", Feature: fmt.Sprintf("env_file line %d (%s)", e.Line, e.Name),
				Reason: fmt.Sprintf("%s:%d: kubectl --from-env-file would not set %s", l.EnvFile, e.Line, e.Name)}
		case k.Value != e.Value:
			return &UnsupportedError{Engine: Kubernetes, Part: "env_file", Feature: fmt.Sprintf("env_file line %d (%s)", e.Line, e.Name),
				Reason: fmt.Sprintf("%s:%d: kubectl --from-env-file reads this value differently (it keeps quotes, escapes, trailing blanks and a \" #\" comment as part of the value), so the Secret would hold another %s than childproof run gives; write the line as NAME=VALUE with no quotes and no comment after the value, or set it in env", l.EnvFile, e.Line, e.Name)}
		}
	}
	for _, k := range lines {
		if name := k.Name; !hasEntry(ours, name) {
			return &UnsupportedError{Engine: Kubernetes, Part: "env_file", Feature: fmt.Sprintf("env_file line %d (%s)", k.Line, name),
				Reason: fmt.Sprintf("%s:%d: kubectl --from-env-file would set %s, which childproof run does not; remove or fix that line", l.EnvFile, k.Line, name)}
		}
	}
	return nil
}

func hasEntry(m map[string]dotenv.Entry, name string) bool {
	_, ok := m[name]
	return ok
}
