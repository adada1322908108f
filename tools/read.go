package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

const (
	readDefaultLimit = 2000
	// readMaxOutput bounds the text of one Read so it fits, with its notices, in the
	// registry's output budget: a longer result would be cut in the middle by the
	// registry, dropping the lines in between, where a view that stops early tells the
	// model exactly where to continue. It is counted in bytes, which are never fewer
	// than the characters the budget counts.
	readMaxOutput = tool.DefaultOutputBudget - 2000
	// lineOverhead is what a shown line adds besides its text: number, tab, newline and
	// room for a cut marker.
	lineOverhead = 80
	// sniffBytes is how much of a file decides whether it is text, an image or binary.
	sniffBytes = 8 << 10
	// maxImageBytes keeps an inline image within the model API's 5 MB limit, which
	// applies to the base64 text (4 characters for every 3 bytes).
	maxImageBytes = 5 << 20 / 4 * 3
	readBufSize   = 64 << 10
)

// Read shows a file to the model: text numbered like `cat -n`, images as image blocks.
// It records what it read in the session's FileState, which Write and Edit require.
type Read struct {
	ws    *workspace.Workspace
	files *FileState
}

// NewRead returns the Read tool; it panics when ws or files is nil, which is a
// programming error.
func NewRead(ws *workspace.Workspace, files *FileState) *Read {
	if ws == nil || files == nil {
		panic("tools: NewRead needs a workspace and a FileState")
	}
	return &Read{ws: ws, files: files}
}

// ReadOnly implements tool.Tool.
func (r *Read) ReadOnly() bool { return true }

// Describe implements tool.Describer: a call reads the file it names.
func (r *Read) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeRead(input)
}

var describeRead = tool.DescribeFile(tool.ActRead, "file_path")

// Spec implements tool.Tool.
func (r *Read) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "Read", Description: readDescription, InputSchema: json.RawMessage(readSchema)}
}

const readDescription = `Reads a file and returns its content with line numbers.
- file_path should be absolute (relative to the working directory also works). Paths outside the workspace are refused.
- Up to 2000 lines (about 28,000 characters) are returned from the start; when there is more, the result says which offset to continue from. For a large file, read the part you need with offset (1-based first line) and limit (number of lines).
- Lines are numbered like cat -n: spaces, number, tab, line. That prefix is not in the file: never copy it into Edit's old_string.
- Lines over 2000 characters are cut, with a note.
- Images (PNG, JPEG, GIF, WebP) are returned as images, up to 3.75 MB. Other binary files are refused; inspect them with Bash. A directory cannot be read: use LS or Glob.
- Read every file you will change: Edit and Write refuse a file not read in this session, or changed since.
- Read several files at once with several Read calls in one response.`

const readSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to read"},
    "offset": {"type": "integer", "minimum": 0, "description": "The line to start at (1-based); only for a file too large to read at once"},
    "limit": {"type": "integer", "minimum": 1, "description": "How many lines to read (default 2000); only for a file too large to read at once"}
  },
  "required": ["file_path"],
  "additionalProperties": false
}`

type readInput struct {
	FilePath *string  `json:"file_path"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
}

// Run implements tool.Tool.
func (r *Read) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in readInput
	if err := decodeInput("Read", input, &in); err != nil {
		return tool.Result{}, err
	}
	path, err := requireFilePath(r.ws, "Read", in.FilePath)
	if err != nil {
		return tool.Result{}, err
	}
	offset, _, err := wholeNumber("Read", "offset", in.Offset, 0)
	if err != nil {
		return tool.Result{}, err
	}
	offset = max(offset, 1) // 0 means the start, as in Claude Code
	limit, set, err := wholeNumber("Read", "limit", in.Limit, 1)
	if err != nil {
		return tool.Result{}, err
	}
	if !set {
		limit = readDefaultLimit
	}

	// Stat before opening: opening a named pipe would block until a writer appears.
	info, err := os.Stat(path)
	if err != nil {
		if isNotExist(err) {
			return tool.Result{}, fmt.Errorf("Read: %s does not exist (the working directory is %s)", path, r.ws.CWD())
		}
		return tool.Result{}, fmt.Errorf("Read: %w", err)
	}
	if !info.Mode().IsRegular() {
		return tool.Result{}, notRegularError("Read", path, info.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return tool.Result{}, fmt.Errorf("Read: %w", err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return tool.Result{}, fmt.Errorf("Read: %w", err)
	}

	// Everything read passes through the hash, so the stamp recorded below covers exactly
	// the content the model was shown or told about.
	h := sha256.New()
	br := bufio.NewReaderSize(ctxReader{ctx: ctx, r: io.TeeReader(f, h)}, readBufSize)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return tool.Result{}, fmt.Errorf("Read %s: %w", path, err)
	}
	if len(head) == 0 {
		res := tool.Text(fmt.Sprintf("The file %s exists but is empty (0 bytes).", path))
		res.ChangedState = r.files.record(path, newStamp(info, sumOf(h)))
		return res, nil
	}
	if mediaType := imageType(head); mediaType != "" {
		return r.readImage(path, info, br, h, mediaType)
	}
	if strings.EqualFold(filepath.Ext(path), ".ipynb") {
		res, raw, ok, err := r.readNotebook(path, info, br, h, offset, limit)
		if ok || err != nil {
			return res, err
		}
		// Not a notebook after all: shown as the text it is, from what was read (and
		// hashed) already.
		br = bufio.NewReader(bytes.NewReader(raw))
	}
	if looksBinary(head, len(head) < sniffBytes) {
		kind, hint := describeBinary(head)
		return tool.Result{}, fmt.Errorf("Read: %s is a binary file (%s, %s bytes), and Read shows only text and images (PNG, JPEG, GIF, WebP). Inspect it with Bash instead, e.g. %s",
			path, kind, groupDigits(info.Size()), strings.ReplaceAll(hint, "FILE", shellQuote(path)))
	}

	var v textView
	if text, ok, err := r.files.readEditor(ctx, "Read", path); err != nil {
		return tool.Result{}, err
	} else if ok {
		// The editor's text is shown; the disk's is still hashed whole, for the stamp.
		if _, err := io.Copy(io.Discard, br); err != nil {
			return tool.Result{}, fmt.Errorf("Read %s: %w", path, err)
		}
		v, err = scanText(bufio.NewReader(strings.NewReader(text)), offset, limit)
		if err != nil {
			return tool.Result{}, fmt.Errorf("Read %s: %w", path, err)
		}
	} else if v, err = scanText(br, offset, limit); err != nil {
		return tool.Result{}, fmt.Errorf("Read %s: %w", path, err)
	}
	if offset > v.total {
		return tool.Result{}, fmt.Errorf("Read: offset %d is past the end of %s, which has %s lines. Use an offset from 1 to %d",
			offset, path, groupDigits(int64(v.total)), v.total)
	}
	res := tool.Text(v.text + v.notice(offset, limit))
	res.ChangedState = r.files.record(path, newStamp(info, sumOf(h)))
	return res, nil
}

func (r *Read) readImage(path string, info fs.FileInfo, br *bufio.Reader, h hash.Hash, mediaType string) (tool.Result, error) {
	tooBig := func(size int64) error {
		// The copy goes next to the original: Read only reaches inside the workspace.
		small := shellQuote(strings.TrimSuffix(path, filepath.Ext(path)) + ".small.png")
		return fmt.Errorf("Read: %s is an image (%s) of %s bytes, larger than the %s bytes an image can be sent inline (5 MB once base64-encoded). Make a smaller copy with Bash, e.g. `convert %s -resize 50%% %s` (ImageMagick) or `sips -Z 1600 -s format png %s --out %s` (macOS), and read that",
			path, mediaType, groupDigits(size), groupDigits(maxImageBytes), shellQuote(path), small, shellQuote(path), small)
	}
	if info.Size() > maxImageBytes {
		return tool.Result{}, tooBig(info.Size())
	}
	data, err := io.ReadAll(io.LimitReader(br, maxImageBytes+1))
	if err != nil {
		return tool.Result{}, fmt.Errorf("Read %s: %w", path, err)
	}
	if len(data) > maxImageBytes { // it grew since the stat
		return tool.Result{}, tooBig(int64(len(data)))
	}
	changed := r.files.record(path, newStamp(info, sumOf(h)))
	return tool.Result{ChangedState: changed, Content: []llm.Block{
		llm.TextBlock(fmt.Sprintf("Image %s (%s, %s bytes):", path, mediaType, groupDigits(int64(len(data))))),
		{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: mediaType, Data: base64.StdEncoding.EncodeToString(data)}},
	}}, nil
}

func sumOf(h hash.Hash) [sha256.Size]byte {
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// textView is the part of a text file one Read shows.
type textView struct {
	text        string
	first, last int // shown lines, 1-based; last < first when none
	total       int // lines in the file
	cutLines    int // shown lines that were cut at maxLineChars
	capped      bool
}

// scanText streams the file once: lines before offset are skipped without being kept,
// the requested ones are rendered, and the rest is only counted, so memory stays bounded
// by the output whatever the file's size.
func scanText(br *bufio.Reader, offset, limit int) (textView, error) {
	v := textView{first: offset}
	var sb strings.Builder
	sc := lineScanner{r: br}
	lineNo, shown := 0, 0
	for {
		keep := lineNo+1 >= offset
		if keep && shown == limit {
			break
		}
		line, cut, ok, err := sc.next(keep)
		if err != nil {
			return v, err
		}
		if !ok {
			break
		}
		lineNo++
		if !keep {
			continue
		}
		if shown > 0 && sb.Len()+len(line)+lineOverhead > readMaxOutput {
			v.capped = true // this line stays unshown; the total below still counts it
			break
		}
		writeLineNumber(&sb, lineNo)
		if utf8.Valid(line) {
			sb.Write(line)
		} else {
			sb.WriteString(strings.ToValidUTF8(string(line), "\uFFFD"))
		}
		if cut > 0 {
			writeCutMarker(&sb, cut)
			v.cutLines++
		}
		sb.WriteByte('\n')
		shown++
		v.last = lineNo
	}
	var rest lineCounter
	if _, err := br.WriteTo(&rest); err != nil {
		return v, err
	}
	v.total = lineNo + rest.lines
	if rest.partial {
		v.total++
	}
	v.text = sb.String()
	return v, nil
}

// notice tells the model what part of the file it is looking at and how to see more.
func (v textView) notice(offset, limit int) string {
	var notes []string
	if v.first > 1 || v.last < v.total {
		s := fmt.Sprintf("Showing lines %d-%d of %s.", v.first, v.last, groupDigits(int64(v.total)))
		if v.last < v.total {
			if v.capped {
				s += fmt.Sprintf(" The %d lines asked for did not fit in one result (at most %s characters).", limit, groupDigits(readMaxOutput))
			}
			s += fmt.Sprintf(" To read more, call Read again with offset=%d (and limit to choose how many lines).", v.last+1)
		} else {
			s += " This is the end of the file."
		}
		notes = append(notes, s)
	}
	if v.cutLines > 0 {
		notes = append(notes, fmt.Sprintf("%d of the lines shown were longer than %d characters and were cut. To see more of line N, use Bash: sed -n 'Np' FILE | cut -c %d-%d",
			v.cutLines, maxLineChars, maxLineChars+1, 3*maxLineChars))
	}
	if len(notes) == 0 {
		return ""
	}
	return "\n(" + strings.Join(notes, " ") + ")"
}

// lineScanner reads lines of any length from a bufio.Reader while holding at most
// maxLineChars characters of one line.
type lineScanner struct {
	r   *bufio.Reader
	buf []byte
}

// next consumes one line. With keep it returns the line without its ending (\n or \r\n),
// cut to maxLineChars characters, and how many characters were cut; without keep the
// line is only skipped. ok is false when the input was already at its end. The returned
// slice is valid until the next call.
func (s *lineScanner) next(keep bool) (line []byte, cut int, ok bool, err error) {
	s.buf = s.buf[:0]
	kept := 0
	var last byte // the line's last byte before its '\n'
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(chunk) > 0 {
			ok = true
		}
		complete := err == nil
		body := chunk
		if complete {
			body = chunk[:len(chunk)-1]
		}
		if len(body) > 0 {
			last = body[len(body)-1]
			if keep {
				n := prefixChars(body, maxLineChars-kept)
				s.buf = append(s.buf, body[:n]...)
				kept += countChars(body[:n])
				cut += countChars(body[n:])
			}
		}
		switch {
		case complete || (errors.Is(err, io.EOF) && ok):
			if complete && last == '\r' && keep {
				if cut > 0 {
					cut-- // the \r was among the characters cut
				} else {
					s.buf = s.buf[:len(s.buf)-1]
				}
			}
			return s.buf, cut, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, 0, false, nil
		default:
			return nil, 0, false, err
		}
	}
}

// lineCounter counts the lines written to it, a final one without a newline included.
type lineCounter struct {
	lines   int
	partial bool
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.lines += bytes.Count(p, []byte{'\n'})
		c.partial = p[len(p)-1] != '\n'
	}
	return len(p), nil
}

// imageType recognises the image formats the model accepts by their signatures.
func imageType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// looksBinary decides from the start of a file whether it is text: a NUL byte says
// binary at once; otherwise more than one byte in ten being invalid UTF-8 or a control
// character that text does not use. A little invalid UTF-8 (a Latin-1 comment) still
// reads as text. complete says p is the whole file; if not, a character cut at the end
// of p does not count against it.
func looksBinary(p []byte, complete bool) bool {
	if bytes.IndexByte(p, 0) >= 0 {
		return true
	}
	if !complete {
		for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
			if utf8.RuneStart(p[i]) {
				if !utf8.FullRune(p[i:]) {
					p = p[:i]
				}
				break
			}
		}
	}
	bad := 0
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case r < 0x20 && !strings.ContainsRune("\t\n\r\f\v\b\x1b", r):
			bad++
		}
		i += size
	}
	return bad*10 > len(p)
}

// describeBinary names common binary formats and the command that reads them; FILE in
// the hint stands for the path.
func describeBinary(head []byte) (kind, hint string) {
	has := func(magic string) bool { return bytes.HasPrefix(head, []byte(magic)) }
	switch {
	case has("%PDF-"):
		return "a PDF document", "`pdftotext FILE - | head -200`"
	case has("PK\x03\x04"):
		return "a ZIP archive, which includes .jar, .docx and .xlsx", "`unzip -l FILE`"
	case has("\x1f\x8b"):
		return "gzip-compressed data", "`gzip -dc FILE | head -200`"
	case has("\x7fELF"):
		return "an ELF executable or library", "`file FILE` or `readelf -h FILE`"
	case has("SQLite format 3\x00"):
		return "an SQLite database", "`sqlite3 FILE .schema`"
	case has("\xff\xfe"), has("\xfe\xff"):
		return "UTF-16 text", "`iconv -f UTF-16 -t UTF-8 FILE | head -200`"
	}
	return "binary data", "`file FILE` or `xxd FILE | head -50`"
}

// shellQuote quotes a path for the Bash commands suggested in messages.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ',' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
