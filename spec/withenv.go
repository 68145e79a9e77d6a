package spec

import "maps"

// WithEnv returns a shallow copy of l whose Env has set added over it (l
// itself when set is empty; l is not changed), so that what reads a
// launch's env — its protected names (Protected), the lint of its chain —
// takes run's and relaunch's --set overrides as the spec's own values: a
// dispatcher that re-sources .env clobbers them too.
func (l *Launch) WithEnv(set map[string]string) *Launch {
	if len(set) == 0 {
		return l
	}
	c := *l
	c.Env = maps.Clone(l.Env)
	if c.Env == nil {
		c.Env = map[string]string{}
	}
	maps.Copy(c.Env, set)
	return &c
}
