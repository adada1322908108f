//go:build linux

package sandbox

// landlockOnly reports whether sandboxed commands run with Landlock alone: the verdict
// (probed at the first sandboxed command, or forced with ModeEnv) found no namespaces.
func landlockOnly() bool {
	v, _ := decideFresh()
	return v.Mode == ModeLandlock
}

// landlockOnlyWarning says what the Landlock-only mode of v does for the protected names.
func landlockOnlyWarning(v Verdict) string {
	return "The sandbox cannot use namespaces here (" + v.Why + "), so it keeps .git/config, .git/hooks, .ouro/, .claude/ and .mcp.json as they were by putting back what a command changed there once all its processes are gone (Landlock cannot keep one name read-only in a folder where others are created and removed); a program outside the sandbox that reads them while a command runs can see the command's version."
}
