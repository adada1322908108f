// Package version says which release this is.
package version

// Number is printed by greet --version.
const Number = "2.4.1"

// Previous is the release before this one, kept for the changelog tool.
const Previous = "2.3.0"
