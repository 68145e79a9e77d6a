package envres

// BackgroundLaunch is a rule of the contract's table.
var BackgroundLaunch = &Rule{
	Name: "background-launch", Severity: SeverityWarning,
	Short: "the worker is started in the background and not waited for",
	Doc: `The worker is started with & (often under nohup) and the script does not wait for it: the
launcher returns before the worker is up, so nobody supervises it and its exit status is lost.
A helper started the same way before the worker is exec'd (Xvfb … &, sshd -D & then exec ./api) is
reported too: nothing waits for it or restarts it. Fix: exec the worker in the foreground and let a
supervisor (childproof run) own it; give a helper its own launch (a dependency with depends_on).`,
	Run: runBackgroundLaunch,
}

// background-launch: every launch in the background (&, nohup …, setsid
// -f) that the walk saw end without a wait.
func runBackgroundLaunch(p *Pass) {
	for _, b := range p.Background {
		msg := "the worker is started in the background with & and not waited for: the launcher returns before it is up"
		if b.Nohup {
			msg = "the worker is started with nohup … & and not waited for: the launcher returns before it is up and nobody supervises it"
		}
		if b.Forked {
			msg = "the worker is started with setsid -f, which returns at once: the launcher returns before it is up and nobody supervises it"
		}
		if b.Helper {
			how := "in the background"
			if b.Forked {
				how = "with setsid -f"
			}
			msg = "a helper is started " + how + " and never waited for before the worker starts: nobody supervises it, and if it dies the worker runs on without it"
		}
		p.Report(b.At, msg)
	}
}
