// Package tools holds ouro's built-in tools. Each one carries the name and input schema
// of its Claude Code twin, so models trained on Claude Code call them correctly on the
// first attempt and users' permission rules (Bash(npm test *), ...) keep working.
package tools
