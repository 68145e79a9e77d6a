package launcher

import "fmt"

// Replaced says that a launch's OnStale ("replace") stopped the previous
// launch of the same name before starting, for Callbacks.Replaced. It is
// plain data, safe for concurrent use while no one changes it.
type Replaced struct {
	// Name is the launch's name.
	Name string
	// Port is the declared port the previous launch held; 0: the
	// previous launch was found running by its record (From, What).
	Port int
	// From is the spec file the previous launch was recorded from ("an
	// unnamed spec" when none); What names its worker ("pid 4312") or
	// its members.
	From, What string
	// Stopped is what stopping it did.
	Stopped string
}

// GoReplace is what replaces a previous launch, in a Go-built launch's
// fields.
const GoReplace = `OnStale is "replace"`

// Say is what r says, after why, the setting that replaced the previous
// launch (GoReplace for Go).
func (r *Replaced) Say(why string) string {
	if r.Port != 0 {
		return fmt.Sprintf("%s: port %d was held by the previous launch of %q; %s", why, r.Port, r.Name, r.Stopped)
	}
	return fmt.Sprintf("%s: the previous launch of %q (from %s, %s) was still running; %s", why, r.Name, r.From, r.What, r.Stopped)
}
