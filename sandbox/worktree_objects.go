package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WorktreeObjects is where a sandboxed command in a linked git worktree writes git
// objects. The objects folder of the git dir it shares with the main checkout is
// read-only for sandboxed commands: git does not check a loose object's hash when it
// reads it, so a command that could write there could overwrite an object of the user's
// history (a blob the main checkout's HEAD has) and change what the user sees and checks
// out, and Landlock cannot protect the existing files of a folder while allowing new
// ones. Instead every sandboxed command runs with GIT_OBJECT_DIRECTORY=Private (new
// objects land there) and GIT_ALTERNATE_OBJECT_DIRECTORIES=Shared (the history stays
// readable), and ouro, outside the sandbox, copies what lands in Private into Shared
// after each command (Policy.MigrateObjects), through git, which computes every object's
// hash again: an object whose file name lies is stored under its true name or not at
// all, and git never overwrites an object it has.
//
// The cost: the variables hold for every repository a command touches, so a repository
// cloned or made in a sandboxed command in a worktree keeps its objects in Private (and
// then Shared), not in its own .git: it works within that command, not after it.
type WorktreeObjects struct {
	// GitDir is the shared git dir (the main checkout's .git), Shared its objects folder.
	GitDir string `json:"gitDir"`
	Shared string `json:"shared"`
	// Private is the worktree's own object folder, inside its own git dir
	// (.git/worktrees/<name>/ouro-objects), which git itself never reads; for the main
	// checkout (Checkout), .git/ouro-objects.
	Private string `json:"private"`
	// Checkout: the shared store is the objects folder of the workspace's own .git (see
	// WithCheckoutObjects), which the Landlock-only mode cannot freeze without freezing
	// .git and the root: there the ProtectGuard checks it after each command instead.
	Checkout bool `json:"checkout,omitempty"`
}

// privateObjects is the name of the private object folder inside a worktree's git dir.
const privateObjects = "ouro-objects"

// WithWorktreeObjects returns the policy with gitDir's objects folder read-only and, when
// wtGitDir is a linked worktree's own git dir inside gitDir/worktrees, its private object
// folder made and named in Objects (see WorktreeObjects). Without one, git cannot write
// objects in sandboxed commands (commits fail) but the user's history stays safe.
func (p Policy) WithWorktreeObjects(gitDir, wtGitDir string) Policy {
	gitDir = realPath(gitDir)
	if gitDir == "" || !filepath.IsAbs(gitDir) {
		return p
	}
	shared := filepath.Join(gitDir, "objects")
	p.ReadOnly = outermost(append(slices.Clone(p.ReadOnly), shared))
	p.Objects = nil
	wtGitDir = realPath(wtGitDir)
	if wtGitDir == "" || !within(wtGitDir, filepath.Join(gitDir, "worktrees")) || wtGitDir == filepath.Join(gitDir, "worktrees") {
		return p
	}
	private := filepath.Join(wtGitDir, privateObjects)
	if err := os.MkdirAll(filepath.Join(private, "pack"), 0o755); err != nil {
		return p
	}
	if st, err := os.Lstat(private); err != nil || !st.IsDir() {
		return p
	}
	p.Objects = &WorktreeObjects{GitDir: gitDir, Shared: shared, Private: private}
	return p
}

// WithCheckoutObjects returns the policy with the objects of gitDir, the .git folder of a
// workspace root, kept as a linked worktree's are (see WorktreeObjects): existing objects
// are never rewritten, new ones land in gitDir/ouro-objects and are copied into the
// store after each command. Without it a command could rewrite a committed blob in place
// (git does not check a loose object's hash when it reads it). In the mount mode the
// store is a read-only mount; in the Landlock-only mode, where .git must stay open for
// index.lock and the like, the ProtectGuard finds what changed in it after the command.
// The private folder is made when a command first runs (MakeCaches). The cost is
// WorktreeObjects's: a repository cloned or made in a sandboxed command keeps its
// objects in the private folder, so it works within that command, not after it.
func (p Policy) WithCheckoutObjects(gitDir string) Policy {
	gitDir = realPath(gitDir)
	if gitDir == "" || !filepath.IsAbs(gitDir) {
		return p
	}
	shared := filepath.Join(gitDir, "objects")
	if st, err := os.Lstat(shared); err != nil || !st.IsDir() {
		return p
	}
	p.ReadOnly = outermost(append(slices.Clone(p.ReadOnly), shared))
	p.Objects = &WorktreeObjects{GitDir: gitDir, Shared: shared, Private: filepath.Join(gitDir, privateObjects), Checkout: true}
	return p
}

// WithoutCheckoutObjects undoes WithCheckoutObjects: for ouro's own git commands
// (a fleet worker's clone, fetch and push), which must write the store itself since
// nothing migrates after them, and which run no command of the model's.
func (p Policy) WithoutCheckoutObjects() Policy {
	if p.Objects == nil || !p.Objects.Checkout {
		return p
	}
	shared := p.Objects.Shared
	p.ReadOnly = slices.DeleteFunc(slices.Clone(p.ReadOnly), func(r string) bool { return r == shared })
	p.Objects = nil
	return p
}

// makePrivate makes the private object folder of the main checkout if missing.
func (o *WorktreeObjects) makePrivate() {
	if o == nil || !o.Checkout {
		return
	}
	if _, err := os.Lstat(o.Private); errors.Is(err, os.ErrNotExist) {
		_ = os.MkdirAll(filepath.Join(o.Private, "pack"), 0o755)
	}
}

// env is what the launcher sets for the command (nil without a private folder).
func (o *WorktreeObjects) env() map[string]string {
	if o == nil {
		return nil
	}
	alt := o.Shared
	if strings.ContainsAny(alt, ":\"") {
		alt = strconv.Quote(alt) // git reads a C-quoted entry of the list
	}
	return map[string]string{"GIT_OBJECT_DIRECTORY": o.Private, "GIT_ALTERNATE_OBJECT_DIRECTORIES": alt}
}

// migrateMu keeps migrations one at a time (a foreground and a background command may
// end together).
var migrateMu sync.Mutex

// stagingPrefix names the staging folders inside the shared objects folder.
const stagingPrefix = "ouro-incoming-"

// migrateTimeout bounds one migration (git on a huge clone).
const migrateTimeout = 5 * time.Minute

// The names git gives objects when done writing them (its temporary files differ).
func fanoutName(n string) bool { return len(n) == 2 && isHex(n) }
func looseName(n string) bool  { return (len(n) == 38 || len(n) == 62) && isHex(n) }
func packIdx(n string) bool {
	h, ok := strings.CutPrefix(strings.TrimSuffix(n, ".idx"), "pack-")
	return ok && strings.HasSuffix(n, ".idx") && (len(h) == 40 || len(h) == 64) && isHex(h)
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MigrateObjects copies the objects sandboxed commands wrote to the private folder (see
// WorktreeObjects) into the shared store and removes them from the private one. Call it
// after each command and before anything outside the sandbox reads the worktree's
// branch. It returns a note for the model when something was not copied ("" otherwise);
// a lying object is never copied under its lying name.
func (p Policy) MigrateObjects() string {
	o := p.Objects
	if o == nil {
		return ""
	}
	migrateMu.Lock()
	defer migrateMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	notes := o.migrate(ctx)
	if len(notes) == 0 {
		return ""
	}
	return "Sandbox: " + strings.Join(notes, " ")
}

func (o *WorktreeObjects) migrate(ctx context.Context) (notes []string) {
	root, err := o.openPrivate()
	if err != nil {
		// Replaced by a symbolic link or a file: made again, and nothing is read there.
		os.RemoveAll(o.Private)
		_ = os.MkdirAll(filepath.Join(o.Private, "pack"), 0o755)
		if errors.Is(err, errNotFolder) {
			return []string{fmt.Sprintf("%s was not a folder; it was made again empty, and nothing in it was copied to the repository.", o.Private)}
		}
		return nil
	}
	defer root.Close()
	files := objectFiles(root)
	if len(files) == 0 {
		return nil
	}
	o.dropStaleStaging()
	// Copied inside the shared objects folder, which sandboxed commands cannot write:
	// what git reads there can no longer change, nor lead it elsewhere.
	staging, err := os.MkdirTemp(o.Shared, stagingPrefix)
	if err != nil {
		return []string{fmt.Sprintf("the git objects written in this worktree could not be copied to the repository (%v); they stay in %s.", err, o.Private)}
	}
	defer os.RemoveAll(staging)
	var linked []string
	for _, f := range files {
		dst := filepath.Join(staging, f)
		if os.MkdirAll(filepath.Dir(dst), 0o755) != nil || copyOut(root, f, dst) != nil {
			continue
		}
		linked = append(linked, f)
	}
	if len(linked) == 0 {
		return nil
	}
	names, err := o.git(ctx, staging, nil, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	list := strings.Fields(string(names))
	if err != nil || len(list) == 0 {
		// Unreadable packs: the loose objects' names at least.
		list = nil
		for _, f := range linked {
			if d, n := filepath.Split(f); fanoutName(filepath.Clean(d)) {
				list = append(list, filepath.Clean(d)+n)
			}
		}
	}
	if len(list) == 0 {
		return []string{fmt.Sprintf("git objects written in this worktree could not be read (%v); they stay in %s.", err, o.Private)}
	}
	packed := o.copyPack(ctx, staging, list) == nil
	if !packed {
		o.copyEach(ctx, staging, list)
	}
	// What the shared store does not have now was not what its name says (or could not
	// be read): it stays out, under that name.
	have, err := o.git(ctx, "", []byte(strings.Join(list, "\n")+"\n"), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return []string{fmt.Sprintf("could not check the git objects copied from this worktree (%v); they stay in %s.", err, o.Private)}
	}
	var bad []string
	for _, l := range strings.Split(strings.TrimSpace(string(have)), "\n") {
		if name, ok := strings.CutSuffix(l, " missing"); ok {
			bad = append(bad, name)
		}
	}
	if packed || len(bad) == 0 {
		// Every object was read and stored under the hash of its content: what is missing
		// under its file name lied about it.
		removeAll(root, linked)
	} else {
		// Some could not be read: those stay (and so do the packs) for the next time.
		removeAll(root, slices.DeleteFunc(linked, func(f string) bool {
			d, n := filepath.Split(f)
			return !fanoutName(filepath.Clean(d)) || slices.Contains(bad, filepath.Clean(d)+n)
		}))
	}
	if len(bad) > 0 {
		shown := bad
		if len(shown) > 5 {
			shown = shown[:5]
		}
		notes = append(notes, fmt.Sprintf("%d git object(s) a command wrote in this worktree did not match their names or could not be read, and were not copied to the repository: %s. Anything that refers to them is incomplete.",
			len(bad), strings.Join(shown, ", ")))
	}
	return notes
}

// dropStaleStaging removes the staging folders of migrations that can no longer be
// running (ouro killed midway): their objects are still in Private, and are copied now.
func (o *WorktreeObjects) dropStaleStaging() {
	entries, _ := os.ReadDir(o.Shared)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), stagingPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 2*migrateTimeout {
			os.RemoveAll(filepath.Join(o.Shared, e.Name()))
		}
	}
}

var errNotFolder = errors.New("not a folder")

// openPrivate opens Private as a root (os.Root) that nothing inside it can lead out of:
// a command may swap the folder, or anything in it, for a symbolic link while ouro reads
// it, and what ouro removes after copying must be the private copy, never a file the
// link points to (an object of the shared store). It is checked to be the folder named
// Private, not a link, after opening.
func (o *WorktreeObjects) openPrivate() (*os.Root, error) {
	root, err := os.OpenRoot(o.Private)
	if err != nil {
		return nil, err
	}
	in, err1 := root.Stat(".")
	at, err2 := os.Lstat(o.Private)
	if err1 != nil || err2 != nil || !at.IsDir() || !os.SameFile(in, at) {
		root.Close()
		return nil, errNotFolder
	}
	return root, nil
}

// objectFiles lists the loose objects and pack indexes (with their packs) in the private
// folder, relative to it: regular files only, and only the names git gives them when done.
func objectFiles(root *os.Root) []string {
	var out []string
	dirs, _ := readDir(root, ".")
	for _, d := range dirs {
		if !d.IsDir() || !fanoutName(d.Name()) {
			continue
		}
		entries, _ := readDir(root, d.Name())
		for _, e := range entries {
			if e.Type().IsRegular() && looseName(e.Name()) {
				out = append(out, filepath.Join(d.Name(), e.Name()))
			}
		}
	}
	packs, _ := readDir(root, "pack")
	for _, e := range packs {
		if !e.Type().IsRegular() || !packIdx(e.Name()) {
			continue
		}
		pack := filepath.Join("pack", strings.TrimSuffix(e.Name(), ".idx")+".pack")
		if st, err := root.Lstat(pack); err == nil && st.Mode().IsRegular() {
			out = append(out, pack, filepath.Join("pack", e.Name()))
		}
	}
	return out
}

func readDir(root *os.Root, dir string) ([]os.DirEntry, error) {
	f, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// copyOut copies the file f of root to dst.
func copyOut(root *os.Root, f, dst string) error {
	in, err := root.Open(f)
	if err != nil {
		return err
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", f)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeAll deletes the migrated files from the private folder (indexes before their
// packs).
func removeAll(root *os.Root, files []string) {
	for i := len(files) - 1; i >= 0; i-- {
		root.Remove(files[i])
	}
}

// copyPack packs the staged objects and indexes the pack into the shared store:
// index-pack computes each object's hash from its content. The pack streams from one
// to the other (a clone's may be large).
func (o *WorktreeObjects) copyPack(ctx context.Context, staging string, list []string) error {
	pack := o.gitCmd(ctx, staging, "pack-objects", "--stdout", "-q")
	pack.Stdin = strings.NewReader(strings.Join(list, "\n") + "\n")
	index := o.gitCmd(ctx, "", "index-pack", "--stdin")
	r, w := io.Pipe()
	pack.Stdout, index.Stdin = w, r
	var packErr, indexErr bytes.Buffer
	pack.Stderr, index.Stderr = &packErr, &indexErr
	if err := index.Start(); err != nil {
		return err
	}
	perr := pack.Run()
	w.CloseWithError(perr)
	ierr := index.Wait()
	r.Close()
	if perr != nil {
		return fmt.Errorf("git pack-objects: %v %s", perr, firstLine(packErr.Bytes()))
	}
	if ierr != nil {
		return fmt.Errorf("git index-pack: %v %s", ierr, firstLine(indexErr.Bytes()))
	}
	return nil
}

// copyEach copies the staged objects one by one with hash-object, which computes the
// hash: the fallback when one bad object fails the whole pack.
func (o *WorktreeObjects) copyEach(ctx context.Context, staging string, list []string) {
	for _, name := range list {
		typ, err := o.git(ctx, staging, nil, "cat-file", "-t", name)
		if err != nil {
			continue
		}
		t := strings.TrimSpace(string(typ))
		body, err := o.git(ctx, staging, nil, "cat-file", t, name)
		if err != nil {
			continue
		}
		_, _ = o.git(ctx, "", body, "hash-object", "-w", "-t", t, "--stdin")
	}
}

// git runs git on the shared git dir with a clean git environment; objects, when set,
// is the only object folder it reads (no alternates).
func (o *WorktreeObjects) git(ctx context.Context, objects string, stdin []byte, args ...string) ([]byte, error) {
	cmd := o.gitCmd(ctx, objects, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(firstLine(errb.Bytes()))
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

func (o *WorktreeObjects) gitCmd(ctx context.Context, objects string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + o.GitDir}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if objects != "" {
		cmd.Env = append(cmd.Env, "GIT_OBJECT_DIRECTORY="+objects)
	}
	return cmd
}

func firstLine(b []byte) string {
	line, err := bufio.NewReader(bytes.NewReader(b)).ReadString('\n')
	if err != nil && err != io.EOF {
		return ""
	}
	return line
}
