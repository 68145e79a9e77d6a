// Package realservers is the suite that launches real third-party servers
// — gunicorn (with setproctitle), uvicorn, nginx (a root master with
// www-data workers), redis-server and Node.js, plus a pyenv-style shim —
// through the childproof command, with a required variable on a loopback
// ephemeral port, with the worker selector a user would write first and
// with none. Each test checks that run --detach verifies, that the worker
// owns the port, that verify passes at once and after the server settled,
// that ps says alive, that stop ends every process of the tree and frees
// the port, and that the variable's value appears in no output.
//
// The tree tests (issue 36) put whole serving stacks under proof: a
// vLLM-like python3 API that spawns its engine core over ZMQ, uWSGI
// recycling its workers, a node cluster respawning a crashed worker and
// torchrun ranks that fork helpers; each judged after its tree changed.
//
// Every test is parallel (two at a time, go test's default on two CPUs:
// each server, port and state dir is the test's own) except the torchrun
// tests, which run first, one at a time: a rank imports torch in seconds
// of CPU, and two such tests side by side at load 17 left a rank in its
// rendezvous past a 60 s wait of TestTorchrunHelpers.
//
// The servers come from Debian packages that .ci/run installs; a test
// whose server is missing here skips, saying which package to install.
package realservers
