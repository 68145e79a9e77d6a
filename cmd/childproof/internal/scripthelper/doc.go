// Package scripthelper is what childproof's test binary and the testscripts'
// build of childproof are besides childproof: the scripts' test server, their
// port helper and the platform a script's childproof acts as.
package scripthelper
