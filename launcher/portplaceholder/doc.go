// Package portplaceholder fills the port placeholders of a launch built
// in Go ({{port "NAME"}}, {{port}}) in its Command, Dispatch and Env with
// the numbers its Ports declare (Fill).
package portplaceholder
