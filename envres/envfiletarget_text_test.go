package envres

import "testing"

// TestEnvFileTargetText pins relaunch --in-env-file's words for a
// target: where its file assigns the name, the clobbering load, and why
// each kind of blocked file cannot take the value, with files relative
// to the working directory given or as recorded.
func TestEnvFileTargetText(t *testing.T) {
	site := Pos{File: "scripts/dispatch.sh", Line: 6, Column: 3}
	for _, c := range []struct {
		name           string
		t              EnvFileTarget
		wd             string
		fileAt, siteAt string
		why            string
	}{
		{"editable", EnvFileTarget{File: "/srv/job/conf/job.env", Line: 4, Site: site}, "/srv/job",
			"conf/job.env:4", "scripts/dispatch.sh:6", ""},
		{"editable, as recorded", EnvFileTarget{File: "/srv/job/conf/job.env", Line: 4, Site: site}, "",
			"/srv/job/conf/job.env:4", "scripts/dispatch.sh:6", ""},
		{"editable, outside wd", EnvFileTarget{File: "/etc/job.env", Line: 4, Site: site}, "/srv/job",
			"/etc/job.env:4", "scripts/dispatch.sh:6", ""},
		{"not assigned there", EnvFileTarget{File: "/srv/job/job.env", Site: site}, "/srv/job",
			"job.env", "scripts/dispatch.sh:6", ""},
		{"not from a file", EnvFileTarget{Site: site, Blocked: NotFromFile}, "/srv/job",
			"", "scripts/dispatch.sh:6", "its value there does not come from a file the chain reads"},
		{"several files", EnvFileTarget{Site: site, Blocked: SeveralFiles, Files: []string{"/srv/job/a.env", "/etc/b.env"}}, "/srv/job",
			"", "scripts/dispatch.sh:6", "it may come from several env files (a.env, /etc/b.env), depending on the path taken"},
		{"not a file", EnvFileTarget{Site: site, Blocked: NotAFile}, "/srv/job",
			"", "scripts/dispatch.sh:6", "its value comes from something that is not a file (a here-document, a command's output)"},
		{"generated", EnvFileTarget{File: "/srv/job/run/gen.env", Line: 2, Site: site, Blocked: GeneratedFile}, "/srv/job",
			"run/gen.env:2", "scripts/dispatch.sh:6", "the chain writes run/gen.env itself (a generated file): an edit would be overwritten"},
		{"generated, as recorded", EnvFileTarget{File: "/srv/job/run/gen.env", Site: site, Blocked: GeneratedFile}, "",
			"/srv/job/run/gen.env", "scripts/dispatch.sh:6", "the chain writes /srv/job/run/gen.env itself (a generated file): an edit would be overwritten"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.t.FileAt(c.wd); got != c.fileAt {
				t.Errorf("FileAt = %q, want %q", got, c.fileAt)
			}
			if got := c.t.SiteAt(); got != c.siteAt {
				t.Errorf("SiteAt = %q, want %q", got, c.siteAt)
			}
			if got := c.t.Why(c.wd); got != c.why {
				t.Errorf("Why = %q, want %q", got, c.why)
			}
		})
	}
}
