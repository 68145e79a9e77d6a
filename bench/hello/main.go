// Command hello is the start-up baseline of the probe rows: an empty Go
// program that prints one line, built as childproof is (CGO_ENABLED=0,
// -trimpath).
package main

import "fmt"

func main() { fmt.Println("hello") }
