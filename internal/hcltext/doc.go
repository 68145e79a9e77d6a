// Package hcltext writes HCL text — the specs `import` writes and the
// Nomad jobs `export` writes: strings quoted so that nothing in them is
// read as a template, and the canonical layout (two-space indents, the
// "=" of consecutive attributes aligned) that `terraform fmt` and
// hclwrite.Format give. It has no dependency beyond hclsyntax's lexer, so
// the binary does not carry hclwrite (and go-cmp, which hclwrite's init
// pulls in on every command).
package hcltext
