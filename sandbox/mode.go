package sandbox

// ModeEnv, set to "landlock" in ouro's environment, makes sandboxed commands run in the
// Landlock-only mode even where user namespaces would allow the mount mode: to try (and
// test) what a machine without them gets. It can only choose the other mode, never
// less of a sandbox, and a sandboxed command cannot change ouro's environment.
const ModeEnv = "OURO_SANDBOX_MODE"
