//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// launcherArg is the hidden first argument that turns the ouro binary (or a test binary
// whose TestMain calls MaybeRunLauncher) into the launcher. The second argument is the
// launch spec as JSON, the rest the command: an argument rather than the environment,
// because callers set cmd.Env themselves after Command returns.
const launcherArg = "__ouro_sandbox"

// launcherFailed is the exit status when the launcher cannot set up the sandbox or start
// the command, like env(1) and container runtimes use 125 for their own failures.
const launcherFailed = 125

// Launch modes. mount: the launcher runs in a fresh user, mount and PID namespace and
// makes the read-only paths read-only bind mounts; landlock: Landlock alone, with the
// write rights of the read-only paths' ancestors narrowed to their other children;
// supervise: no sandbox, only the supervision of the process tree (see supervise); probe:
// only check that the mount mode works here, then exit; hello: only answer, to show the
// binary acts as the launcher where no namespace can be made.
const (
	modeMount     = "mount"
	modeLandlock  = "landlock"
	modeSupervise = "supervise"
	modeProbe     = "probe"
	modeHello     = "hello"
)

// probeToken is what the launcher prints first in probe mode, so a binary that does not
// call MaybeRunLauncher (and does something else with the arguments) is told apart.
const probeToken = "ouro sandbox launcher"

type launchSpec struct {
	Mode   string `json:"mode"`
	Policy Policy `json:"policy"`
	// PIDNS says the launcher was started as PID 1 of a new PID namespace (mount and
	// probe modes), where it mounts a /proc of its own.
	PIDNS bool `json:"pidns,omitempty"`
	// Exec: the launcher execs the command once the sandbox is applied, instead of
	// staying as its supervisor (mount mode in a PID namespace; see supervise_linux.go).
	Exec bool `json:"exec,omitempty"`
	// Reaped: the launcher execs the command, supervised by ouro itself (see
	// reap_linux.go), with Mark as its hard RLIMIT_RTTIME; Parent is ouro's PID.
	Reaped bool   `json:"reaped,omitempty"`
	Mark   uint64 `json:"mark,omitempty"`
	Parent int    `json:"parent,omitempty"`
}

// launcherReady records that this process called MaybeRunLauncher, so its binary acts as
// the launcher. Without it, the binary is never started in launcher mode: a binary that
// ignores the launcher's arguments might do anything with them (a test binary would run
// its tests again, and each of those would start it again).
var launcherReady atomic.Bool

// MaybeRunLauncher must be the first call in main, and in TestMain of every package whose
// tests run sandboxed commands. Outside launcher mode it returns at once. In launcher
// mode it never returns: it applies the sandbox to itself, runs the command and exits
// with its status, or prints why it could not on stderr and exits with status 125 — it
// never runs the command unsandboxed.
func MaybeRunLauncher() {
	if len(os.Args) >= 2 && os.Args[1] == goCacheArg { // a sandboxed go command's GOCACHEPROG
		if err := runGoCacheProg(os.Args[2:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "ouro sandbox (GOCACHEPROG): %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) < 2 || os.Args[1] != launcherArg {
		launcherReady.Store(true)
		return
	}
	err := runLauncher(os.Args[2:])
	fmt.Fprintf(os.Stderr, "ouro sandbox: %v\n", err)
	os.Exit(launcherFailed)
}

// runLauncher returns only on failure; on success it runs the command and exits with its
// status (or, in probe mode, exits 0).
func runLauncher(args []string) error {
	if len(args) < 1 {
		return errors.New("launcher started without a launch spec (this mode is internal to ouro)")
	}
	var spec launchSpec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return fmt.Errorf("read launch spec: %w", err)
	}
	argv := args[1:]
	if spec.Mode == wardenMode {
		runWarden()
	}
	if spec.Mode == modeHello {
		fmt.Println(probeToken)
		os.Exit(0)
	}
	if spec.Mode == modeProbe {
		fmt.Println(probeToken)
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("make mounts private: %w", err)
		}
		if err := bindReadOnly(os.TempDir()); err != nil {
			return err
		}
		if spec.PIDNS {
			if err := mountProc(); err != nil {
				return err
			}
		}
		os.Exit(0)
	}
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	if spec.Mode == modeSupervise {
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return fmt.Errorf("start %s: %w", argv[0], err)
		}
		if spec.Reaped {
			runtime.LockOSThread()
			return fmt.Errorf("start %s: %w", path, execReaped(path, argv, spec))
		}
		return supervise(path, argv, false)
	}
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("Landlock is not available on this kernel (%v); refusing to run %s unsandboxed", err, argv[0])
	}
	pol := spec.Policy

	var rules []landlock.Rule
	switch spec.Mode {
	case modeMount:
		// Nothing done here may reach the parent namespace.
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			return fmt.Errorf("make mounts private: %w", err)
		}
		if err := mountReadOnly(pol); err != nil {
			return err
		}
		if spec.PIDNS {
			if err := mountProc(); err != nil {
				return err
			}
		}
		privateShm() // see channels.go
		rules = writeRules(pol.WriteRoots, pol.ReadOnly, abi, true)
	case modeLandlock:
		// What GuardProtected keeps by check-and-restore is not frozen here.
		rules = writeRules(pol.WriteRoots, pol.frozen(), abi, false)
		// Rules add up: a content folder is writable although its read-only parent
		// (.claude) has no rule of its own. Renaming or removing the folder itself would
		// take a right on the parent, which stays withheld.
		for _, c := range pol.openContent() {
			rules = append(rules, grant(c, abi))
		}
	default:
		return fmt.Errorf("unknown launch mode %q", spec.Mode)
	}
	rules = append(rules, landlock.PathAccess(readAccess, "/"))
	rules = append(rules, deviceRules()...)

	// V5 asks for files (with truncate and device ioctls) and TCP; with the network
	// confined, V6 also scopes abstract Unix sockets to the sandbox (see channels.go);
	// BestEffort leaves out what an older kernel cannot do, which Availability reports.
	base := landlock.V5
	if pol.NetworkRestricted() {
		base = landlock.V6
		base.Scoped = confinedScopes
	}
	cfg := base.BestEffort()
	if pol.NetworkRestricted() {
		for _, p := range pol.Network.AllowPorts {
			if p > 0 && p <= 65535 {
				rules = append(rules, landlock.ConnectTCP(uint16(p)), landlock.BindTCP(uint16(p)))
			}
		}
		// The proxy's port, to connect only. Landlock rules name a port, not an
		// address: this also lets a command connect to that port number on any other
		// host (see proxy.go for what the proxy leaves open).
		if pol.ProxyPort > 0 && pol.ProxyPort <= 65535 {
			rules = append(rules, landlock.ConnectTCP(uint16(pol.ProxyPort)))
		}
	} else {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err == nil && fd < 0 {
		err = errors.New("nothing to enforce")
	}
	if err != nil {
		return fmt.Errorf("build the Landlock ruleset (ABI %d): %w; refusing to run %s unsandboxed", abi, err, argv[0])
	}

	if pol.TempDir != "" {
		os.Setenv("TMPDIR", pol.TempDir)
	}
	for k, v := range proxyEnv(pol) {
		os.Setenv(k, v)
	}
	for k, v := range pol.Env { // the sandbox's own caches
		os.Setenv(k, v)
	}
	for k, v := range pol.Objects.env() {
		os.Setenv(k, v)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}

	// Restrict this thread only, and start the command from it: a child inherits the
	// domain of the thread that forks it. That is all a launcher needs, and it spares the
	// cost of stopping every runtime thread to restrict it too. The thread is never
	// unlocked, so no other goroutine runs on it, and the supervising goroutine stays on
	// it (see supervise).
	runtime.LockOSThread()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w; refusing to run %s unsandboxed", errno, argv[0])
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("apply Landlock (ABI %d): %w; refusing to run %s unsandboxed", abi, err, argv[0])
	}
	syscall.Close(fd)
	if spec.Exec && spec.PIDNS && os.Getpid() == 1 {
		// PID 1 of the namespace: become the command. When it ends, the kernel kills
		// every other process of the namespace, so nothing need stay to supervise.
		//
		// The parent-death signal is a property of a thread, and ouro set it on this
		// process's first one; exec from another thread makes that thread the process,
		// without it. Set it on this one, the thread that execs, so that the command
		// still dies with ouro.
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
			return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w; refusing to run %s without it", errno, argv[0])
		}
		err := syscall.Exec(path, argv, os.Environ())
		return fmt.Errorf("start %s: %w", path, err)
	}
	if spec.Reaped {
		return fmt.Errorf("start %s: %w", path, execReaped(path, argv, spec))
	}
	// supervise returns only when the command could not be started.
	return fmt.Errorf("start %s: %w", path, supervise(path, argv, spec.PIDNS))
}

// mountProc mounts a /proc of the launcher's own PID namespace over the inherited one, so
// that ps, pgrep, pkill and kill see the PIDs the command's processes really have. It
// must run in the new mount namespace, after its mounts were made private.
func mountProc() error {
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc for the PID namespace: %w", err)
	}
	return nil
}

// prSetNoNewPrivs is PR_SET_NO_NEW_PRIVS, which Landlock requires of an unprivileged
// process (and which keeps setuid programs from regaining what the sandbox takes).
const prSetNoNewPrivs = 38

// Access rights. Everything is readable and executable; a write root gets every right
// that creates, changes or removes files except making device nodes (a device node in the
// workspace would open the disk or memory behind it to writes).
const (
	readAccess      = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	fileWriteAccess = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)
	dirWriteAccess  = fileWriteAccess | landlock.AccessFSSet(ll.AccessFSRemoveDir|ll.AccessFSRemoveFile|
		ll.AccessFSMakeDir|ll.AccessFSMakeReg|ll.AccessFSMakeSock|ll.AccessFSMakeFifo|ll.AccessFSMakeSym)
	fileOnlyAccess = landlock.AccessFSSet(ll.AccessFSExecute|ll.AccessFSReadFile) | fileWriteAccess
)

// grant returns the rule that makes path writable: the directory rights for a directory,
// the file rights for anything else (Landlock refuses directory rights on a file). Moving
// and linking between directories (refer) is allowed from ABI 2 on; asking for it on ABI
// 1 would make go-landlock's best effort drop Landlock altogether.
func grant(path string, abi int) landlock.Rule {
	st, err := os.Stat(path)
	if err == nil && !st.IsDir() {
		return landlock.PathAccess(fileOnlyAccess, path).IgnoreIfMissing()
	}
	access := readAccess | dirWriteAccess
	if abi >= 2 {
		access |= landlock.AccessFSSet(ll.AccessFSRefer)
	}
	return landlock.PathAccess(access, path).IgnoreIfMissing()
}

// writeRules grants writing under the roots. Without read-only paths (mount mode, where
// bind mounts protect them) and with no guarded name missing, each root is granted whole.
//
// Landlock rights are inherited by everything beneath the directory they are granted on,
// and there is no way to take one back for a subtree. So where part of a root must not get
// a right, the directories on the way from the root down to that part get a rule of their
// own without it, and each of their other entries is granted whole:
//
//   - A read-only path (Landlock-only mode): the directories above it (the root itself,
//     and .git for .git/hooks) get no write right of their own. No entry can then be
//     created, removed or renamed directly in them (a new file in the workspace root, or
//     git's .git/index.lock), while existing files in them stay writable.
//   - A missing guarded name (.claude, .ouro, .git; both modes): its parent, and the
//     directories above it in the root, may not make directories or symbolic links. The
//     name can then not be created as a folder (or a link to one) that could hold
//     settings, hooks or a git config; files and folders elsewhere are unaffected. The
//     cost: while one of them is missing, `mkdir x` directly in the workspace root fails
//     (deeper folders, and files in the root, are fine). Creating the folder outside the
//     sandbox (mkdir .claude .ouro) lifts it: an existing one is protected as read-only
//     instead. A file at such a name is taken back after the command (Reclaim);
//     Landlock cannot refuse one name and allow another. A missing name is normally
//     not missing by the time the command starts: a placeholder holds it while the
//     command runs (HoldPlaceholders), so these restrictions apply only where one
//     could not be made.
//
// Symbolic links among the entries are skipped, since a rule on a link would grant its
// target, wherever it is.
func writeRules(roots, readOnly []string, abi int, mount bool) []landlock.Rule {
	full := readAccess | dirWriteAccess
	if abi >= 2 {
		full |= landlock.AccessFSSet(ll.AccessFSRefer)
	}
	var rules []landlock.Rule
	for _, root := range roots {
		withheld := map[string]landlock.AccessFSSet{}
		hold := func(from string, rights landlock.AccessFSSet) {
			for d := from; within(d, root); d = filepath.Dir(d) {
				withheld[d] |= rights
				if d == root {
					break
				}
			}
		}
		var ro []string
		for _, r := range readOnly {
			if !within(r, root) || r == root {
				continue
			}
			switch {
			case exists(r) && !mount:
				ro = append(ro, r)
				hold(filepath.Dir(r), full&^readAccess)
			case !exists(r) && guardedName(r) && exists(filepath.Dir(r)):
				hold(filepath.Dir(r), landlock.AccessFSSet(ll.AccessFSMakeDir|ll.AccessFSMakeSym))
			}
		}
		if len(withheld) == 0 {
			rules = append(rules, grant(root, abi))
			continue
		}
		for d, w := range withheld {
			if own := full &^ w; own != readAccess {
				rules = append(rules, landlock.PathAccess(own, d).IgnoreIfMissing())
			}
			entries, err := os.ReadDir(d)
			if err != nil {
				continue // nothing under it can be granted; it keeps what its own rule gives
			}
			for _, e := range entries {
				p := filepath.Join(d, e.Name())
				if _, special := withheld[p]; special || slices.Contains(ro, p) || e.Type()&os.ModeSymlink != 0 {
					continue
				}
				rules = append(rules, grant(p, abi))
			}
		}
	}
	return rules
}

// deviceFiles may be written by every sandboxed command: they hold no data of their own.
// /dev/pts and /dev/ptmx let a command open a pseudo-terminal, /dev/shm is POSIX shared
// memory (Python's multiprocessing, browsers). Writes through /dev/stdout or /proc/self/fd
// reach the inherited pipe, which Landlock does not check.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

func deviceRules() []landlock.Rule {
	return []landlock.Rule{
		landlock.PathAccess(fileOnlyAccess, deviceFiles...).IgnoreIfMissing(),
		landlock.PathAccess(readAccess|fileWriteAccess, "/dev/pts").IgnoreIfMissing(),
		landlock.PathAccess(readAccess|dirWriteAccess, "/dev/shm").IgnoreIfMissing(),
	}
}

// mountReadOnly makes every existing read-only path a read-only bind mount, in the mount
// namespace the launcher was started in (whose mounts the caller made private). It also pins the directories between the write
// root and each read-only path (.git for .git/hooks) by binding each onto itself: a mount
// point cannot be renamed or removed, so `mv .git .git-old && mkdir -p .git/hooks` cannot
// swap an unprotected directory in. (The root itself needs no pin: renaming it takes write
// access to its parent, which lies outside every root. Pins have a cost: renaming a file
// across one, say from the workspace into .git, fails with EXDEV, and tools fall back to
// copying.) Landlock, applied next, forbids any later mount or unmount, so the command
// cannot undo them.
func mountReadOnly(p Policy) error {
	var ro []string
	pins := map[string]bool{}
	for _, r := range p.ReadOnly {
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue // missing: nothing to protect (see Policy.ReadOnly)
		}
		i := slices.IndexFunc(p.WriteRoots, func(w string) bool { return within(real, w) })
		if i < 0 {
			continue // outside every write root: Landlock keeps it read-only already
		}
		ro = append(ro, real)
		for d := filepath.Dir(real); d != p.WriteRoots[i] && within(d, p.WriteRoots[i]); d = filepath.Dir(d) {
			pins[d] = true
		}
	}
	if len(ro) == 0 {
		return nil
	}
	pinList := make([]string, 0, len(pins))
	for d := range pins {
		if !slices.Contains(ro, d) {
			pinList = append(pinList, d)
		}
	}
	byDepth := func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") }
	slices.SortFunc(pinList, byDepth)
	for _, d := range pinList {
		if err := syscall.Mount(d, d, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("pin %s with a bind mount (mount with MS_BIND|MS_REC): %w", d, err)
		}
	}
	slices.SortFunc(ro, byDepth)
	for _, r := range ro {
		if err := bindReadOnly(r); err != nil {
			return err
		}
	}
	// Content folders (.claude/skills) get a writable mount of their own over the
	// read-only one of their parent; the parent stays read-only, and a mount point cannot
	// be renamed or removed.
	for _, c := range p.openContent() {
		if err := bindWritable(c); err != nil {
			return err
		}
	}
	// The working directory still refers to the directory as it was before the mounts;
	// relative paths from it would miss them. Enter it again through the new mounts.
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("enter %s again: %w", wd, err)
	}
	return nil
}

// bindReadOnly binds path onto itself and makes that mount read-only, with every mount
// below it. The bind is recursive: mounts inherited from the parent namespace are locked
// into a user namespace, and a bind that would leave one out (a tmpfs below TMPDIR, a
// container's volume below the workspace) is refused with EINVAL. mount_setattr makes
// the whole tree read-only at once; on kernels before 5.12, which lack it, the top mount
// is remounted read-only and what is mounted below stays as it was. The remount keeps the
// nosuid, nodev and noexec flags of the mount underneath (see remountFlags).
func bindReadOnly(path string) error {
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind mount %s (mount with MS_BIND|MS_REC): %w", path, err)
	}
	err := unix.MountSetattr(unix.AT_FDCWD, path, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.ENOSYS) {
		return fmt.Errorf("make %s read-only (mount_setattr with MOUNT_ATTR_RDONLY, recursive): %w", path, err)
	}
	flags, err := remountFlags(path, syscall.MS_RDONLY)
	if err != nil {
		return err
	}
	if err := syscall.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("make %s read-only (mount with MS_REMOUNT|MS_BIND|MS_RDONLY): %w", path, err)
	}
	return nil
}

// remountFlags are the flags that remount the bind mount at path with extra (MS_RDONLY or
// nothing), keeping the nosuid, nodev, noexec and atime flags it has, which a user
// namespace may not drop.
func remountFlags(path string, extra uintptr) (uintptr, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	const keep = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME | syscall.MS_NODIRATIME
	flags := uintptr(syscall.MS_BIND|syscall.MS_REMOUNT) | extra | uintptr(st.Flags)&keep
	if st.Flags&stRelatime != 0 {
		flags |= syscall.MS_RELATIME
	}
	return flags, nil
}

// bindWritable binds path onto itself and makes that mount writable: a bind copies the
// flags of the mount it is taken from, which for a folder inside a read-only path is
// read-only. Only the top mount is made writable: a mount below it stays as the read-only
// parent left it. As in bindReadOnly, the bind is recursive, and nosuid, nodev and noexec
// are kept.
func bindWritable(path string) error {
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return fmt.Errorf("bind mount %s (mount with MS_BIND|MS_REC): %w", path, err)
	}
	flags, err := remountFlags(path, 0)
	if err != nil {
		return err
	}
	if err := syscall.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("make %s writable: %w", path, err)
	}
	return nil
}

// stRelatime is ST_RELATIME in statfs(2)'s f_flags; the other flags kept above have the
// same value as their MS_ counterpart.
const stRelatime = 0x1000
