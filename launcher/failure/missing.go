package failure

import (
	"fmt"
	"strconv"
	"strings"
)

// Words name a launch's environment sources, setting a variable in the
// caller, and the launch's user and group, in a caller's terms. It is
// plain data, safe for concurrent use while no one changes it.
type Words struct {
	Inherit, Env, EnvFile, Export string
	// User and Group are what names the launch's user and group before
	// its quoted value (`User ` for Go).
	User, Group string
}

// RunAs names the user and group a launch runs as (either may be "") in
// w's words: `User "nobody" and Group "nogroup"`.
func (w Words) RunAs(user, group string) string {
	var parts []string
	if user != "" {
		parts = append(parts, w.User+strconv.Quote(user))
	}
	if group != "" {
		parts = append(parts, w.Group+strconv.Quote(group))
	}
	return strings.Join(parts, " and ")
}

// Say says why the missing names reached no source, and what to do, in
// w's words.
func (m *Missing) Say(w Words) (msg, hint string) {
	inherit, env, export := w.Inherit, w.Env, w.Export
	values := func(names []string) string {
		if len(names) == 1 {
			return "give it a value in " + env
		}
		return "give them values in " + env
	}
	var whys, hints []string
	if len(m.NotPassed) > 0 {
		passes := strings.Join(m.Inherit, ", ")
		switch {
		case len(m.Inherit) == 0:
			passes = "nothing"
		case m.DefaultInherit:
			passes += " (the default)"
		}
		whys = append(whys, fmt.Sprintf("%s %s set in the caller but not passed: %s passes %s", strings.Join(m.NotPassed, ", "), isAre(len(m.NotPassed)), inherit, passes))
		hints = append(hints, fmt.Sprintf("add %s to %s, or %s", strings.Join(m.NotPassed, ", "), inherit, values(m.NotPassed)))
	}
	missing := len(m.Names)
	if len(m.Unset) > 0 {
		why := inherit + " passes it from the caller, and it is not set here"
		if len(m.Unset) > 1 {
			why = inherit + " passes them from the caller, and they are not set here"
		}
		if len(m.Unset) < missing {
			why = strings.Join(m.Unset, ", ") + ": " + why
		}
		whys = append(whys, why)
		hints = append(hints, fmt.Sprintf("%s %s before launching, or %s", export, strings.Join(m.Unset, ", "), values(m.Unset)))
	}
	if len(m.Unnamed) > 0 {
		whys = append(whys, fmt.Sprintf("%s %s in no source (%s, %s, %s) and not set in the caller", strings.Join(m.Unnamed, ", "), isAre(len(m.Unnamed)),
			env, w.EnvFile, inherit))
		hints = append(hints, fmt.Sprintf("%s, or add %s to %s and %s %s", values(m.Unnamed), strings.Join(m.Unnamed, ", "), inherit, export, strings.Join(m.Unnamed, ", ")))
	}
	msg = fmt.Sprintf("required %s %s: %s; nothing was started", plural(missing, "variable"), strings.Join(m.Names, ", "), strings.Join(whys, "; "))
	return msg, strings.Join(hints, "; ")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// plural is word for n things.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
