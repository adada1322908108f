//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

type probeResult struct {
	// Launcher: the binary answered in launcher mode (it calls MaybeRunLauncher).
	Launcher bool `json:"launcher"`
	// Namespaces: the launcher can make read-only bind mounts here. That needs a user
	// namespace with the right to mount in it, which containers (seccomp) and some
	// distributions (Ubuntu's AppArmor userns restriction) withhold.
	Namespaces bool `json:"namespaces"`
	// PIDNS: the launcher can also be PID 1 of a PID namespace with its own /proc, which
	// containers with a masked /proc withhold.
	PIDNS bool `json:"pidns"`
	// NamespacesErr says, when Namespaces is false, which call failed and how; PIDNSErr
	// the same for PIDNS.
	NamespacesErr string `json:"namespacesErr,omitempty"`
	PIDNSErr      string `json:"pidnsErr,omitempty"`
}

// verdict finds the mode sandboxed commands run in, probing where it must.
func verdict() Verdict {
	v, _ := decide(true)
	return v
}

// decideFresh is verdict, and whether this call is the one that found it by probing.
func decideFresh() (Verdict, bool) {
	before := probes.runs.Load()
	v, _ := decide(true)
	return v, probes.runs.Load() != before && probes.announce()
}

// decide finds the mode: ModeEnv's where it is set, else the namespace mode where the
// probe finds it works, else Landlock alone; unavailable where the kernel has no
// Landlock or this binary does not act as the launcher. With mayProbe false it starts
// no process, and known is false when the probe would have to run to tell the namespace
// mode from the Landlock-only one (the result is then ModeLandlock, not to be used).
func decide(mayProbe bool) (v Verdict, known bool) {
	forced, isForced := os.LookupEnv(ModeEnv)
	isForced = isForced && forced != ""
	if isForced {
		if v := forcedVerdict(forced); v.Mode == ModeUnavailable {
			return v, true
		}
	}
	if _, err := landlockABI(); err != nil {
		return Verdict{Mode: ModeUnavailable, Why: err.Error()}, true
	}
	if !launcherReady.Load() {
		return Verdict{Mode: ModeUnavailable, Why: notLauncher()}, true
	}
	if isForced {
		return forcedVerdict(forced), true
	}
	var pr probeResult
	if mayProbe {
		pr = probes.get()
	} else if pr, known = probes.known(); !known {
		return Verdict{Mode: ModeLandlock}, false
	}
	switch {
	case !pr.Launcher:
		return Verdict{Mode: ModeUnavailable, Why: notLauncher()}, true
	case pr.Namespaces:
		return Verdict{Mode: ModeNamespaces, PIDNS: pr.PIDNS, WhyNoPIDNS: pr.PIDNSErr}, true
	}
	return Verdict{Mode: ModeLandlock, Why: pr.NamespacesErr, WhyNoPIDNS: pr.PIDNSErr}, true
}

// landlockABI is the kernel's Landlock ABI version, or why Landlock cannot be used.
func landlockABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err == nil && v >= 1 {
		return v, nil
	}
	if err == nil {
		err = fmt.Errorf("ABI version %d", v)
	}
	return 0, fmt.Errorf("Landlock is not available on this kernel (landlock_create_ruleset: %v): it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK and landlock in the active security modules (the lsm= boot parameter), and a container's seccomp profile must allow its system calls", err)
}

// probes is this process's prober, with the cache in the user's cache folder.
var probes = &prober{cacheDir: func() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ouro", "sandbox"), nil
}}

// probe is the probe's result for this process's binary (see prober.get).
func probe() probeResult { return probes.get() }

// prober runs the probe at most once per process, and once per binary and kernel on a
// machine: the verdict is kept in a file of the cache folder, named after the binary's
// identity (path, size, modification time, inode), the kernel release, the user and the
// sysctls that govern user namespaces, so
// that a session that runs no sandboxed command starts no probe process, and a later
// session of the same binary none at all.
//
// A cache file that does not parse or names another binary or kernel is ignored and
// replaced; one that says the binary is no launcher is never trusted (nor written): that
// verdict would refuse every command, and the probe is cheap where it holds. Writers
// write a temporary file and rename it over the old, so concurrent sessions each see a
// whole file. Sandboxed commands may write the cache folder where it is a write root (an
// open ~/.cache), and could make a later session choose the Landlock-only mode or fail
// at the first command; never run unsandboxed.
type prober struct {
	cacheDir func() (string, error)
	mu       sync.Mutex
	result   *probeResult
	// runs counts the probes this process started; announced, whether the first
	// caller after one was told it found the verdict (decideFresh).
	runs      atomic.Int32
	announced atomic.Bool
}

// probeCacheVersion changes when what the probe checks changes, so that older verdicts
// are not read.
const probeCacheVersion = 1

// probeKey is what a verdict depends on.
type probeKey struct {
	Version int    `json:"version"`
	Exe     string `json:"exe"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtimeNs"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Kernel  string `json:"kernel"`
	UID     int    `json:"uid"`
	// Sysctls are the settings that allow or forbid user namespaces, as they were: one
	// changed since (sysctl -w) makes the verdict stale.
	Sysctls string `json:"sysctls"`
}

// usernsSysctls are the files of /proc/sys that decide whether user namespaces can be
// made (see hint).
var usernsSysctls = []string{"user/max_user_namespaces", "kernel/unprivileged_userns_clone", "kernel/apparmor_restrict_unprivileged_userns"}

// sysctlValues reads usernsSysctls, "-" for one that is missing.
func sysctlValues() string {
	var vals []string
	for _, name := range usernsSysctls {
		b, err := os.ReadFile("/proc/sys/" + name)
		v := strings.TrimSpace(string(b))
		if err != nil {
			v = "-"
		}
		vals = append(vals, v)
	}
	return strings.Join(vals, " ")
}

type probeCache struct {
	Key    probeKey    `json:"key"`
	Result probeResult `json:"result"`
}

// key identifies the running binary (its image, through /proc/self/exe) and the kernel.
func (p *prober) key() (probeKey, error) {
	exe, err := os.Executable()
	if err != nil {
		return probeKey{}, err
	}
	st, err := os.Stat("/proc/self/exe")
	if err != nil {
		return probeKey{}, err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return probeKey{}, errors.New("no inode for /proc/self/exe")
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return probeKey{}, err
	}
	return probeKey{Version: probeCacheVersion, Exe: exe, Size: st.Size(), ModTime: st.ModTime().UnixNano(),
		Dev: uint64(sys.Dev), Ino: sys.Ino, Kernel: unix.ByteSliceToString(u.Release[:]), UID: os.Geteuid(), Sysctls: sysctlValues()}, nil
}

// file is the cache file for key.
func (p *prober) file(key probeKey) (string, error) {
	dir, err := p.cacheDir()
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return filepath.Join(dir, fmt.Sprintf("probe-%x.json", sum[:12])), nil
}

// known is the verdict if this process or the cache has it; it starts no process.
func (p *prober) known() (probeResult, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.result != nil {
		return *p.result, true
	}
	key, err := p.key()
	if err != nil {
		return probeResult{}, false
	}
	if r, ok := p.read(key); ok {
		p.result = &r
		return r, true
	}
	return probeResult{}, false
}

// get is the verdict: known's, or the probe's, which it then writes to the cache.
func (p *prober) get() probeResult {
	if r, ok := p.known(); ok {
		return r
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.result != nil {
		return *p.result
	}
	exe, err := launcherPath()
	if err != nil {
		p.result = &probeResult{NamespacesErr: err.Error(), PIDNSErr: err.Error()}
		return *p.result
	}
	p.runs.Add(1)
	r := probeBinary(exe)
	p.result = &r
	if key, err := p.key(); err == nil && r.Launcher {
		p.write(key, r)
	}
	return r
}

// announce reports whether the caller is the first to hear that a probe ran.
func (p *prober) announce() bool { return p.announced.CompareAndSwap(false, true) }

func (p *prober) read(key probeKey) (probeResult, bool) {
	name, err := p.file(key)
	if err != nil {
		return probeResult{}, false
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return probeResult{}, false
	}
	var c probeCache
	if json.Unmarshal(b, &c) != nil || c.Key != key || !c.Result.Launcher {
		return probeResult{}, false
	}
	return c.Result, true
}

// write keeps r for key, replacing the file whole (a temporary file renamed over it),
// and removes the verdicts of other builds at the same path (the binary was upgraded) and
// of binaries that are gone (test binaries, an uninstalled ouro).
// A cache that cannot be written costs the next session a probe, nothing else.
func (p *prober) write(key probeKey, r probeResult) {
	name, err := p.file(key)
	if err != nil {
		return
	}
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	b, err := json.Marshal(probeCache{Key: key, Result: r})
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".probe-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), name) != nil {
		os.Remove(tmp.Name())
		return
	}
	others, _ := filepath.Glob(filepath.Join(dir, "probe-*.json"))
	for _, o := range others {
		if o == name {
			continue
		}
		var c probeCache
		b, err := os.ReadFile(o)
		if err != nil || json.Unmarshal(b, &c) != nil {
			continue
		}
		if _, err := os.Stat(c.Key.Exe); c.Key.Exe == key.Exe && c.Key.UID == key.UID || errors.Is(err, os.ErrNotExist) {
			os.Remove(o)
		}
	}
}

// probeBinary starts exe in probe mode: first in new user, mount and PID namespaces, then
// without the PID namespace, and where neither answered, without namespaces, only to see
// that exe acts as the launcher (the Landlock-only mode needs no namespace). Each failure is kept with what failed, in the words the
// user can act on (see namespaceFailure).
func probeBinary(exe string) probeResult {
	// The bound only matters for a binary that does not act as the launcher and runs
	// something else instead, or for a launcher that hangs, which would be a bug.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := func(pidNS bool) (launcher bool, failure string) {
		cmd, err := commandFor(ctx, exe, Policy{}, modeProbe, pidNS, "")
		if err != nil {
			return false, err.Error()
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		launcher = bytes.HasPrefix(out, []byte(probeToken+"\n"))
		switch {
		case err == nil && launcher:
			return true, ""
		case err == nil:
			return false, fmt.Sprintf("%s does not act as the sandbox launcher", exe)
		}
		return launcher, namespaceFailure(pidNS, err, strings.TrimSpace(stderr.String()))
	}
	launcher, failure := run(true)
	if failure == "" {
		return probeResult{Launcher: true, Namespaces: true, PIDNS: true}
	}
	l2, failure2 := run(false)
	if failure2 == "" {
		return probeResult{Launcher: true, Namespaces: true, PIDNSErr: failure}
	}
	if !launcher && !l2 {
		// Neither started far enough to answer: without namespaces it may still.
		cmd, err := commandFor(ctx, exe, Policy{}, modeHello, false, "")
		if err == nil {
			out, err := cmd.Output()
			launcher = err == nil && bytes.HasPrefix(out, []byte(probeToken+"\n"))
		}
	}
	return probeResult{Launcher: launcher || l2, NamespacesErr: failure2, PIDNSErr: failure}
}

// namespaceFailure says what failed when the probe launcher could not start or set up
// its namespaces: the step (starting the process in the namespaces, or a mount the
// launcher reported on stderr) with its error, and what the machine's settings say.
func namespaceFailure(pidNS bool, err error, stderr string) string {
	flags := "CLONE_NEWUSER|CLONE_NEWNS"
	if pidNS {
		flags += "|CLONE_NEWPID"
	}
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		// The launcher started and reported the call that failed on stderr.
		msg := strings.TrimPrefix(stderr, "ouro sandbox: ")
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Sprintf("in new namespaces (%s), %s", flags, msg) + hint(msg)
	}
	msg := fmt.Sprintf("starting a process in new namespaces (clone with %s, then writing its uid_map and gid_map) failed: %v", flags, errors.Unwrap(err))
	if errors.Unwrap(err) == nil {
		msg = fmt.Sprintf("starting a process in new namespaces (clone with %s) failed: %v", flags, err)
	}
	return msg + hint(msg)
}

// hint names the machine setting behind a failure, read from /proc/sys, and what changes
// it; "" when none of the known ones applies.
func hint(msg string) string {
	read := func(name string) string {
		b, err := os.ReadFile("/proc/sys/" + name)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	var hints []string
	if read("user/max_user_namespaces") == "0" {
		hints = append(hints, "user.max_user_namespaces is 0 (raise it with sysctl -w user.max_user_namespaces=15000)")
	}
	if read("kernel/unprivileged_userns_clone") == "0" && os.Geteuid() != 0 {
		hints = append(hints, "kernel.unprivileged_userns_clone is 0 (sysctl -w kernel.unprivileged_userns_clone=1 allows them)")
	}
	if read("kernel/apparmor_restrict_unprivileged_userns") == "1" && os.Geteuid() != 0 {
		hints = append(hints, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1; an AppArmor profile for ouro with the userns permission, or setting it to 0, lifts it)")
	}
	if len(hints) == 0 && (strings.Contains(msg, syscall.EPERM.Error()) || strings.Contains(msg, syscall.EACCES.Error())) {
		hints = append(hints, "a container's seccomp profile or a security module may forbid them (Docker: --security-opt seccomp=unconfined, or a profile that allows clone with CLONE_NEWUSER)")
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}
