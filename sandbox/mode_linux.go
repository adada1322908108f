//go:build linux

package sandbox

import "os"

// landlockOnly reports whether sandboxed commands run with Landlock alone: user
// namespaces are not available here, or ModeEnv asks for it.
func landlockOnly() bool {
	return os.Getenv(ModeEnv) == modeLandlock || !probe().namespaces
}

func landlockOnlyWarning() string {
	why := "User namespaces are not available here"
	if os.Getenv(ModeEnv) == modeLandlock {
		why = ModeEnv + "=landlock asks for the Landlock-only mode"
	}
	return why + ", so the sandbox keeps .git/config, .git/hooks, .ouro/, .claude/ and .mcp.json as they were by putting back what a command changed there once all its processes are gone (Landlock cannot keep one name read-only in a folder where others are created and removed); a program outside the sandbox that reads them while a command runs can see the command's version."
}
