package spec

// AliasOf returns the variable that takes effect in place of name when
// name is a known no-op alias — the spec's alias blocks (Aliases), else
// BuiltinAliases — and whether it is one: setting an alias does nothing.
func (l *Launch) AliasOf(name string) (string, bool) {
	if real, ok := l.Aliases[name]; ok {
		return real, true
	}
	real, ok := BuiltinAliases[name]
	return real, ok
}
