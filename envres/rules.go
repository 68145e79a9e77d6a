package envres

// Severity is how much a rule's findings weigh: an error fails lint (and
// check, run), a warning fails only lint --strict. Its text is the JSON
// "severity" and SARIF's level.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// A Rule is one lint check, in the style of golang.org/x/tools/go/analysis:
// a value with a stable name, a severity and documentation. Rules report; the
// driver (lintreport) formats. The names are stable: scripts, suppression
// comments and SARIF consumers match on them. It is plain data, safe for
// concurrent use: every Lint shares the package's rules, so never change
// one.
type Rule struct {
	// Name is the stable rule name, also the SARIF ruleId and the word in
	// suppression comments.
	Name string
	// Severity is SeverityError or SeverityWarning.
	Severity Severity
	// Short is a one-line description.
	Short string
	// Doc explains what the rule finds, why it matters and how to fix it
	// (SARIF help text).
	Doc string
	// Run reports the rule's findings from the facts of the walk (Pass);
	// every rule has one.
	Run func(*Pass)
}

// Rules returns every rule, in the order of docs/lint.md.
func Rules() []*Rule {
	return []*Rule{EnvFileClobber, EnvFileLoad, AssignClobber, UnsetProtected, EnvReset, LoginShell,
		InteractiveShell, BackgroundLaunch, Pidfile, AllInterfaces, NoopAlias, DynamicSource, EnvActivate, ParseErrorRule}
}

// RuleByName returns the rule with that name, or nil.
func RuleByName(name string) *Rule {
	for _, r := range Rules() {
		if r.Name == name {
			return r
		}
	}
	return nil
}
