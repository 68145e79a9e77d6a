// Package k8svalidation checks childproof's Kubernetes exports with the API
// server's own validation code; it is a test-only module of its own, so
// that the product's go.mod never carries k8s.io/kubernetes.
package k8svalidation
