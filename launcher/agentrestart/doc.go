// Package agentrestart tells a rank agent that never starts a replacement
// for a rank that exited (torchrun with --max-restarts 0) from its argv
// (Never).
package agentrestart
