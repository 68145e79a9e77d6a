package export

import (
	"strings"
	"testing"
	"time"

	"github.com/childproof/childproof/schema"
	corev1 "k8s.io/api/core/v1"
)

// TestExportStop: the spec's stop block becomes each engine's own
// setting — systemd KillSignal=/TimeoutStopSec=, Nomad kill_signal/
// kill_timeout, Kubernetes terminationGracePeriodSeconds and a preStop
// hook sending the signal, SLURM --signal — and without one the engines
// keep their defaults (systemd's TimeoutStopSec= is childproof's 10s).
func TestExportStop(t *testing.T) {
	l := load(t, storyTree(t), "mock-llm")
	l.Stop = schema.Stop{Signal: "SIGQUIT", Timeout: 30 * time.Second}

	unit := render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
	for _, want := range []string{"KillSignal=SIGQUIT\n", "TimeoutStopSec=30s\n", "systemctl stop sends SIGQUIT"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	systemdVerify(t, l.Name, unit)

	job := decodeNomad(t, render(t, l, Options{Engine: Nomad}))
	task := job.TaskGroups[0].Tasks[0]
	if task.KillSignal != "SIGQUIT" || task.KillTimeout == nil || *task.KillTimeout != 30*time.Second {
		t.Errorf("nomad task: kill_signal %q kill_timeout %v", task.KillSignal, task.KillTimeout)
	}

	var pod corev1.Pod
	decodeK8s(t, render(t, l, Options{Engine: Kubernetes, Kind: KindPod, Image: "img"}), &pod)
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g != 30 {
		t.Errorf("terminationGracePeriodSeconds %v", g)
	}
	c := pod.Spec.Containers[0]
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Exec == nil ||
		strings.Join(c.Lifecycle.PreStop.Exec.Command, " ") != "/bin/sh -c kill -QUIT 1" {
		t.Errorf("preStop: %+v", c.Lifecycle)
	}

	script := render(t, l, Options{Engine: Slurm})
	for _, want := range []string{"#SBATCH --signal=TERM@30\n", "sends the worker SIGQUIT (stop.signal)"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	checkScript(t, script)

	// Without a stop block: the engines' defaults, nothing written.
	l.Stop = schema.Stop{}
	unit = render(t, l, Options{Engine: Systemd, Childproof: "/bin/true"})
	if strings.Contains(unit, "\nKillSignal=") || !strings.Contains(unit, "TimeoutStopSec=10s\n") {
		t.Errorf("unit without a stop block:\n%s", unit)
	}
	job = decodeNomad(t, render(t, l, Options{Engine: Nomad}))
	if task := job.TaskGroups[0].Tasks[0]; task.KillSignal != "" || task.KillTimeout != nil {
		t.Errorf("nomad without a stop block: %q %v", task.KillSignal, task.KillTimeout)
	}
	pod = corev1.Pod{}
	decodeK8s(t, render(t, l, Options{Engine: Kubernetes, Kind: KindPod, Image: "img"}), &pod)
	if pod.Spec.TerminationGracePeriodSeconds != nil || pod.Spec.Containers[0].Lifecycle != nil {
		t.Errorf("pod without a stop block: %v %+v", pod.Spec.TerminationGracePeriodSeconds, pod.Spec.Containers[0].Lifecycle)
	}
	if script := render(t, l, Options{Engine: Slurm}); strings.Contains(script, "--signal") {
		t.Errorf("script without a stop block:\n%s", script)
	}
}

// TestExportOneshot: a oneshot is exported only to SLURM, whose step is
// childproof run (which proves it on its exec-time block); the engines
// whose check is verify on a live worker refuse it, naming it.
func TestExportOneshot(t *testing.T) {
	l := load(t, storyTree(t), "mock-llm")
	l.Oneshot, l.Ports, l.Restart = true, nil, schema.Restart{}
	for _, e := range []Engine{Systemd, Kubernetes, Nomad} {
		_, err := Render(t.Context(), l, Options{Engine: e, Image: "img"})
		if err == nil || !strings.Contains(err.Error(), "cannot express oneshot") {
			t.Errorf("%s: err = %v", e, err)
		}
	}
	if script := render(t, l, Options{Engine: Slurm}); !strings.Contains(script, " run ") {
		t.Errorf("slurm script:\n%s", script)
	}
}
