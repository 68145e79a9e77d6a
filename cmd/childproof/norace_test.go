//go:build !race

package main

// raceEnabled says this test binary was built with -race: the scripts'
// build of childproof is too.
const raceEnabled = false
