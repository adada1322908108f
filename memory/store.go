package memory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ouroagent/ouro/internal/regfile"
	"go.yaml.in/yaml/v4"
)

// Record types.
const (
	TypeUser      = "user"
	TypeFeedback  = "feedback"
	TypeProject   = "project"
	TypeReference = "reference"
)

// IndexFile is the index regenerated in a store's directory on every change.
const IndexFile = "MEMORY.md"

// Record is one remembered fact, stored as a Markdown file with YAML frontmatter.
type Record struct {
	Name        string    `yaml:"name" json:"name"`
	Description string    `yaml:"description" json:"description"`
	Type        string    `yaml:"type" json:"type"`
	Source      string    `yaml:"source,omitempty" json:"source,omitempty"` // session and turn, e.g. "session abc turn 3"
	Scope       string    `yaml:"scope,omitempty" json:"scope,omitempty"`   // "project" or "user"
	Updated     time.Time `yaml:"updated" json:"updated"`
	Body        string    `yaml:"-" json:"body,omitempty"`
}

// Errors Save reports.
var (
	ErrSecret    = errors.New("memory: record looks like it contains a secret")
	ErrDuplicate = errors.New("memory: a record with that name or description exists")
	ErrNotFound  = errors.New("memory: no such record")
	ErrInvalid   = errors.New("memory: invalid record")
)

// Store is a directory of records: the project's memory/ or the user's.
type Store struct {
	Dir   string
	Scope string
	// Now is the clock (for tests); nil means time.Now.
	Now func() time.Time

	mu sync.Mutex
}

// Open returns the store in dir, creating the directory when it is first written.
func Open(dir, scope string) *Store { return &Store{Dir: dir, Scope: scope} }

// ProjectMemoryDir is the project's memory directory inside a project folder (see
// session.ProjectDir).
func ProjectMemoryDir(projectDir string) string { return filepath.Join(projectDir, "memory") }

// UserMemoryDir is the user-level memory directory under the ouro home.
func UserMemoryDir(ouroHome string) string { return filepath.Join(ouroHome, "memory") }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now().UTC()
}

// FileName is the file a record with this name is kept in.
func FileName(name string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('-')
		}
	}
	n := strings.Trim(sb.String(), "-")
	if n == "" {
		n = "record"
	}
	return n + ".md"
}

// Save writes a new record. It refuses secrets (ErrSecret), duplicates of an existing
// record's name or description (ErrDuplicate) unless replace is set and the names match.
func (s *Store) Save(r Record) error { return s.save(r, false) }

// Update replaces the record with r.Name (which must exist) and regenerates the index.
func (s *Store) Update(r Record) error { return s.save(r, true) }

func (s *Store) save(r Record, replace bool) error {
	r.Name = strings.TrimSpace(r.Name)
	r.Description = strings.TrimSpace(strings.ReplaceAll(r.Description, "\n", " "))
	if r.Name == "" || r.Description == "" {
		return fmt.Errorf("%w: name and description are required", ErrInvalid)
	}
	if r.Type == "" {
		r.Type = TypeProject
	}
	switch r.Type {
	case TypeUser, TypeFeedback, TypeProject, TypeReference:
	default:
		return fmt.Errorf("%w: type %q", ErrInvalid, r.Type)
	}
	if why := Secret(r.Name + "\n" + r.Description + "\n" + r.Body); why != "" {
		return fmt.Errorf("%w (%s)", ErrSecret, why)
	}
	if r.Scope == "" {
		r.Scope = s.Scope
	}
	r.Updated = s.now()
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	all, err := s.list()
	if err != nil {
		return err
	}
	exists := false
	for _, o := range all {
		same := FileName(o.Name) == FileName(r.Name)
		if same {
			exists = true
		}
		if replace && same {
			continue
		}
		if same || nearDuplicate(o.Description, r.Description) {
			return fmt.Errorf("%w: %q", ErrDuplicate, o.Name)
		}
	}
	if replace && !exists {
		return fmt.Errorf("%w: %q", ErrNotFound, r.Name)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(s.Dir, FileName(r.Name)), encode(r)); err != nil {
		return err
	}
	return s.reindex()
}

// Get reads the record with this name.
func (s *Store) Get(name string) (Record, error) {
	unlock, err := s.lock(false)
	if err != nil {
		return Record{}, err
	}
	defer unlock()
	data, err := regfile.Read(filepath.Join(s.Dir, FileName(name)), regfile.MaxConfig)
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return Record{}, err
	}
	return decode(data)
}

// List returns every record, by name.
func (s *Store) List() ([]Record, error) {
	unlock, err := s.lock(false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.list()
}

func (s *Store) list() ([]Record, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || e.Name() == IndexFile {
			continue
		}
		data, err := regfile.Read(filepath.Join(s.Dir, e.Name()), regfile.MaxConfig)
		if err != nil {
			continue
		}
		r, err := decode(data)
		if err != nil || r.Name == "" {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Forget removes the record with this name.
func (s *Store) Forget(name string) error {
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	err = os.Remove(filepath.Join(s.Dir, FileName(name)))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return err
	}
	return s.reindex()
}

// Path is the file of the record with this name (for `ouro memory edit`).
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, FileName(name)) }

// Index returns the text of MEMORY.md as it would be generated now.
func (s *Store) Index() (string, error) {
	unlock, err := s.lock(false)
	if err != nil {
		return "", err
	}
	defer unlock()
	all, err := s.list()
	if err != nil {
		return "", err
	}
	return indexText(all), nil
}

// Reindex regenerates MEMORY.md (after a record file was edited by hand).
func (s *Store) Reindex() error {
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	return s.reindex()
}

func (s *Store) reindex() error {
	all, err := s.list()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.Dir, IndexFile), []byte(indexText(all)))
}

func indexText(all []Record) string {
	var b strings.Builder
	b.WriteString("# Memory\n\n")
	for _, r := range all {
		fmt.Fprintf(&b, "- [%s](%s) (%s): %s\n", r.Name, FileName(r.Name), r.Type, r.Description)
	}
	return b.String()
}

func encode(r Record) []byte {
	fm, _ := yaml.Marshal(r)
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(r.Body))
	b.WriteString("\n")
	return b.Bytes()
}

func decode(data []byte) (Record, error) {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return Record{}, fmt.Errorf("%w: no frontmatter", ErrInvalid)
	}
	rest := s[4:]
	i := strings.Index(rest, "\n---")
	if i < 0 {
		return Record{}, fmt.Errorf("%w: unterminated frontmatter", ErrInvalid)
	}
	var r Record
	if err := yaml.Unmarshal([]byte(rest[:i]), &r); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	body := rest[i+4:]
	if j := strings.IndexByte(body, '\n'); j >= 0 {
		body = body[j+1:]
	} else {
		body = ""
	}
	r.Body = strings.TrimSpace(body)
	return r, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// words splits text into lowercase words of at least three letters or digits.
func words(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	out := f[:0]
	for _, w := range f {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

// nearDuplicate: identical after normalisation, or word sets with Jaccard similarity ≥ 0.8.
func nearDuplicate(a, b string) bool {
	wa, wb := words(a), words(b)
	if strings.Join(wa, " ") == strings.Join(wb, " ") {
		return true
	}
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	sa := map[string]bool{}
	for _, w := range wa {
		sa[w] = true
	}
	sb := map[string]bool{}
	for _, w := range wb {
		sb[w] = true
	}
	inter := 0
	for w := range sb {
		if sa[w] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	return float64(inter)/float64(union) >= 0.8
}
