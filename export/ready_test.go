package export

import (
	"context"
	"strings"
	"testing"

	"github.com/childproof/childproof/internal/testsupport"
)

// TestExportReadyExec: ready.exec is the engines' own check — systemd an
// ExecStartPost= loop bounded by TimeoutStartSec=, Kubernetes the
// readiness probe's exec, Nomad a script check; a ready.exec holding a
// secret is refused, naming it.
func TestExportReadyExec(t *testing.T) {
	dir := testsupport.WriteTree(t, map[string]string{"spec.hcl": `
launch "db" {
  command = ["/usr/lib/postgresql/15/bin/postgres", "-D", "/var/lib/pg"]
  port "pg" {
    number = 5432
  }
  ready {
    exec    = ["pg_isready", "-h", "127.0.0.1", "-p", "5432"]
    timeout = "30s"
  }
}
launch "sec" {
  command = ["/usr/bin/srv"]
  port "p" {
    number = 5433
  }
  ready {
    exec = ["check", env("TOKEN", "tok-value-123")]
  }
}
`})
	l := load(t, dir, "db")
	sd := render(t, l, Options{Engine: Systemd})
	for _, want := range []string{"ExecStartPost=/bin/sh -c \"until \\\"$$@\\\"; do sleep 0.1; done\" childproof-ready pg_isready -h 127.0.0.1 -p 5432\n", "TimeoutStartSec=30s\n"} {
		if !strings.Contains(sd, want) {
			t.Errorf("systemd unit lacks %q:\n%s", want, sd)
		}
	}
	k := render(t, l, Options{Engine: Kubernetes, Image: "img"})
	if !strings.Contains(k, "readinessProbe:\n") || !strings.Contains(k, "- pg_isready") {
		t.Errorf("kubernetes readiness probe is not ready.exec:\n%s", k)
	}
	n := render(t, l, Options{Engine: Nomad, Image: "img"})
	if !strings.Contains(n, `= "pg_isready"`) {
		t.Errorf("nomad job lacks the ready.exec script check:\n%s", n)
	}
	s := load(t, dir, "sec")
	for _, e := range []Engine{Systemd, Kubernetes, Nomad} {
		_, err := Render(context.Background(), s, Options{Engine: e, Image: "img"})
		if err == nil || !strings.Contains(err.Error(), "ready.exec[1]") || strings.Contains(err.Error(), "tok-value-123") {
			t.Errorf("%s: a ready.exec holding a secret: %v, want a refusal naming ready.exec[1]", e, err)
		}
	}

}
