package tools

import "path/filepath"

// Where the shell is Git Bash (Windows), the command does not go on the command line:
// Windows has no argv, and the MSYS runtime that rebuilds one for bash has quoting rules
// of its own and expands wildcards in arguments that are not quoted. An environment
// variable reaches bash as it was written, so the command, the cwd file and the env
// folder travel as these three, which the wrapper reads and unsets before anything else
// runs (the command sees none of them, and an empty "$@", as with bashWrapper).
const (
	envCallCommand = "OURO_BASH_COMMAND"
	envCallCwdFile = "OURO_BASH_CWD_FILE"
	envCallEnvDir  = "OURO_BASH_ENV_DIR"
)

// envCall is the shell's arguments and extra environment for one command: bashWrapper's
// steps, with its values from the environment and pwd (its flags) recording the final
// directory.
func envCall(shell, command, cwdPath, envDir, pwd string) (args, env []string) {
	wrapper := `__ouro_cmd=$` + envCallCommand + ` __ouro_cwd_file=$` + envCallCwdFile + ` __ouro_env=$` + envCallEnvDir + `; ` +
		`unset ` + envCallCommand + ` ` + envCallCwdFile + ` ` + envCallEnvDir + `; ` +
		wrapperSourceEnv +
		`trap '` + pwd + ` >"$__ouro_cwd_file" 2>/dev/null' EXIT; ` +
		`eval "$__ouro_cmd"`
	return []string{"-c", wrapper, filepath.Base(shell)},
		[]string{envCallCommand + "=" + command, envCallCwdFile + "=" + cwdPath, envCallEnvDir + "=" + envDir}
}
