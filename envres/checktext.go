package envres

import (
	"fmt"
	"strings"
)

// This file holds the lines `childproof check` writes of lint results:
// a launch's lint row (CheckRow) and the closing line of a spec file
// (CheckVerdict).

// CheckRow is the lint row of a launch's summary in check's text, its
// result res (rebased for the user, Result.Rebase), without a newline:
// "  lint       ok (job.sh, lib.sh)" naming the files read when nothing
// was found, "  lint       ok (no script: a command launch)" when
// nothing was found and no file read, else "  lint       1 error, 2
// warnings" (the findings follow it). A nil res reads as an empty one.
func (res *Result) CheckRow() string {
	e, w := res.Count()
	var files []string
	if res != nil {
		files = res.Files
	}
	switch {
	case e+w == 0 && len(files) == 0:
		// A command launch: no script, nothing to lint but its argv.
		return fmt.Sprintf("  %-10s ok (no script: a command launch)", "lint")
	case e+w == 0:
		return fmt.Sprintf("  %-10s ok (%s)", "lint", strings.Join(files, ", "))
	}
	return fmt.Sprintf("  %-10s %s, %s", "lint", plural(e, "error"), plural(w, "warning"))
}

// CheckVerdict is the closing line of check's text for the spec file
// path (as given), launches the number of launches checked and merged
// their results merged (Merge), without a newline: "PATH: STATUS: N
// launches checked, E lint errors, W lint warnings", STATUS "FAILED"
// with an error, "FAILED (--strict)" with a warning and strict, else
// "ok".
func CheckVerdict(path string, launches int, merged *Result, strict bool) string {
	errs, warns := merged.Count()
	status := "ok"
	switch {
	case errs > 0:
		status = "FAILED"
	case warns > 0 && strict:
		status = "FAILED (--strict)"
	}
	return fmt.Sprintf("%s: %s: %s checked, %s, %s", path, status, plural(launches, "launch"), plural(errs, "lint error"), plural(warns, "lint warning"))
}

// plural is n and word, with "s" (or "es" after an "h") unless n is 1:
// "1 error", "2 errors", "3 launches".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "h") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
