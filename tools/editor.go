package tools

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
)

// Editor is the editor a session runs in (ACP's fs/read_text_file and
// fs/write_text_file): Read, Edit and Write take a text file's content from it and give
// their changes to it, so the model sees and changes what the user has open, unsaved
// edits included. The disk still decides everything else: whether the file exists, is
// text, and has changed since the model read it (FileState's stamps are of the disk).
type Editor interface {
	// ReadText returns path's text as the editor holds it; ok false when the editor does
	// not read files (the disk is read instead).
	ReadText(ctx context.Context, path string) (text string, ok bool, err error)
	// WriteText gives path's new text to the editor, which saves it; ok false when the
	// editor does not write files (the tool writes the disk itself).
	WriteText(ctx context.Context, path, text string) (ok bool, err error)
}

// SetEditor makes Read, Edit and Write go through e; nil (the default) is the disk
// alone. Set it before the tools run.
func (s *FileState) SetEditor(e Editor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.editor = e
}

func (s *FileState) editorOf() Editor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.editor
}

// readEditor is path's text in the editor, if there is one that reads files.
func (s *FileState) readEditor(ctx context.Context, tool, path string) (string, bool, error) {
	e := s.editorOf()
	if e == nil {
		return "", false, nil
	}
	text, ok, err := e.ReadText(ctx, path)
	if err != nil {
		return "", false, fmt.Errorf("%s: the editor could not read %s: %w", tool, path, err)
	}
	return text, ok, nil
}

// writeText writes data to path: through the editor when it writes files, else
// atomically to the disk. What it returns is the disk's state afterwards, for the stamp.
func (s *FileState) writeText(ctx context.Context, tool, path string, data []byte, mode fs.FileMode) (fs.FileInfo, [sha256.Size]byte, error) {
	if e := s.editorOf(); e != nil {
		ok, err := e.WriteText(ctx, path, string(data))
		if err != nil {
			return nil, [sha256.Size]byte{}, fmt.Errorf("the editor could not write it: %w", err)
		}
		if ok {
			// The stamp is the disk's as the editor left it: saved, it is data; unsaved, the
			// file as it was, which the next change is then checked against.
			f, err := os.Open(path)
			if err != nil {
				return nil, [sha256.Size]byte{}, err
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil {
				return nil, [sha256.Size]byte{}, err
			}
			sum, err := hashReader(ctx, f)
			return info, sum, err
		}
	}
	info, err := writeFileAtomic(path, data, mode)
	return info, sha256.Sum256(data), err
}
