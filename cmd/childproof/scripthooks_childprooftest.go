//go:build childprooftest

package main

import "github.com/childproof/childproof/cmd/childproof/internal/scripthelper"

// The testscripts' build of childproof is also their test server and port
// helper, and acts as the platform CHILDPROOF_TEST_GOOS names, as the test
// binary's childproof does (main_test.go).
func init() {
	scriptHooks = func() string {
		scripthelper.Main()
		return scripthelper.GOOS()
	}
}
