package hook

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher watches files on disk for the session's hooks, as Claude Code does: the files
// the FileChanged matchers name in the working directory, the absolute watchPaths that
// CwdChanged and FileChanged hooks ask for (FileChanged fires when one is added, changed
// or removed), and the settings files (ConfigChange). It watches each file's folder, so
// a file that does not exist yet is seen when it is made, and an editor's
// write-then-rename is one change. Changes to one file within Settle of each other are
// one event.
type Watcher struct {
	r      *Runner
	fw     *fsnotify.Watcher
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// OnConfig, when set, receives each ConfigChange verdict (the harness tells the user).
	onConfig func(source, path string, blocked bool, reason string)

	mu       sync.Mutex
	cwd      string
	dynamic  map[string]bool   // watchPaths from hooks
	settings map[string]string // settings file → its ConfigChange source
	exists   map[string]bool   // each watched file → whether it existed when last looked at
	dirs     map[string]bool   // the folders fw watches
	timers   map[string]*time.Timer
	firing   map[string]bool // files whose hooks are running: their own writes are not news
	pending  map[string]bool // files that changed while their hooks ran
	ours     map[string][sha256.Size]byte
	closed   bool
}

// Ours says ouro itself is writing data to the settings file path (a rule a person
// approved for always): when the file then holds exactly that, the ConfigChange hooks
// are not told (it is the session's own change, in effect already). A nil Watcher does
// nothing.
func (w *Watcher) Ours(path string, data []byte) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.ours[filepath.Clean(path)] = sha256.Sum256(data)
	w.mu.Unlock()
}

// maxSettingsRead bounds what is read of a settings file to compare it with ouro's own
// write (settings files are at most 1 MiB).
const maxSettingsRead = 1 << 20

// ownWrite reports whether p holds what Ours last said ouro wrote there, and forgets it.
func (w *Watcher) ownWrite(p string) bool {
	w.mu.Lock()
	sum, ok := w.ours[p]
	delete(w.ours, p)
	w.mu.Unlock()
	if !ok {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsRead+1))
	return err == nil && len(data) <= maxSettingsRead && sha256.Sum256(data) == sum
}

// MaxWatchPaths bounds the watchPaths hooks may add (a hook cannot make ouro watch the
// whole disk); past it more are refused with a word to the user.
const MaxWatchPaths = 256

// Settle is how long a watched file must be quiet before its change fires.
const Settle = 150 * time.Millisecond

// WatchConfig says what a Watcher watches besides the FileChanged matchers' files.
type WatchConfig struct {
	// CWD is the working directory the matchers' file names are in.
	CWD string
	// Settings maps each settings file (absolute) to its ConfigChange source
	// (user_settings, project_settings, local_settings, policy_settings); they are
	// watched only when a ConfigChange hook is configured.
	Settings map[string]string
	// OnConfig, when set, is told each ConfigChange verdict.
	OnConfig func(source, path string, blocked bool, reason string)
}

// Watch starts a Watcher, or returns nil when no FileChanged, CwdChanged or ConfigChange
// hook is configured (nothing would be told of a change). Close stops it.
func (r *Runner) Watch(c WatchConfig) (*Watcher, error) {
	if !r.Has(FileChanged) && !r.Has(CwdChanged) && !r.Has(ConfigChange) {
		return nil, nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{r: r, fw: fw, ctx: ctx, cancel: cancel, done: make(chan struct{}), onConfig: c.OnConfig,
		cwd: c.CWD, dynamic: map[string]bool{}, settings: map[string]string{}, exists: map[string]bool{},
		dirs: map[string]bool{}, timers: map[string]*time.Timer{}, firing: map[string]bool{},
		pending: map[string]bool{}, ours: map[string][sha256.Size]byte{}}
	if r.Has(ConfigChange) {
		for p, src := range c.Settings {
			w.settings[filepath.Clean(p)] = src
		}
	}
	w.mu.Lock()
	w.rewatch()
	w.mu.Unlock()
	go w.loop()
	return w, nil
}

// Paths are the files watched, sorted (for reports and tests).
func (w *Watcher) Paths() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.exists))
	for p := range w.exists {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// SetCWD says the working directory moved: the matchers' file names are watched in dir
// now, and watch (what the CwdChanged hooks asked for) replaces the watchPaths so far.
func (w *Watcher) SetCWD(dir string, watch []string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cwd = dir
	w.dynamic = map[string]bool{}
	w.addLocked(watch)
}

// add watches more paths (what FileChanged hooks asked for).
func (w *Watcher) add(watch []string) {
	if len(watch) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.addLocked(watch)
}

// addLocked adds watch to the watchPaths, up to MaxWatchPaths, and renews the watch.
// w.mu is held.
func (w *Watcher) addLocked(watch []string) {
	refused := 0
	for _, p := range watch {
		switch {
		case w.dynamic[p]:
		case len(w.dynamic) >= MaxWatchPaths:
			refused++
		default:
			w.dynamic[p] = true
		}
	}
	if refused > 0 {
		w.r.show(fmt.Sprintf("hooks asked to watch more than %d files; %d more are not watched", MaxWatchPaths, refused))
	}
	w.rewatch()
}

// wanted is every file to watch now. w.mu is held.
func (w *Watcher) wanted() map[string]bool {
	want := map[string]bool{}
	if w.cwd != "" {
		for _, n := range w.r.WatchNames() {
			want[filepath.Join(w.cwd, n)] = true
		}
	}
	for p := range w.dynamic {
		want[p] = true
	}
	for p := range w.settings {
		want[p] = true
	}
	return want
}

// rewatch makes fw watch the folders of the wanted files and forgets the rest. w.mu is
// held.
func (w *Watcher) rewatch() {
	if w.closed {
		return
	}
	want := w.wanted()
	dirs := map[string]bool{}
	for p := range want {
		if _, known := w.exists[p]; !known {
			w.exists[p] = isFile(p)
		}
		dirs[filepath.Dir(p)] = true
	}
	for p := range w.exists {
		if !want[p] {
			delete(w.exists, p)
		}
	}
	for d := range w.dirs {
		if !dirs[d] {
			_ = w.fw.Remove(d)
			delete(w.dirs, d)
		}
	}
	for d := range dirs {
		if w.dirs[d] {
			continue
		}
		// A folder that does not exist cannot be watched; its files are not seen
		// until the watch is renewed (a move of the working directory).
		if err := w.fw.Add(d); err == nil {
			w.dirs[d] = true
		}
	}
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			p := filepath.Clean(ev.Name)
			w.mu.Lock()
			if _, watched := w.exists[p]; watched && w.firing[p] {
				w.pending[p] = true
			} else if watched && !w.closed {
				if t := w.timers[p]; t != nil {
					t.Reset(Settle)
				} else {
					w.timers[p] = time.AfterFunc(Settle, func() { w.settle(p) })
				}
			}
			w.mu.Unlock()
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
		}
	}
}

// settle fires the hooks for one file that has been quiet for Settle: add, unlink or
// change, by whether it exists now and did before.
func (w *Watcher) settle(p string) {
	w.mu.Lock()
	delete(w.timers, p)
	before, watched := w.exists[p]
	if !watched || w.closed {
		w.mu.Unlock()
		return
	}
	now := isFile(p)
	w.exists[p] = now
	source, isSettings := w.settings[p]
	fileWatched := w.dynamic[p] || (w.cwd != "" && filepath.Dir(p) == w.cwd && w.named(filepath.Base(p)))
	w.firing[p] = true
	w.mu.Unlock()
	defer func() {
		// What the hooks wrote to p themselves is not a change to tell them of (a hook
		// that rewrites the file it watches would otherwise run for ever): events for p
		// are held while they run and for Settle after (the kernel's late ones too);
		// then, if p differs from what the hooks left, it changed since, and that is
		// told. A change from elsewhere while the hooks ran is taken as theirs.
		existed, sum := isFile(p), fileSum(p)
		time.AfterFunc(Settle, func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			delete(w.firing, p)
			changed := w.pending[p]
			delete(w.pending, p)
			if _, still := w.exists[p]; !still || w.closed {
				return
			}
			w.exists[p] = existed
			if changed && (isFile(p) != existed || fileSum(p) != sum) && w.timers[p] == nil {
				w.timers[p] = time.AfterFunc(0, func() { w.settle(p) })
			}
		})
	}()
	var kind string
	switch {
	case !before && now:
		kind = "add"
	case before && !now:
		kind = "unlink"
	case now:
		kind = "change"
	default:
		return // made and removed again while settling
	}
	if isSettings && !w.ownWrite(p) {
		blocked, reason := w.r.ConfigChange(w.ctx, source, p)
		if w.onConfig != nil {
			w.onConfig(source, p, blocked, reason)
		}
	}
	if fileWatched {
		w.add(w.r.FileChanged(w.ctx, p, kind))
	}
}

// named reports whether a FileChanged matcher lists name. w.mu is held.
func (w *Watcher) named(name string) bool {
	for _, n := range w.r.WatchNames() {
		if n == name {
			return true
		}
	}
	return false
}

// Close stops watching and waits for the watcher's goroutine; hooks still running are
// cancelled. A nil Watcher's Close does nothing.
func (w *Watcher) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Unlock()
	w.cancel()
	err := w.fw.Close()
	<-w.done
	return err
}

// fileSum is the hash of p's contents (of its first maxSettingsRead bytes; zero when it
// cannot be read).
func fileSum(p string) [sha256.Size]byte {
	f, err := os.Open(p)
	if err != nil {
		return [sha256.Size]byte{}
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxSettingsRead)); err != nil {
		return [sha256.Size]byte{}
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
