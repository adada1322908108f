package sandbox

import "fmt"

// The modes sandboxed commands run in, as [Verdict] and OURO_SANDBOX_MODE name them.
const (
	// ModeNamespaces: read-only bind mounts in private user and mount namespaces, and
	// (where it works) a PID namespace of the command's own; Landlock on top.
	ModeNamespaces = "namespaces"
	// ModeLandlock: Landlock alone, where no namespace can be made.
	ModeLandlock = "landlock"
	// ModeUnavailable: no sandbox can be had; sandboxed commands are refused.
	ModeUnavailable = "unavailable"
	// ModeSeatbelt: macOS's Seatbelt (sandbox-exec), with a profile made from the policy.
	ModeSeatbelt = "seatbelt"
)

// ModeEnv, set to one of the modes, makes ouro use that mode instead of probing for the
// best one: to test each mode on one machine, or to see a machine as another would run.
// It cannot give more than the machine has: a forced mode the kernel cannot do fails at
// the first command, with the reason, and no value runs a command unsandboxed.
const ModeEnv = "OURO_SANDBOX_MODE"

// Verdict is how sandboxed commands run on this machine, and why not in a stronger mode.
type Verdict struct {
	Mode string `json:"mode"`
	// PIDNS: in ModeNamespaces, the command is PID 1 of a PID namespace of its own.
	PIDNS bool `json:"pidns,omitempty"`
	// Why says, for ModeLandlock, why namespaces cannot be used (the call that failed and
	// its error), and for ModeUnavailable why there is no sandbox; "" for ModeNamespaces.
	Why string `json:"why,omitempty"`
	// WhyNoPIDNS says why there is no PID namespace, where there is none.
	WhyNoPIDNS string `json:"whyNoPIDNS,omitempty"`
	// Forced: ModeEnv chose the mode.
	Forced bool `json:"forced,omitempty"`
}

// RefusedAdvice follows the reason when a sandboxed command is refused for want of a
// sandbox: what the person can do about it.
const RefusedAdvice = "Sandboxed commands are refused rather than run without the sandbox. To run them without it, set sandbox.failIfUnavailable: false (or sandbox.enabled: false) in your own settings (~/.ouro/settings.json or ~/.claude/settings.json); a project's settings cannot."

// Describe says in one line how sandboxed commands run, for ouro doctor.
func (v Verdict) Describe() string {
	forced := ""
	if v.Forced {
		forced = " (forced by " + ModeEnv + ")"
	}
	switch v.Mode {
	case ModeNamespaces:
		if v.PIDNS {
			return "namespace mode" + forced + ": read-only bind mounts, a PID namespace of its own for each command, and Landlock"
		}
		return fmt.Sprintf("namespace mode%s without a PID namespace (%s): read-only bind mounts and Landlock", forced, v.WhyNoPIDNS)
	case ModeLandlock:
		return fmt.Sprintf("Landlock-only mode%s: %s", forced, v.Why)
	case ModeSeatbelt:
		return "Seatbelt (sandbox-exec) with a profile made from the policy"
	}
	return fmt.Sprintf("unavailable%s: %s", forced, v.Why)
}

// forcedVerdict is the verdict ModeEnv asks for, where value is set.
func forcedVerdict(value string) Verdict {
	switch value {
	case ModeNamespaces:
		return Verdict{Mode: ModeNamespaces, PIDNS: true, Forced: true}
	case ModeLandlock:
		return Verdict{Mode: ModeLandlock, Why: ModeEnv + " is " + ModeLandlock, WhyNoPIDNS: ModeEnv + " is " + ModeLandlock, Forced: true}
	case ModeUnavailable:
		return Verdict{Mode: ModeUnavailable, Why: ModeEnv + " is " + ModeUnavailable, Forced: true}
	}
	return Verdict{Mode: ModeUnavailable, Forced: true,
		Why: fmt.Sprintf("%s is %q, which is none of %s, %s and %s", ModeEnv, value, ModeNamespaces, ModeLandlock, ModeUnavailable)}
}

// WithNotice returns the policy with f receiving the warnings of the sandbox's mode
// (what it leaves out) when the first sandboxed command of the process finds the mode:
// [Availability] starts no probe, so it can only say them when an earlier session left
// the verdict in the cache.
func (p Policy) WithNotice(f func(string)) Policy {
	p.notice = f
	return p
}
