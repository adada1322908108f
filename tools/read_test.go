package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

func TestReadSpec(t *testing.T) {
	e := newFileEnv(t)
	if e.read.Spec().Name != "Read" || !e.read.ReadOnly() {
		t.Fatalf("name %q, read-only %v; want Read, true", e.read.Spec().Name, e.read.ReadOnly())
	}
	props, required := schemaOf(t, e.read)
	if len(props) != 3 || props["file_path"] == nil || props["offset"] == nil || props["limit"] == nil {
		t.Errorf("properties %v, want file_path, offset, limit", props)
	}
	if strings.Join(required, ",") != "file_path" {
		t.Errorf("required = %v, want [file_path]", required)
	}
	for _, want := range []string{"2000", "offset", "limit", "Edit", "LS", "image"} {
		if !strings.Contains(e.read.Spec().Description, want) {
			t.Errorf("description does not mention %q", want)
		}
	}
}

// numbered renders lines first.. in Read's format.
func numbered(first int, lines ...string) string {
	var sb strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&sb, "%6d\t%s\n", first+i, l)
	}
	return sb.String()
}

func TestReadText(t *testing.T) {
	e := newFileEnv(t)
	e.put("five.txt", "one\ntwo\nthree\nfour\nfive\n")
	e.put("nolf.txt", "a\nb")
	e.put("crlf.txt", "a\r\nb\r\n")
	e.put("blank.txt", "\n")
	e.put("long.txt", "short\n"+strings.Repeat("x", 2500)+"\r\n"+strings.Repeat("é", 2001)+"\n")
	e.put("latin1.txt", "caf\xe9 au lait\n")
	e.put("sub/rel.txt", "relative\n")
	cut := func(n int) string { return fmt.Sprintf(" [… %d more characters cut from this line]", n) }

	cases := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"whole file", map[string]any{"file_path": e.path("five.txt")},
			numbered(1, "one", "two", "three", "four", "five")},
		{"relative path", map[string]any{"file_path": "sub/rel.txt"}, numbered(1, "relative")},
		{"offset and limit", map[string]any{"file_path": e.path("five.txt"), "offset": 2, "limit": 2},
			numbered(2, "two", "three") + "\n(Showing lines 2-3 of 5. To read more, call Read again with offset=4 (and limit to choose how many lines).)"},
		{"offset to the end", map[string]any{"file_path": e.path("five.txt"), "offset": 4},
			numbered(4, "four", "five") + "\n(Showing lines 4-5 of 5. This is the end of the file.)"},
		{"offset 0 is the start", map[string]any{"file_path": e.path("five.txt"), "offset": 0, "limit": 5},
			numbered(1, "one", "two", "three", "four", "five")},
		{"limit larger than the file", map[string]any{"file_path": e.path("five.txt"), "limit": 100},
			numbered(1, "one", "two", "three", "four", "five")},
		{"whole number as float", map[string]any{"file_path": e.path("five.txt"), "offset": 5.0},
			numbered(5, "five") + "\n(Showing lines 5-5 of 5. This is the end of the file.)"},
		{"null optionals", map[string]any{"file_path": e.path("nolf.txt"), "offset": nil, "limit": nil}, numbered(1, "a", "b")},
		{"last line without newline", map[string]any{"file_path": e.path("nolf.txt"), "offset": 2}, numbered(2, "b") + "\n(Showing lines 2-2 of 2. This is the end of the file.)"},
		{"CRLF shown without CR", map[string]any{"file_path": e.path("crlf.txt")}, numbered(1, "a", "b")},
		{"one empty line", map[string]any{"file_path": e.path("blank.txt")}, numbered(1, "")},
		{"long lines cut", map[string]any{"file_path": e.path("long.txt")},
			numbered(1, "short", strings.Repeat("x", 2000)+cut(500), strings.Repeat("é", 2000)+cut(1)) +
				"\n(2 of the lines shown were longer than 2000 characters and were cut. To see more of line N, use Bash: sed -n 'Np' FILE | cut -c 2001-6000)"},
		{"a little invalid UTF-8 is text", map[string]any{"file_path": e.path("latin1.txt")}, numbered(1, "caf\uFFFD au lait")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.ok(e.read, tc.input); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestReadEmptyFile(t *testing.T) {
	e := newFileEnv(t)
	p := e.put("empty.txt", "")
	if got := e.readFile("empty.txt"); got != "The file "+p+" exists but is empty (0 bytes)." {
		t.Errorf("got %q", got)
	}
	// An empty file that was read may be written.
	e.ok(e.write, map[string]any{"file_path": p, "content": "now\n"})
}

func TestReadErrors(t *testing.T) {
	e := newFileEnv(t)
	e.put("five.txt", "1\n2\n3\n4\n5\n")
	e.put("nul.bin", "text\x00more")
	e.put("doc.pdf", "%PDF-1.7\n\x00\x01\x02")
	e.put("noise.bin", string(bytes.Repeat([]byte{0x80, 0x81, 0x01, 'a'}, 100)))
	e.put("utf16.txt", "\xff\xfeh\x00i\x00")
	if err := os.Mkdir(e.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	five := e.path("five.txt")
	cases := []struct {
		name  string
		input string
		want  []string
	}{
		{"not an object", `["x"]`, []string{"must be a JSON object"}},
		{"missing file_path", `{}`, []string{"file_path is required"}},
		{"empty file_path", `{"file_path": " "}`, []string{"file_path must not be empty"}},
		{"file_path not a string", `{"file_path": 12}`, []string{"file_path must be a string, got number"}},
		{"offset a string", `{"file_path": "five.txt", "offset": "2"}`, []string{"offset must be a number, got string"}},
		{"offset negative", `{"file_path": "five.txt", "offset": -1}`, []string{"offset must be at least 0, got -1"}},
		{"offset fractional", `{"file_path": "five.txt", "offset": 1.5}`, []string{"offset must be a whole number, got 1.5"}},
		{"limit zero", `{"file_path": "five.txt", "limit": 0}`, []string{"limit must be at least 1, got 0"}},
		{"unknown field", `{"file_path": "five.txt", "lines": 3}`, []string{`unknown field "lines"`}},
		{"missing file", `{"file_path": "nope.txt"}`, []string{e.path("nope.txt") + " does not exist", "working directory is " + e.root}},
		{"directory", `{"file_path": "dir"}`, []string{e.path("dir") + " is a directory", "LS", "Glob", "ls"}},
		{"NUL byte", `{"file_path": "nul.bin"}`, []string{"is a binary file (binary data, 9 bytes)", "xxd"}},
		{"PDF", `{"file_path": "doc.pdf"}`, []string{"a PDF document", "pdftotext " + e.path("doc.pdf")}},
		{"invalid UTF-8", `{"file_path": "noise.bin"}`, []string{"is a binary file"}},
		{"UTF-16", `{"file_path": "utf16.txt"}`, []string{"UTF-16 text", "iconv"}},
		{"offset past the end", `{"file_path": "five.txt", "offset": 9}`, []string{"offset 9 is past the end of " + five + ", which has 5 lines", "from 1 to 5"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := e.fails(e.read, tc.input)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// None of the failed reads counts as having read the file.
	if err := e.fails(e.write, map[string]any{"file_path": "nul.bin", "content": "x"}); !errors.Is(err, errNotRead) {
		t.Errorf("write after a refused read: %v, want errNotRead", err)
	}
}

func TestReadNamedPipeDoesNotBlock(t *testing.T) {
	e := newFileEnv(t)
	if err := exec.Command("mkfifo", e.path("fifo")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	err := e.fails(e.read, map[string]any{"file_path": "fifo"})
	if !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("error %q", err)
	}
}

func TestReadCancelled(t *testing.T) {
	e := newFileEnv(t)
	e.put("a.txt", "a\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.read.Run(ctx, tool.ExecInput([]byte(`{"file_path": "a.txt"}`)))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

func encodeImage(t *testing.T, format string) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 4, 3), color.Palette{color.Black, color.White})
	img.Set(1, 1, color.White)
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	case "webp": // a lossless WebP header is enough: Read recognises content, it does not decode
		buf.WriteString("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x03\x80\x02\x00\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadImage(t *testing.T) {
	e := newFileEnv(t)
	cases := []struct{ name, file, format, mediaType string }{
		{"png", "a.png", "png", "image/png"},
		{"jpeg", "a.jpg", "jpeg", "image/jpeg"},
		{"gif", "a.gif", "gif", "image/gif"},
		{"webp", "a.webp", "webp", "image/webp"},
		{"by content, not extension", "screenshot.txt", "png", "image/png"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := encodeImage(t, tc.format)
			p := e.put(tc.file, string(data))
			res, err := e.run(e.read, map[string]any{"file_path": p})
			if err != nil || res.IsError {
				t.Fatalf("Read: %v %q", err, res.Text())
			}
			if len(res.Content) != 2 || res.Content[1].Type != llm.BlockImage || res.Content[1].Source == nil {
				t.Fatalf("content %+v, want a text and an image block", res.Content)
			}
			src := res.Content[1].Source
			got, err := base64.StdEncoding.DecodeString(src.Data)
			if src.Type != "base64" || src.MediaType != tc.mediaType || err != nil || !bytes.Equal(got, data) {
				t.Errorf("source %s %s, data decodes to the file: %v (%v)", src.Type, src.MediaType, bytes.Equal(got, data), err)
			}
			if want := fmt.Sprintf("Image %s (%s, %d bytes):", p, tc.mediaType, len(data)); res.Content[0].Text != want {
				t.Errorf("text %q, want %q", res.Content[0].Text, want)
			}
			// A read image may be overwritten.
			e.ok(e.write, map[string]any{"file_path": p, "content": "replaced"})
		})
	}
	t.Run("a .png that is text is read as text", func(t *testing.T) {
		e.put("fake.png", "not an image\n")
		if got := e.readFile("fake.png"); got != numbered(1, "not an image") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("too large", func(t *testing.T) {
		data := append(encodeImage(t, "png"), make([]byte, maxImageBytes)...)
		p := e.put("big.png", string(data))
		err := e.fails(e.read, map[string]any{"file_path": p})
		for _, want := range []string{"is an image (image/png) of " + groupDigits(int64(len(data))) + " bytes", "larger than the 3,932,160 bytes", "5 MB", "-resize 50% " + e.path("big.small.png")} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	})
}

// TestReadOutputCap reads lines that together pass the output limit: the view stops
// there and says where to continue.
func TestReadOutputCap(t *testing.T) {
	e := newFileEnv(t)
	line := strings.Repeat("y", 1000)
	e.put("wide.txt", strings.Repeat(line+"\n", 2000))
	got := e.readFile("wide.txt")
	shown := strings.Count(got, "\t"+line+"\n")
	if per := 6 + 1 + len(line) + 1; shown*per > readMaxOutput || (shown+1)*per <= readMaxOutput-lineOverhead {
		t.Fatalf("%d lines of %d bytes shown, want as many as fit in %d bytes", shown, per, readMaxOutput)
	}
	// The whole result, notices included, passes the registry's budget uncut.
	if n := utf8.RuneCountInString(got); n > tool.DefaultOutputBudget {
		t.Errorf("result has %d characters, over the registry's budget of %d", n, tool.DefaultOutputBudget)
	}
	want := fmt.Sprintf("(Showing lines 1-%d of 2,000. The 2000 lines asked for did not fit in one result (at most 28,000 characters). To read more, call Read again with offset=%d", shown, shown+1)
	if !strings.Contains(got, want) {
		t.Errorf("notice missing %q in %q", want, got[len(got)-300:])
	}
}

// writeBigFile writes lines numbered from 1, each width bytes long with its newline.
func writeBigFile(t testing.TB, path string, lines, width int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", width)
	for i := 1; i <= lines; i++ {
		s := fmt.Sprintf("line %09d ", i)
		w.WriteString(s)
		w.WriteString(pad[:width-len(s)-1])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// allocatedBy returns the bytes allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadHugeFile reads parts of a 100 MB file: the lines asked for come back with the
// file's total, and the memory used is a small fraction of the file.
func TestReadHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100 MB file")
	}
	e := newFileEnv(t)
	const lines, width = 1_000_000, 100
	writeBigFile(t, e.path("huge.log"), lines, width)
	line := func(n int) string {
		s := fmt.Sprintf("line %09d ", n)
		return s + strings.Repeat("x", width-len(s)-1)
	}
	cases := []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"middle", map[string]any{"file_path": "huge.log", "offset": 500_000, "limit": 3},
			numbered(500_000, line(500_000), line(500_001), line(500_002)) +
				"\n(Showing lines 500000-500002 of 1,000,000. To read more, call Read again with offset=500003 (and limit to choose how many lines).)"},
		{"last line", map[string]any{"file_path": "huge.log", "offset": lines},
			numbered(lines, line(lines)) + "\n(Showing lines 1000000-1000000 of 1,000,000. This is the end of the file.)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			alloc := allocatedBy(func() { got = e.ok(e.read, tc.input) })
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if alloc > 4<<20 {
				t.Errorf("reading 3 lines of a 100 MB file allocated %d bytes", alloc)
			}
		})
	}
	t.Run("default view", func(t *testing.T) {
		var got string
		alloc := allocatedBy(func() { got = e.ok(e.read, map[string]any{"file_path": "huge.log"}) })
		// As many lines from the first as fit in one result, then where to continue.
		n := strings.Count(got, "\tline ")
		if n < 200 || !strings.HasPrefix(got, numbered(1, line(1))) ||
			!strings.Contains(got, numbered(n, line(n))+fmt.Sprintf("\n(Showing lines 1-%d of 1,000,000. The 2000 lines asked for did not fit", n)) ||
			!strings.Contains(got, fmt.Sprintf("offset=%d", n+1)) {
			t.Errorf("default view is not lines 1-%d with the total: ...%s", n, got[len(got)-300:])
		}
		if alloc > 8<<20 {
			t.Errorf("the default view of a 100 MB file allocated %d bytes", alloc)
		}
	})
	t.Run("past the end", func(t *testing.T) {
		err := e.fails(e.read, map[string]any{"file_path": "huge.log", "offset": lines + 1})
		if !strings.Contains(err.Error(), "which has 1,000,000 lines") {
			t.Errorf("error %q", err)
		}
	})
	t.Run("too large to edit", func(t *testing.T) {
		err := e.fails(e.edit, map[string]any{"file_path": "huge.log", "old_string": line(7), "new_string": "seven"})
		if !strings.Contains(err.Error(), "Bash") {
			t.Errorf("error %q", err)
		}
	})
}

// TestReadHugeLine reads a 32 MB file with no newline at all: one line, cut, in bounded
// memory.
func TestReadHugeLine(t *testing.T) {
	e := newFileEnv(t)
	const size = 32 << 20
	e.put("min.js", strings.Repeat("a", size))
	var got string
	alloc := allocatedBy(func() { got = e.readFile("min.js") })
	want := numbered(1, strings.Repeat("a", 2000)+" [… 33,552,432 more characters cut from this line]")
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q…", got[:min(len(got), 200)])
	}
	if alloc > 2<<20 {
		t.Errorf("reading one 32 MB line allocated %d bytes", alloc)
	}
}

func BenchmarkReadLargeFile(b *testing.B) {
	e := newFileEnv(b)
	writeBigFile(b, e.path("big.log"), 200_000, 100) // 20 MB
	input := []byte(`{"file_path": "big.log", "offset": 100000, "limit": 100}`)
	b.SetBytes(200_000 * 100)
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.read.Run(context.Background(), tool.ExecInput(input))
		if err != nil || res.IsError {
			b.Fatal(err, res.Text())
		}
	}
}

func TestShellQuote(t *testing.T) {
	cases := map[string]string{"/a/b.txt": "/a/b.txt", "/a b": "'/a b'", "it's": `'it'\''s'`, "": "''", filepath.Join("/x", "$y"): "'/x/$y'"}
	for in, want := range cases {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLineScannerChunkBoundaries drives the scanner with the smallest bufio buffer, so
// lines arrive in many chunks: characters, \r\n pairs and the cut all fall across chunk
// boundaries.
func TestLineScannerChunkBoundaries(t *testing.T) {
	input := strings.Repeat("a", 15) + "\r\n" + // \r ends a full buffer, \n comes next
		strings.Repeat("é", 2003) + "\r\n" + // two-byte characters split across chunks, cut after 2000
		strings.Repeat("b", 2000) + "\r\n" + // exactly the limit: the \r is not a cut character
		"\n" +
		"last"
	type line struct {
		text string
		cut  int
	}
	want := []line{{strings.Repeat("a", 15), 0}, {strings.Repeat("é", 2000), 3}, {strings.Repeat("b", 2000), 0}, {"", 0}, {"last", 0}}
	for _, keep := range []bool{true, false} {
		sc := lineScanner{r: bufio.NewReaderSize(strings.NewReader(input), 16)}
		var got []line
		for {
			text, cut, ok, err := sc.next(keep)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, line{string(text), cut})
		}
		if len(got) != len(want) {
			t.Fatalf("keep=%v: %d lines, want %d", keep, len(got), len(want))
		}
		for i := range want {
			w := want[i]
			if !keep {
				w = line{}
			}
			if got[i] != w {
				t.Errorf("keep=%v line %d: %q cut %d, want %q cut %d", keep, i+1, textcut.Runes(got[i].text, 20, "…"), got[i].cut, textcut.Runes(w.text, 20, "…"), w.cut)
			}
		}
	}
}
