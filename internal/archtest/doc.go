// Package archtest holds no code: its test reads the module's import graph (with go
// list) and fails when an arrow runs against the chapter order, so that the order holds
// without anyone redrawing it.
package archtest
