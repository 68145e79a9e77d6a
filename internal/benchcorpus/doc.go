// Package benchcorpus generates realistic dispatch shell scripts for
// benchmarks: env loads, exec chains, wrappers, functions and case branches,
// deterministic for a given seed.
package benchcorpus
