package testsupport

import (
	"fmt"
	"strings"
)

// SpecAt returns a spec that writes expr at place, a path of
// schema.Places (launch.worker.exe, variable.default, alias.use,
// launch.worker "NAME".ports), with what its blocks need besides (a
// launch's command, a port's number, a restart's policy, a role's
// selector), so that a test can put env() everywhere the spec language
// takes an expression.
func SpecAt(place, expr string) string {
	parts := strings.Split(place, ".")
	attr := parts[len(parts)-1]
	launch := func(body string) string {
		if attr != "command" && attr != "dispatch" || len(parts) > 2 {
			body = "  command = [\"true\"]\n" + body
		}
		return "launch \"x\" {\n" + body + "}\n"
	}
	line := fmt.Sprintf("%s = %s\n", attr, expr)
	switch parts[0] {
	case "variable":
		return "variable \"v\" {\n  " + line + "}\n" + launch("")
	case "alias":
		return "alias \"A\" {\n  " + line + "}\n" + launch("")
	}
	if len(parts) == 2 {
		return launch("  " + line)
	}
	block, label, need := parts[1], "", ""
	switch block {
	case "port":
		label = ` "p"`
		if attr != "number" {
			need = "    number = 1234\n"
		}
	case "restart":
		if attr != "policy" {
			need = "    policy = \"always\"\n"
		}
	case `worker "NAME"`:
		block = `worker "w"`
		if attr != "comm" && attr != "exe" {
			need = "    comm = \"w\"\n"
		}
	}
	return launch("  " + block + label + " {\n" + need + "    " + line + "  }\n")
}
