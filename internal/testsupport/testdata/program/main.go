// Command program is the smallest main package, for BuildProgram's tests.
package main

func main() {}
